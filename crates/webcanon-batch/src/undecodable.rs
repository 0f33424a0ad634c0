//! Input bytes that are not UTF-8: one row each, never the end of a run.
//!
//! A text or CSV input is read through [`Utf8Repair`], which passes valid
//! UTF-8 through and writes [`UNDECODABLE`] for each byte sequence that is
//! not UTF-8, noting its line. The row that holds one is an `invalid_url`
//! row ([`crate::origin::parse_url`] refuses it), and the run warns once,
//! naming the first lines. U+FDD0 is a Unicode noncharacter, reserved for
//! exactly such internal use: no URL holds one, so a row that does came
//! from bytes that were not UTF-8.

use std::io::{self, Read};
use std::sync::{Arc, Mutex};

/// What stands for each byte sequence of the input that is not UTF-8.
pub const UNDECODABLE: char = '\u{FDD0}';

/// How many line numbers a warning names; the rest are counted.
const LINES_NAMED: usize = 5;

/// The lines of an input that held bytes that are not UTF-8.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UndecodableLines {
    /// How many lines held any.
    pub count: u64,
    /// The first few of them, 1-based, in order.
    pub first: Vec<u64>,
}

impl UndecodableLines {
    /// Notes that line `line` held bytes that are not UTF-8.
    fn note(&mut self, line: u64) {
        if self.first.last() == Some(&line) {
            return;
        }
        self.count += 1;
        if self.first.len() < LINES_NAMED {
            self.first.push(line);
        }
    }

    /// The run's warning about them, naming `path`; `None` when there are none.
    pub fn warning(&self, path: &std::path::Path) -> Option<String> {
        if self.count == 0 {
            return None;
        }
        let lines: Vec<String> = self.first.iter().map(u64::to_string).collect();
        let more = self.count - self.first.len() as u64;
        let (is, s, rows) = match self.count {
            1 => (" is", "", "it is an `invalid_url` row"),
            _ => ("s are", "s", "they are `invalid_url` rows"),
        };
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        Some(format!(
            "{}: {} line{is} not valid UTF-8 (line{s} {}{more}); {rows}",
            path.display(),
            self.count,
            lines.join(", "),
        ))
    }
}

/// The lines noted by a [`Utf8Repair`], shared with whoever reads the rows.
pub type SharedLines = Arc<Mutex<UndecodableLines>>;

/// A reader that turns its input into valid UTF-8: each sequence that is
/// not UTF-8 becomes [`UNDECODABLE`], its line noted in the shared record.
#[derive(Debug)]
pub struct Utf8Repair<R> {
    inner: R,
    /// Bytes read from `inner` and not yet repaired (a sequence cut by the
    /// end of a read waits here for the rest of it).
    pending: Vec<u8>,
    /// Repaired bytes not yet handed out, from `handed`.
    ready: Vec<u8>,
    handed: usize,
    /// The line of the next byte of `pending`, 1-based.
    line: u64,
    eof: bool,
    lines: SharedLines,
}

impl<R: Read> Utf8Repair<R> {
    /// Repairs `inner`, noting lines in `lines`.
    pub fn new(inner: R, lines: SharedLines) -> Utf8Repair<R> {
        Utf8Repair { inner, pending: Vec::new(), ready: Vec::new(), handed: 0, line: 1, eof: false, lines }
    }

    /// Reads more of `inner` and repairs what can be repaired.
    fn refill(&mut self) -> io::Result<()> {
        self.ready.clear();
        self.handed = 0;
        while self.ready.is_empty() && !(self.eof && self.pending.is_empty()) {
            let mut chunk = [0u8; 64 * 1024];
            let n = self.inner.read(&mut chunk)?;
            self.eof = n == 0;
            self.pending.extend_from_slice(&chunk[..n]);
            self.repair();
        }
        Ok(())
    }

    /// Moves the repaired part of `pending` to `ready`.
    fn repair(&mut self) {
        let mut pos = 0;
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        while pos < self.pending.len() {
            let (valid, bad) = match std::str::from_utf8(&self.pending[pos..]) {
                Ok(_) => (self.pending.len() - pos, None),
                Err(e) => (e.valid_up_to(), Some(e.error_len())),
            };
            let text = &self.pending[pos..pos + valid];
            self.line += text.iter().filter(|&&b| b == b'\n').count() as u64;
            self.ready.extend_from_slice(text);
            pos += valid;
            match bad {
                None => {}
                // Cut by the end of this read: the rest may follow.
                Some(None) if !self.eof => break,
                Some(len) => {
                    lines.note(self.line);
                    let mut utf8 = [0; 4];
                    self.ready.extend_from_slice(UNDECODABLE.encode_utf8(&mut utf8).as_bytes());
                    pos += len.unwrap_or(self.pending.len() - pos);
                }
            }
        }
        self.pending.drain(..pos);
    }
}

impl<R: Read> Read for Utf8Repair<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.handed == self.ready.len() {
            self.refill()?;
        }
        let n = buf.len().min(self.ready.len() - self.handed);
        buf[..n].copy_from_slice(&self.ready[self.handed..self.handed + n]);
        self.handed += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `input` through the repair `step` bytes at a time.
    fn repaired(input: &[u8], step: usize) -> (String, UndecodableLines) {
        struct Trickle<'a>(&'a [u8], usize);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(self.0.len()).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let lines = SharedLines::default();
        let mut text = String::new();
        Utf8Repair::new(Trickle(input, step), lines.clone()).read_to_string(&mut text).unwrap();
        let lines = lines.lock().unwrap().clone();
        (text, lines)
    }

    #[test]
    fn bad_bytes_become_one_mark_each_and_their_lines_are_noted() {
        let cases: &[(&[u8], &str, &[u64])] = &[
            (b"a\nb\n", "a\nb\n", &[]),
            ("caf\u{e9}\n\u{30c4}".as_bytes(), "caf\u{e9}\n\u{30c4}", &[]),
            (b"a\ncaf\xe9\nb\xff\xfe\n", "a\ncaf\u{FDD0}\nb\u{FDD0}\u{FDD0}\n", &[2, 3]),
            (b"x\xe3\x83", "x\u{FDD0}", &[1]),
            (b"\xe3\x83\n\xe3\x83\x84", "\u{FDD0}\n\u{30c4}", &[1]),
        ];
        for (input, expected, lines) in cases {
            for step in [1, 2, 3, 7, 1 << 20] {
                let (text, noted) = repaired(input, step);
                assert_eq!(&text, expected, "{input:?} by {step}");
                assert_eq!(noted.first, *lines, "{input:?} by {step}");
                assert_eq!(noted.count, lines.len() as u64);
            }
        }
    }

    #[test]
    fn the_warning_names_the_first_lines_and_counts_the_rest() {
        let mut lines = UndecodableLines::default();
        let path = std::path::Path::new("urls.txt");
        assert_eq!(lines.warning(path), None);
        lines.note(4);
        assert_eq!(
            lines.warning(path).unwrap(),
            "urls.txt: 1 line is not valid UTF-8 (line 4); it is an `invalid_url` row"
        );
        for line in 5..12 {
            lines.note(line);
        }
        assert_eq!(
            lines.warning(path).unwrap(),
            "urls.txt: 8 lines are not valid UTF-8 (lines 4, 5, 6, 7, 8 and 3 more); they are `invalid_url` rows"
        );
    }
}
