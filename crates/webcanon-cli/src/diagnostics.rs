//! Compiler-style diagnostics shared by the validators (`robots lint`,
//! `llms check`): the finding with its code, the file and line it points at,
//! the source line itself, and the code's one-sentence summary. Colour only
//! on a terminal, and never with `NO_COLOR`.

use std::io::{self, Write};

use serde::Serialize;
use webcanon_core::robots::Severity;

/// One finding of any validator, as the command line shows it and as its
/// JSON output carries it (`code`, `name`, `severity`, `line`, `message`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Finding<'a> {
    /// The stable code (`R001`, `L001`, …).
    pub code: &'static str,
    /// The code's kebab-case name.
    pub name: &'static str,
    /// The code's one-sentence summary (text output only).
    #[serde(skip)]
    pub summary: &'static str,
    /// How serious it is.
    pub severity: Severity,
    /// The 1-based line; `None` for the whole file.
    pub line: Option<u32>,
    /// What is wrong.
    pub message: &'a str,
}

impl<'a> From<&'a webcanon_core::robots::Diagnostic> for Finding<'a> {
    fn from(d: &'a webcanon_core::robots::Diagnostic) -> Finding<'a> {
        Finding {
            code: d.code.code(),
            name: d.code.name(),
            summary: d.code.summary(),
            severity: d.severity,
            line: d.line,
            message: &d.message,
        }
    }
}

impl<'a> From<&'a webcanon_core::llms::Diagnostic> for Finding<'a> {
    fn from(d: &'a webcanon_core::llms::Diagnostic) -> Finding<'a> {
        Finding {
            code: d.code.code(),
            name: d.code.name(),
            summary: d.code.summary(),
            severity: d.severity,
            line: d.line,
            message: &d.message,
        }
    }
}

/// How many findings of each severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Notes (`info` findings).
    pub infos: usize,
}

impl Counts {
    /// Counts the severities.
    pub fn of(severities: impl IntoIterator<Item = Severity>) -> Counts {
        let mut counts = Counts::default();
        for severity in severities {
            match severity {
                Severity::Error => counts.errors += 1,
                Severity::Warning => counts.warnings += 1,
                Severity::Info => counts.infos += 1,
            }
        }
        counts
    }
}

/// Whether stdout gets colour (`--color`, the terminal, `NO_COLOR`).
pub fn use_color() -> bool {
    crate::output::color_stdout()
}

/// The escape sequences that paint a label of this severity, or two empty
/// strings without colour.
pub fn paint(severity: Severity, color: bool) -> (&'static str, &'static str) {
    match (color, severity) {
        (false, _) => ("", ""),
        (true, Severity::Error) => ("\x1b[1;31m", "\x1b[0m"),
        (true, Severity::Warning) => ("\x1b[1;33m", "\x1b[0m"),
        (true, Severity::Info) => ("\x1b[1;36m", "\x1b[0m"),
    }
}

/// The body split into lines the way the robots.txt parser counts them
/// (CR, LF and CRLF each end a line).
pub fn source_lines(body: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n' || b == b'\r').unwrap_or(rest.len());
        lines.push(&rest[..end]);
        rest = match rest.get(end..) {
            Some([b'\r', b'\n', tail @ ..]) => tail,
            Some([_, tail @ ..]) => tail,
            _ => &[],
        };
    }
    lines
}

/// The body split into lines the way the llms.txt parser counts them (LF
/// and CRLF end a line; a lone CR does not), a leading BOM dropped.
pub fn markdown_lines(body: &[u8]) -> Vec<&[u8]> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if body.is_empty() {
        return Vec::new();
    }
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    body.split(|&b| b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line)).collect()
}

/// Writes one finding: `severity[CODE]: message`, `--> file:line`, the
/// source line (cut at 200 bytes), and `= name: summary`.
pub fn write_diagnostic(
    out: &mut impl Write,
    d: &Finding<'_>,
    name: &str,
    lines: &[&[u8]],
    color: bool,
) -> io::Result<()> {
    let (paint, reset) = paint(d.severity, color);
    let label = if d.severity == Severity::Info { "note" } else { d.severity.as_str() };
    writeln!(out, "{paint}{label}[{}]{reset}: {}", d.code, d.message)?;
    match d.line {
        Some(line) => {
            writeln!(out, "  --> {name}:{line}")?;
            if let Some(text) = (line as usize).checked_sub(1).and_then(|i| lines.get(i)) {
                let text = String::from_utf8_lossy(&text[..text.len().min(200)]);
                let width = line.to_string().len();
                writeln!(out, "{:width$} |", "")?;
                writeln!(out, "{line} | {text}")?;
                writeln!(out, "{:width$} |", "")?;
            }
        }
        None => writeln!(out, "  --> {name}")?,
    }
    writeln!(out, "  = {}: {}", d.name, d.summary)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::{markdown_lines, source_lines};

    #[test]
    fn line_splitting_matches_each_parser() {
        assert_eq!(source_lines(b"a\rb\r\nc\nd"), vec![&b"a"[..], b"b", b"c", b"d"]);
        assert_eq!(markdown_lines(b"\xEF\xBB\xBFa\rb\r\nc\n"), vec![&b"a\rb"[..], b"c"]);
        assert_eq!(markdown_lines(b"a\n\nb"), vec![&b"a"[..], b"", b"b"]);
        assert!(markdown_lines(b"").is_empty());
    }
}
