//! The terminal report: a summary table, then each check's findings with
//! what to change. Colour only when asked for (the CLI asks when stdout is
//! a terminal and `NO_COLOR` is not set); readable without it.

use std::fmt::Write;

use crate::report::{Report, Severity, Status};

/// ANSI styles, or nothing.
struct Paint {
    on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        if self.on { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_string() }
    }

    /// `text` in the colour of `status` (colour follows the status, never
    /// the score).
    fn in_status_colour(&self, status: Status, text: &str) -> String {
        let code = match status {
            Status::Pass => "32",
            Status::Warn => "33",
            Status::Fail => "31",
            Status::Skip => "2",
        };
        self.wrap(code, text)
    }

    fn status(&self, status: Status) -> String {
        self.in_status_colour(status, &format!("{:<4}", status.as_str().to_uppercase()))
    }

    fn severity(&self, severity: Severity) -> String {
        let code = match severity {
            Severity::Fail => "31",
            Severity::Warn => "33",
            Severity::Info => "36",
        };
        self.wrap(code, severity.as_str())
    }

    fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }
}

/// A bar of ten cells for a 0–100 score.
fn bar(score: u8) -> String {
    let filled = usize::from(score).div_ceil(10).min(10);
    format!("{}{}", "█".repeat(filled), "░".repeat(10 - filled))
}

/// Renders the report as text.
pub fn render(report: &Report, color: bool) -> String {
    let p = Paint { on: color };
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", p.bold("webcanon audit"), report.target);
    let _ = writeln!(
        out,
        "score {} {} {} ({})   {} check{}, {} resource{} read, agent {}",
        p.bold(&p.in_status_colour(report.status, &format!("{:>3}/100", report.score))),
        p.in_status_colour(report.status, &bar(report.score)),
        p.status(report.status),
        report.status_reason(),
        report.checks.len(),
        if report.checks.len() == 1 { "" } else { "s" },
        report.resources_read,
        if report.resources_read == 1 { "" } else { "s" },
        report.agent
    );
    let _ = writeln!(out);
    let width = report.checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
    for check in &report.checks {
        let score = check.score.map_or("  -".to_string(), |s| format!("{s:>3}"));
        let _ = writeln!(
            out,
            "  {}  {score}  {:<width$}  {}",
            p.status(check.status),
            check.id,
            p.dim(check.title),
            width = width
        );
    }
    for check in report.checks.iter().filter(|c| !c.findings.is_empty()) {
        let _ = writeln!(out);
        let _ =
            writeln!(out, "{} {} {}", p.status(check.status), p.bold(check.id), p.dim(&format!("v{}", check.version)));
        for step in check.steps.iter().filter(|s| s.status != Status::Pass) {
            let _ = writeln!(out, "  step {} ({}): {}", step.id, step.weight, step.status.as_str());
        }
        for finding in &check.findings {
            let location =
                finding.location.as_deref().map(|l| format!(" {}", p.dim(&format!("[{l}]")))).unwrap_or_default();
            let _ = writeln!(out, "  {}: {}{location}", p.severity(finding.severity), finding.message);
            if let Some(fix) = &finding.fix {
                let _ = writeln!(out, "    {} {fix}", p.dim("fix:"));
            }
        }
    }
    if let Some(matrix) = &report.access_matrix {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", p.bold("who may read what (robots.txt)"));
        let token_width = matrix.agents.iter().map(|a| a.token.len()).max().unwrap_or(0).max(5);
        // Each column as wide as its path or the `yes`/`no` mark, whichever
        // is wider, so a short path (`/`) keeps its marks under it.
        let widths: Vec<usize> = matrix.paths.iter().map(|path| path.chars().count().max(3)).collect();
        let header: Vec<String> = matrix.paths.iter().zip(&widths).map(|(path, w)| format!("{path:<w$}")).collect();
        // `keys`: whether the operator publishes a Web Bot Auth key
        // directory, so that its signed requests can be verified.
        let _ = writeln!(
            out,
            "  {:<token_width$}  {:<14} {:<4}  {}",
            "agent",
            "category",
            "keys",
            header.join("  ").trim_end()
        );
        for agent in &matrix.agents {
            let cells: Vec<String> = widths
                .iter()
                .zip(&agent.access)
                .map(|(width, allowed)| {
                    let mark = if *allowed { p.wrap("32", "yes") } else { p.wrap("31", "no") };
                    let shown = if *allowed { 3 } else { 2 };
                    format!("{mark}{}", " ".repeat(width - shown))
                })
                .collect();
            let keys = if agent.key_directory.is_some() { "yes" } else { "-" };
            let line =
                format!("  {:<token_width$}  {:<14} {keys:<4}  {}", agent.token, agent.category, cells.join("  "));
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{AccessMatrix, AgentAccess};

    /// Where each word of a line starts.
    fn starts(line: &str) -> Vec<usize> {
        let bytes = line.as_bytes();
        (0..bytes.len()).filter(|&i| bytes[i] != b' ' && (i == 0 || bytes[i - 1] == b' ')).collect()
    }

    /// Issue 16: the `/` column of the access matrix was narrower than its
    /// `yes` marks, so every column after it drifted.
    #[test]
    fn matrix_marks_line_up_under_their_paths() {
        let row = |token: &str, access: Vec<bool>| AgentAccess {
            token: token.into(),
            operator: "Op".into(),
            category: "ai-training".into(),
            access,
            named: true,
            key_directory: (token == "GPTBot").then(|| "https://chatgpt.com/.well-known/x".into()),
        };
        let matrix = AccessMatrix {
            paths: vec!["/".into(), "/docs/".into(), "/x".into(), "/pricing/".into()],
            agents: vec![row("GPTBot", vec![true, false, true, false]), row("CCBot", vec![false, true, false, true])],
        };
        let report = Report::new("t".into(), "folder", "bot".into(), Vec::new(), Some(matrix), 0);
        let text = render(&report, false);
        let table: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("who may read")).skip(1).collect();
        assert_eq!(table.len(), 3, "{text}");
        for line in &table[1..] {
            assert_eq!(starts(line), starts(table[0]), "\n{}\n{line}", table[0]);
        }
        // The `keys` column: GPTBot's operator publishes a key directory.
        let keys = |line: &str| line.split_whitespace().nth(2).unwrap_or("").to_string();
        assert_eq!([keys(table[0]), keys(table[1]), keys(table[2])], ["keys", "yes", "-"]);
    }
}
