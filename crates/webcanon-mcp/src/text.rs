//! The text the tools show a model: short `key: value` headers in a fixed
//! order, quoting a site's own words only where the reader needs them.

use std::fmt::Write;

use webcanon_client::warning::Warning;
use webcanon_core::policy::{RobotsEvidence, RuleEvidence};
use webcanon_core::robots::Directive;

/// The longest robots.txt pattern quoted in full; longer ones are cut.
const MAX_QUOTED_PATTERN: usize = 200;

/// The matched rule as one line: `robots.txt line 2: Disallow: /private`.
pub(crate) fn rule_line(rule: &RuleEvidence) -> String {
    let directive = match rule.directive {
        Directive::Allow => "Allow",
        Directive::Disallow => "Disallow",
    };
    let pattern: String = if rule.pattern.chars().count() > MAX_QUOTED_PATTERN {
        let cut: String = rule.pattern.chars().take(MAX_QUOTED_PATTERN).collect();
        format!("{cut}… (cut)")
    } else {
        rule.pattern.clone()
    };
    format!("robots.txt line {}: {directive}: {pattern}", rule.line)
}

/// Where robots.txt came from: `http://host/robots.txt (HTTP 200, cached 3 s ago)`.
pub(crate) fn robots_source(robots: &RobotsEvidence) -> Option<String> {
    let url = robots.robots_url.as_ref()?;
    let mut text = url.clone();
    let mut notes = Vec::new();
    if let Some(status) = robots.status {
        notes.push(format!("HTTP {status}"));
    }
    if let Some(age) = robots.cache_age_seconds.filter(|_| robots.from_cache) {
        notes.push(format!("cached {age} s ago"));
    }
    if !notes.is_empty() {
        let _ = write!(text, " ({})", notes.join(", "));
    }
    Some(text)
}

/// The robots lines of a header: verdict, matched rule, where robots.txt came from.
pub(crate) fn robots_lines(out: &mut String, robots: &RobotsEvidence) {
    let _ = writeln!(out, "Robots verdict: {} (recommendation: {})", robots.verdict, robots.recommendation);
    match &robots.rule {
        Some(rule) => {
            let _ = writeln!(out, "Matched rule: {}", rule_line(rule));
        }
        None => {
            let _ = writeln!(out, "Matched rule: none");
        }
    }
    if let Some(source) = robots_source(robots) {
        let _ = writeln!(out, "robots.txt: {source}");
    }
}

/// The warnings of a header, one per line, or `Warnings: none`.
pub(crate) fn warning_lines(out: &mut String, warnings: &[Warning]) {
    if warnings.is_empty() {
        let _ = writeln!(out, "Warnings: none");
        return;
    }
    let _ = writeln!(out, "Warnings:");
    for w in warnings {
        let _ = writeln!(out, "- {} ({}): {}", w.code, w.source, w.detail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_quoted_as_one_line_and_long_patterns_are_cut() {
        let rule = RuleEvidence { line: 2, directive: Directive::Disallow, pattern: "/private".into() };
        assert_eq!(rule_line(&rule), "robots.txt line 2: Disallow: /private");
        let long = RuleEvidence { line: 9, directive: Directive::Allow, pattern: format!("/{}", "x".repeat(400)) };
        let line = rule_line(&long);
        assert!(line.starts_with("robots.txt line 9: Allow: /xxx"), "{line}");
        assert!(line.ends_with("… (cut)"), "{line}");
        assert!(line.len() < 260, "{}", line.len());
    }
}
