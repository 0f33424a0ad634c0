//! The HTML report: one standalone page (inline CSS, no scripts, no
//! external assets) with the score, a summary of the checks, each check's
//! steps and findings, and the access matrix: known agents by category
//! against the site's main paths. The header says when the report was
//! made, by which webcanon version and for which agent; a print style sheet
//! lays it out for paper (no backgrounds but the status colours, checks
//! and table rows not split across pages, table headers repeated).

use std::fmt::Write;

use crate::report::{AccessMatrix, CheckResult, Report, Severity, Status};

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes text, then shows `backticked` spans as code, as the messages
/// write them.
fn text(message: &str) -> String {
    let escaped = escape(message);
    let mut out = String::with_capacity(escaped.len() + 16);
    let mut parts = escaped.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    let rest: Vec<&str> = parts.collect();
    // An odd number of backticks leaves the last one as written.
    for (i, part) in rest.iter().enumerate() {
        let closes = i % 2 == 0 && i + 1 < rest.len();
        let opens_unclosed = i % 2 == 0 && i + 1 == rest.len();
        if closes {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else if opens_unclosed {
            out.push('`');
            out.push_str(part);
        } else {
            out.push_str(part);
        }
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

const STYLE: &str = r#"
:root{--pass:#1a7f37;--warn:#9a6700;--fail:#cf222e;--skip:#6e7781;--bg:#f6f8fa;--fg:#1f2328;--line:#d0d7de}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:32px 24px}
header{display:flex;gap:28px;align-items:center;background:#fff;border:1px solid var(--line);border-radius:12px;padding:24px}
header h1{margin:0 0 4px;font-size:22px}header p{margin:0;color:#57606a}
.gauge{flex:none}.gauge text{font:700 30px system-ui,sans-serif}
section{background:#fff;border:1px solid var(--line);border-radius:12px;padding:20px 24px;margin-top:20px}
h2{font-size:18px;margin:0 0 12px}h3{font-size:16px;margin:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:13px;color:#57606a;font-weight:600}
.badge{display:inline-block;min-width:44px;text-align:center;border-radius:999px;padding:1px 8px;font-size:12px;font-weight:700;color:#fff}
.pass{background:var(--pass)}.warn{background:var(--warn)}.fail{background:var(--fail)}.skip{background:var(--skip)}.info{background:#0969da}
.check{border-top:1px solid var(--line);padding:14px 0}.check:first-of-type{border-top:0}
.check header{all:unset;display:flex;gap:10px;align-items:center}
.steps{margin:8px 0 0;color:#57606a;font-size:13px}
.finding{margin:8px 0 0 0;padding:8px 12px;border-left:4px solid var(--line);background:var(--bg);border-radius:4px}
.finding.fail{border-color:var(--fail);background:#ffebe9}.finding.warn{border-color:var(--warn);background:#fff8c5}.finding.info{border-color:#0969da;background:#ddf4ff}
.finding .fix{color:#57606a;margin-top:2px}.loc{font-family:ui-monospace,monospace;font-size:12px;color:#57606a}
.matrix td.yes{background:#dafbe1;color:var(--pass);text-align:center;font-weight:700}.matrix td.no{background:#ffebe9;color:var(--fail);text-align:center;font-weight:700}
.matrix th.path{font-family:ui-monospace,monospace;text-align:center}.cat td{background:var(--bg);font-weight:700;font-size:13px}
footer{color:#57606a;font-size:12px;margin-top:24px;text-align:center}
a{color:inherit;text-decoration:none;border-bottom:1px dotted #8c959f}a:hover{color:#0969da}
code{font-family:ui-monospace,monospace;font-size:.92em;background:rgba(175,184,193,.2);padding:.1em .3em;border-radius:4px}
.meta{font-size:13px;margin-top:4px}.why{font-weight:600}
@media print{
@page{margin:14mm}
body{background:#fff;font-size:11pt}main{max-width:none;padding:0}
header,section{border:0;border-radius:0;padding:0;margin-top:14pt}
.badge,.finding,.matrix td.yes,.matrix td.no,.gauge circle{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.check,.finding,tr{break-inside:avoid}h2,h3{break-after:avoid}thead{display:table-header-group}
a{border:0}
}
"#;

fn gauge(score: u8, status: Status) -> String {
    let radius = 42.0;
    let circumference = 2.0 * std::f64::consts::PI * radius;
    let filled = circumference * f64::from(score) / 100.0;
    // The ring shows the score in the colour of the status (the badge beside
    // it): colour follows the status, never the score.
    let color = format!("var(--{})", status.as_str());
    format!(
        r##"<svg class="gauge" width="110" height="110" viewBox="0 0 110 110" role="img" aria-label="score {score} of 100"><circle cx="55" cy="55" r="{radius}" fill="none" stroke="#eaeef2" stroke-width="12"/><circle cx="55" cy="55" r="{radius}" fill="none" stroke="{color}" stroke-width="12" stroke-linecap="round" stroke-dasharray="{filled:.1} {circumference:.1}" transform="rotate(-90 55 55)"/><text x="55" y="66" text-anchor="middle" id="score">{score}</text></svg>"##
    )
}

fn badge(status: Status) -> String {
    format!(r#"<span class="badge {0}">{0}</span>"#, status.as_str())
}

fn severity_class(severity: Severity) -> &'static str {
    severity.as_str()
}

fn check_html(out: &mut String, check: &CheckResult) {
    let _ = write!(
        out,
        r#"<div class="check" id="check-{id}"><header>{badge}<h3>{title}</h3><span class="loc">{id} v{version}</span><span>{score}</span></header>"#,
        id = escape(check.id),
        badge = badge(check.status),
        title = escape(check.title),
        version = escape(check.version),
        score = check.score.map_or(String::new(), |s| format!("{s}/100")),
    );
    if !check.steps.is_empty() {
        let steps: Vec<String> =
            check.steps.iter().map(|s| format!("{} ×{} {}", escape(s.id), s.weight, s.status.as_str())).collect();
        let _ = write!(out, r#"<div class="steps">steps: {}</div>"#, steps.join(" · "));
    }
    for finding in &check.findings {
        let _ =
            write!(out, r#"<div class="finding {}"><div>{}"#, severity_class(finding.severity), text(&finding.message));
        if let Some(location) = &finding.location {
            let _ = write!(out, r#" <span class="loc">{}</span>"#, escape(location));
        }
        out.push_str("</div>");
        if let Some(fix) = &finding.fix {
            let _ = write!(out, r#"<div class="fix">Fix: {}</div>"#, text(fix));
        }
        out.push_str("</div>");
    }
    out.push_str("</div>");
}

fn matrix_html(out: &mut String, matrix: &AccessMatrix) {
    out.push_str(r#"<section id="access"><h2>Who may read what</h2><p>Known agents against the site's main paths, as its robots.txt decides. Agents without a group of their own follow the <code>*</code> group. <em>Keys</em>: the operator publishes a Web Bot Auth key directory, so its signed requests can be verified (<code>webcanon verify-request</code>).</p><table class="matrix"><thead><tr><th>Agent</th><th>Operator</th><th>Keys</th>"#);
    for path in &matrix.paths {
        let _ = write!(out, r#"<th class="path">{}</th>"#, escape(path));
    }
    out.push_str("</tr></thead><tbody>");
    let mut category = "";
    for agent in &matrix.agents {
        if agent.category != category {
            category = &agent.category;
            let _ = write!(
                out,
                r#"<tr class="cat"><td colspan="{}">{}</td></tr>"#,
                matrix.paths.len() + 3,
                escape(category)
            );
        }
        let named = if agent.named { "" } else { r#" <span class="loc">(*)</span>"# };
        let _ = write!(out, "<tr><td>{}{named}</td><td>{}</td>", escape(&agent.token), escape(&agent.operator));
        match &agent.key_directory {
            // The URL as a tooltip, not a link: the report loads nothing and
            // links nowhere outside itself.
            Some(url) => {
                let _ = write!(out, r#"<td class="keys" title="{}">published</td>"#, escape(url));
            }
            None => out.push_str(r#"<td class="keys">—</td>"#),
        }
        for allowed in &agent.access {
            let (class, text) = if *allowed { ("yes", "✓") } else { ("no", "✗") };
            let _ = write!(out, r#"<td class="{class}">{text}</td>"#);
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></section>");
}

/// Renders the report as a standalone HTML page, dated now.
pub fn render(report: &Report) -> String {
    render_at(report, std::time::SystemTime::now())
}

/// Renders the report as a standalone HTML page made at `when`.
pub fn render_at(report: &Report, when: std::time::SystemTime) -> String {
    let mut out = String::with_capacity(32 * 1024);
    let title = format!("webcanon audit: {}", report.target);
    let when = chrono::DateTime::<chrono::Utc>::from(when);
    let _ = write!(
        out,
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="generator" content="webcanon {version}"><title>{title}</title><style>{STYLE}</style></head><body><main><header>{gauge}<div><h1>{title}</h1><p>Score <strong>{score}/100</strong> {badge} <span class="why">{why}</span> · {checks} · {reads} read</p><p class="meta" id="meta">Audited <time datetime="{iso}">{date}</time> by webcanon {version} for agent <code>{agent}</code></p></div></header>"#,
        title = escape(&title),
        gauge = gauge(report.score, report.status),
        score = report.score,
        badge = badge(report.status),
        why = escape(&report.status_reason()),
        checks = plural(report.checks.len(), "check", "checks"),
        agent = escape(&report.agent),
        reads = plural(report.resources_read, "resource", "resources"),
        iso = when.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        date = when.format("%Y-%m-%d %H:%M UTC"),
        version = env!("CARGO_PKG_VERSION"),
    );
    out.push_str(r#"<section id="summary"><h2>Summary</h2><table><thead><tr><th>Status</th><th>Score</th><th>Check</th><th>Issues</th></tr></thead><tbody>"#);
    for check in &report.checks {
        let _ = write!(
            out,
            r##"<tr><td>{}</td><td>{}</td><td><a href="#check-{id}">{}</a></td><td>{}</td></tr>"##,
            badge(check.status),
            check.score.map_or("–".to_string(), |s| s.to_string()),
            escape(check.title),
            check.findings.iter().filter(|f| f.severity != Severity::Info).count(),
            id = escape(check.id),
        );
    }
    out.push_str("</tbody></table></section>");
    out.push_str(r#"<section id="checks"><h2>Checks</h2>"#);
    for check in &report.checks {
        check_html(&mut out, check);
    }
    out.push_str("</section>");
    if let Some(matrix) = &report.access_matrix {
        matrix_html(&mut out, matrix);
    }
    out.push_str("<footer>Generated by webcanon. robots.txt is policy; llms.txt a hint; sitemaps discovery; page signals usage warnings.</footer></main></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_dates_and_signs_the_report() {
        let check = CheckResult::from_steps(
            "x",
            "1",
            "X",
            vec![
                crate::report::StepResult::new("a", "A", 0.1, Status::Fail),
                crate::report::StepResult::new("b", "B", 0.9, Status::Pass),
            ],
            Vec::new(),
        );
        let report = Report::new("https://example.com".into(), "origin", "GPTBot".into(), vec![check], None, 1);
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_790_000_000);
        let html = render_at(&report, when);
        assert!(html.contains(r#"<time datetime="2026-09-21T14:13:20Z">2026-09-21 14:13 UTC</time>"#), "{html}");
        assert!(html.contains(&format!("by webcanon {} for agent <code>GPTBot</code>", env!("CARGO_PKG_VERSION"))));
        assert!(html.contains("@media print"));
        // The ring has the status colour, whatever the score (90 here).
        assert_eq!(report.score, 90);
        assert!(html.contains(r#"stroke="var(--fail)""#));
        assert!(html.contains("1 check failed: x"));
    }

    #[test]
    fn escaping() {
        assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn backticks_become_code() {
        assert_eq!(text("use `<meta>` here"), "use <code>&lt;meta&gt;</code> here");
        assert_eq!(text("`a` and `b`"), "<code>a</code> and <code>b</code>");
        assert_eq!(text("one ` left"), "one ` left");
        assert_eq!(text("no code"), "no code");
    }
}
