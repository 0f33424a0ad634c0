//! The lexer of a page's content streams for its [budget](super): what
//! bounds the characters a stream can make and the forms it can draw,
//! counted in one linear pass that keeps nothing of the bytes.

use super::caps::{CHARS_PER_CODE, MAX_NAME, MAX_PAGE_CHARS, MAX_PAGE_CONTENT};
use super::names::Names;
use crate::pdf::outcome::PageCap;

/// Where the string lexer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between strings.
    Normal,
    /// After a `<`: a dictionary if another follows, else a hex string.
    AfterLess,
    /// In a literal string, `depth` parentheses deep, after a backslash or
    /// not.
    Literal { depth: u64, escaped: bool },
    /// In a hex string.
    Hex,
}

/// Where the operator scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// Between tokens.
    Space,
    /// In a name (after its `/`).
    Name,
    /// In a keyword (an operator, a number, `true`).
    Keyword,
}

/// What the last token was, for a `Do` that follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    /// Not a name of a target.
    Nothing,
    /// The name of target `0`.
    Call(usize),
    /// A name too long to keep.
    Long,
}

/// A content stream's lexer: it counts what bounds the characters a stream
/// can make and the forms it can draw, keeping nothing of the bytes, in
/// time linear in them. Fed in pieces; its state carries over, as the
/// reader joins a page's streams.
///
/// Two machines read every byte. The string lexer counts the bytes of
/// literal strings (all of them, escapes and nested parentheses included),
/// of hex strings (half the hex digits; every byte when one is neither a
/// hex digit nor whitespace, as a reader that fails on it reads on from
/// inside), and the numbers within arrays; `<<` opens a dictionary, not a
/// string. The operator scanner reads tokens whether in strings or not (the
/// reader can start again from inside one) and counts each `BDC` and each
/// `Do` whose operand is a name of a target, reading comments both as
/// comments and as content.
#[derive(Debug, Clone)]
pub(super) struct Lexer<'n> {
    /// The names a `Do` can draw.
    names: &'n Names,
    /// The string lexer's state.
    state: State,
    /// How deep in arrays (`[`), as the string lexer sees it.
    arrays: u64,
    /// Whether the string lexer is in a token (a number or a keyword).
    in_token: bool,
    /// Whether a `%` was read since the last end of line (only `]` heeds
    /// it: read as a comment, a `]` in it closes nothing).
    in_comment: bool,
    /// The current hex string's hex digits.
    hex_digits: u64,
    /// Its whitespace.
    hex_white: u64,
    /// Its other bytes.
    hex_other: u64,
    /// Bytes of strings (closed hex strings counted).
    pub(super) string_bytes: u64,
    /// Numbers within arrays.
    pub(super) numbers: u64,
    /// The operator scanner's state.
    scan: Scan,
    /// The token being read (up to [`MAX_NAME`] bytes).
    token: Vec<u8>,
    /// Whether it was longer.
    token_long: bool,
    /// Whether it began in a comment.
    token_in_comment: bool,
    /// Whether the operator scanner is in a comment.
    scan_comment: bool,
    /// The last token, reading comments as content.
    pending: Pending,
    /// The last token, reading comments as comments.
    held: Pending,
    /// `BDC` operators.
    pub(super) bdc: u64,
    /// `Do`s of each target.
    calls: Vec<u64>,
    /// `Do`s of a name too long to keep.
    long_calls: u64,
    /// Bytes fed.
    pub(super) size: u64,
}

/// PDF whitespace.
const fn is_white(b: u8) -> bool {
    matches!(b, b'\0' | b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// PDF delimiters.
const fn is_delimiter(b: u8) -> bool {
    matches!(b, b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%')
}

/// Whether a byte is neither whitespace nor a delimiter (part of a token).
fn is_regular(b: u8) -> bool {
    REGULAR[b as usize]
}

/// [`is_regular`] for every byte.
const REGULAR: [bool; 256] = {
    let mut table = [true; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = !is_white(b as u8) && !is_delimiter(b as u8);
        b += 1;
    }
    table
};

/// Where the token starting at `start` ends: the first byte that is not
/// regular, or the end.
fn token_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..].iter().position(|&b| !is_regular(b)).map_or(bytes.len(), |k| start + k)
}

impl<'n> Lexer<'n> {
    /// A lexer for content that draws the forms of `names`.
    pub(super) fn new(names: &'n Names) -> Lexer<'n> {
        Lexer {
            names,
            state: State::Normal,
            arrays: 0,
            in_token: false,
            in_comment: false,
            hex_digits: 0,
            hex_white: 0,
            hex_other: 0,
            string_bytes: 0,
            numbers: 0,
            scan: Scan::Space,
            token: Vec::new(),
            token_long: false,
            token_in_comment: false,
            scan_comment: false,
            pending: Pending::Nothing,
            held: Pending::Nothing,
            bdc: 0,
            calls: vec![0; names.targets.len()],
            long_calls: 0,
            size: 0,
        }
    }

    /// Reads `bytes`.
    pub(super) fn feed(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        self.strings(bytes);
        self.operators(bytes);
    }

    /// The end of the content: an open token or hex string counts.
    pub(super) fn finish(&mut self) {
        if matches!(self.state, State::Hex | State::AfterLess) {
            self.string_bytes += self.hex_digits + self.hex_white + self.hex_other;
            self.hex_digits = 0;
            self.hex_white = 0;
            self.hex_other = 0;
            self.state = State::Normal;
        }
        if self.scan != Scan::Space {
            self.end_token();
        }
    }

    /// The bytes of the open hex string that count.
    fn open_hex(&self) -> u64 {
        if self.hex_other == 0 {
            self.hex_digits.div_ceil(2)
        } else {
            self.hex_digits + self.hex_white + self.hex_other
        }
    }

    /// An upper bound on the characters the content read so far can make.
    pub(super) fn chars(&self) -> u64 {
        (self.string_bytes + self.open_hex())
            .saturating_mul(CHARS_PER_CODE)
            .saturating_add(self.numbers)
            .saturating_add(self.bdc.saturating_mul(self.names.actual_text))
    }

    /// Which cap the content read so far is over, if any.
    pub(super) fn over(&self) -> Option<PageCap> {
        if self.chars() > MAX_PAGE_CHARS {
            Some(PageCap::Characters)
        } else if self.size > MAX_PAGE_CONTENT {
            Some(PageCap::Content)
        } else {
            None
        }
    }

    /// How often each target is drawn (by its index), those drawn at all;
    /// a long name counts for each target with a long name.
    pub(super) fn calls(&self) -> Vec<(usize, u64)> {
        let mut calls = self.calls.clone();
        for &at in &self.names.long {
            calls[at] = calls[at].saturating_add(self.long_calls);
        }
        calls.into_iter().enumerate().filter(|&(_, n)| n > 0).collect()
    }

    /// The string lexer over `bytes`: the common stretches (inside a
    /// literal string, between strings outside arrays) are skipped to the
    /// next byte that matters.
    fn strings(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Literal { escaped: false, .. } => {
                    let Some(k) = memchr::memchr3(b'\\', b'(', b')', &bytes[i..]) else {
                        self.string_bytes += (bytes.len() - i) as u64;
                        return;
                    };
                    self.string_bytes += k as u64;
                    i += k;
                }
                State::Normal if self.arrays == 0 => {
                    let Some(k) = memchr::memchr3(b'(', b'<', b'[', &bytes[i..]) else { return };
                    // Outside arrays only `]` heeds comments.
                    self.in_comment = false;
                    i += k;
                }
                State::Hex => {
                    let end = memchr::memchr(b'>', &bytes[i..]).map_or(bytes.len(), |k| i + k);
                    for &b in &bytes[i..end] {
                        if b.is_ascii_hexdigit() {
                            self.hex_digits += 1;
                        } else if is_white(b) {
                            self.hex_white += 1;
                        } else {
                            self.hex_other += 1;
                        }
                    }
                    i = end;
                    if i == bytes.len() {
                        return;
                    }
                }
                _ => {}
            }
            self.string_byte(bytes[i]);
            i += 1;
        }
    }

    fn string_byte(&mut self, b: u8) {
        match self.state {
            State::Literal { depth, escaped: true } => {
                self.string_bytes += 1;
                self.state = State::Literal { depth, escaped: false };
            }
            State::Literal { depth, escaped: false } => match b {
                b'\\' => {
                    self.string_bytes += 1;
                    self.state = State::Literal { depth, escaped: true };
                }
                b'(' => {
                    self.string_bytes += 1;
                    self.state = State::Literal { depth: depth + 1, escaped: false };
                }
                b')' if depth == 1 => self.state = State::Normal,
                b')' => {
                    self.string_bytes += 1;
                    self.state = State::Literal { depth: depth - 1, escaped: false };
                }
                _ => self.string_bytes += 1,
            },
            State::AfterLess if b == b'<' => self.state = State::Normal,
            State::AfterLess | State::Hex => {
                self.state = State::Hex;
                if b == b'>' {
                    self.string_bytes += self.open_hex();
                    self.hex_digits = 0;
                    self.hex_white = 0;
                    self.hex_other = 0;
                    self.state = State::Normal;
                } else if b.is_ascii_hexdigit() {
                    self.hex_digits += 1;
                } else if is_white(b) {
                    self.hex_white += 1;
                } else {
                    self.hex_other += 1;
                }
            }
            State::Normal => self.normal_byte(b),
        }
    }

    fn normal_byte(&mut self, b: u8) {
        match b {
            b'(' => {
                self.in_token = false;
                self.state = State::Literal { depth: 1, escaped: false };
            }
            b'<' => {
                self.in_token = false;
                self.state = State::AfterLess;
            }
            b'[' => {
                self.in_token = false;
                self.arrays += 1;
            }
            b']' => {
                self.in_token = false;
                if !self.in_comment {
                    self.arrays = self.arrays.saturating_sub(1);
                }
            }
            b'%' => {
                self.in_token = false;
                self.in_comment = true;
            }
            b'\n' | b'\r' => {
                self.in_token = false;
                self.in_comment = false;
            }
            // A name is one token, digits in it or not.
            b'/' => self.in_token = true,
            _ if is_white(b) || is_delimiter(b) => self.in_token = false,
            _ => {
                if !self.in_token && self.arrays > 0 && matches!(b, b'0'..=b'9' | b'+' | b'-' | b'.') {
                    self.numbers += 1;
                }
                self.in_token = true;
            }
        }
    }

    /// The operator scanner over `bytes`, a token at a time.
    fn operators(&mut self, bytes: &[u8]) {
        let mut i = 0;
        if self.scan != Scan::Space {
            let end = token_end(bytes, 0);
            self.keep(&bytes[..end]);
            if end == bytes.len() {
                return;
            }
            let token = std::mem::take(&mut self.token);
            self.token_done(self.scan, &token, self.token_long);
            self.token = token;
            i = end;
        }
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'/' || is_regular(b) {
                let (kind, start) = if b == b'/' { (Scan::Name, i + 1) } else { (Scan::Keyword, i) };
                let end = token_end(bytes, start);
                self.token_in_comment = self.scan_comment;
                if end == bytes.len() {
                    // It may go on in the next piece.
                    self.scan = kind;
                    self.token.clear();
                    self.token_long = false;
                    self.keep(&bytes[start..end]);
                    return;
                }
                self.token_done(kind, &bytes[start..end], end - start > MAX_NAME);
                i = end;
                continue;
            }
            if self.scan_comment && (b == b'\n' || b == b'\r') {
                self.scan_comment = false;
            } else if !is_white(b) {
                // A delimiter: an operand that is not a name, or a parse
                // error, as content; a comment begins, as a comment.
                self.pending = Pending::Nothing;
                if b == b'%' {
                    self.scan_comment = true;
                } else if !self.scan_comment {
                    self.held = Pending::Nothing;
                }
            }
            i += 1;
        }
    }

    /// Keeps the start of a token that goes on past this piece.
    fn keep(&mut self, part: &[u8]) {
        let room = MAX_NAME - self.token.len().min(MAX_NAME);
        self.token.extend_from_slice(&part[..part.len().min(room)]);
        if part.len() > room {
            self.token_long = true;
        }
    }

    /// Ends a token carried over from earlier pieces.
    fn end_token(&mut self) {
        if self.scan == Scan::Space {
            return;
        }
        let token = std::mem::take(&mut self.token);
        self.token_done(self.scan, &token, self.token_long);
        self.token = token;
    }

    /// A whole token read: a name sets what a `Do` would draw; `Do` draws
    /// it; `BDC` is counted.
    fn token_done(&mut self, kind: Scan, token: &[u8], long: bool) {
        let in_comment = self.token_in_comment;
        match kind {
            Scan::Space => {}
            Scan::Name => {
                let target = if long {
                    Pending::Long
                } else if self.names.index.is_empty() {
                    Pending::Nothing
                } else {
                    self.names.find(token).map_or(Pending::Nothing, Pending::Call)
                };
                self.pending = target;
                if !in_comment {
                    self.held = target;
                }
            }
            Scan::Keyword => {
                match token {
                    b"Do" => {
                        self.call(self.pending);
                        if !in_comment && self.held != self.pending {
                            self.call(self.held);
                        }
                    }
                    b"BDC" => self.bdc += 1,
                    _ => {}
                }
                self.pending = Pending::Nothing;
                if !in_comment {
                    self.held = Pending::Nothing;
                }
            }
        }
        self.scan = Scan::Space;
    }

    fn call(&mut self, target: Pending) {
        match target {
            Pending::Call(at) => self.calls[at] = self.calls[at].saturating_add(1),
            Pending::Long => self.long_calls = self.long_calls.saturating_add(1),
            Pending::Nothing => {}
        }
    }
}
