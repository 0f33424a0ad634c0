//! The lenient line parser (RFC 9309 §2.2, with Google's tolerance).
//!
//! The parser is one pass over the bytes: lines are found with `memchr`,
//! comments cut, the key classified by its first letters, and the values
//! copied into two arenas (raw text and normalised patterns) so that a file
//! of thirty thousand rules costs a handful of allocations.

use memchr::{memchr, memchr2_iter, memrchr2};

use super::diagnostic::{Diagnostic, LintCode};
use super::limits::{MAX_LINE_BYTES, MAX_PARSE_BYTES};
use super::model::{AgentEntry, Directive, GroupEntry, NotRobots, RecordEntry, RecordKind, Robots, RuleEntry, Span};
use super::normalize::{WILDCARD, none_of, normalize_pattern_into};
use super::utf16;

/// What a key is, once the lenient spellings are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    UserAgent,
    Rule(Directive),
    Record(RecordKind),
}

/// How a key was written, for lint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spelling {
    Exact,
    /// A known key followed by more letters (`Disallowed`, `User-agents`).
    Prefixed,
    /// One of the reference parser's accepted misspellings (`Dissallow`).
    Misspelled,
}

/// Whether `s` starts with `prefix` (written in lower case), ignoring
/// ASCII case: only `s` needs folding.
fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    debug_assert!(!prefix.iter().any(u8::is_ascii_uppercase));
    s.len() >= prefix.len() && s.iter().zip(prefix).all(|(a, b)| a.to_ascii_lowercase() == *b)
}

/// Resolves a key the way Google's reference parser does: a key that starts
/// with a known one counts as that key, plus a short list of misspellings.
fn classify_key(key: &[u8]) -> (Key, Spelling) {
    let spelled = |exact: &[u8]| if key.len() == exact.len() { Spelling::Exact } else { Spelling::Prefixed };
    // The first letter picks the spellings to compare against.
    match key.first().map(u8::to_ascii_lowercase) {
        Some(b'u') => {
            if starts_with_ignore_case(key, b"user-agent") {
                return (Key::UserAgent, spelled(b"user-agent"));
            }
            if starts_with_ignore_case(key, b"useragent") || starts_with_ignore_case(key, b"user agent") {
                return (Key::UserAgent, Spelling::Misspelled);
            }
        }
        Some(b'a') if starts_with_ignore_case(key, b"allow") => {
            return (Key::Rule(Directive::Allow), spelled(b"allow"));
        }
        Some(b'd') => {
            if starts_with_ignore_case(key, b"disallow") {
                return (Key::Rule(Directive::Disallow), spelled(b"disallow"));
            }
            const DISALLOW_TYPOS: [&[u8]; 5] = [b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw"];
            if DISALLOW_TYPOS.iter().any(|t| starts_with_ignore_case(key, t)) {
                return (Key::Rule(Directive::Disallow), Spelling::Misspelled);
            }
        }
        Some(b's') => {
            if starts_with_ignore_case(key, b"sitemap") {
                return (Key::Record(RecordKind::Sitemap), spelled(b"sitemap"));
            }
            if starts_with_ignore_case(key, b"site-map") {
                return (Key::Record(RecordKind::Sitemap), Spelling::Misspelled);
            }
        }
        _ => {}
    }
    classify_extension(key)
}

/// The nonstandard records, matched whole (no lenient spellings).
fn classify_extension(key: &[u8]) -> (Key, Spelling) {
    const EXTENSIONS: [(&[u8], RecordKind); 10] = [
        (b"crawl-delay", RecordKind::CrawlDelay),
        (b"request-rate", RecordKind::RequestRate),
        (b"visit-time", RecordKind::VisitTime),
        (b"host", RecordKind::Host),
        (b"clean-param", RecordKind::CleanParam),
        (b"content-signal", RecordKind::ContentSignal),
        (b"content-usage", RecordKind::ContentUsage),
        (b"indexnow-key", RecordKind::IndexNowKey),
        (b"license", RecordKind::License),
        (b"noindex", RecordKind::Noindex),
    ];
    for (name, kind) in EXTENSIONS {
        if key.eq_ignore_ascii_case(name) {
            return (Key::Record(kind), Spelling::Exact);
        }
    }
    (Key::Record(RecordKind::Unknown), Spelling::Exact)
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c')
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if is_space(*first) { s = rest } else { break }
    }
    while let [rest @ .., last] = s {
        if is_space(*last) { s = rest } else { break }
    }
    s
}

/// The product token at the start of a `User-agent` value: its leading run
/// of `[A-Za-z_-]` (RFC 9309 §2.2.1). `*` alone, or followed by a space, is
/// the global group.
fn product_token(value: &[u8]) -> (usize, bool) {
    if let [b'*', rest @ ..] = value {
        return (0, rest.first().is_none_or(|&b| is_space(b)));
    }
    let len = value.iter().take_while(|&&b| b.is_ascii_alphabetic() || b == b'_' || b == b'-').count();
    (len, false)
}

/// Tells whether a body is an HTML page or binary data rather than a robots.txt.
fn sniff_not_robots(body: &[u8]) -> Option<NotRobots> {
    let head = &body[..body.len().min(4096)];
    if head.starts_with(&[0x1f, 0x8b]) || memchr(0, head).is_some() {
        return Some(NotRobots::Binary);
    }
    let controls = head.iter().filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)).count();
    if controls * 10 > head.len() {
        return Some(NotRobots::Binary);
    }
    // An HTML page or fragment (an error page: `<center><h1>403</h1>`).
    crate::sniff::html_start(head).map(|_| NotRobots::Html)
}

struct Parser {
    robots: Robots,
    /// Where the body starts in memory, when the text arena is a copy of the
    /// whole body (a valid UTF-8 body: nearly all of them). Spans are then
    /// offsets into it and nothing is copied per value.
    body_start: Option<usize>,
    /// Whether a rule was seen since the last `User-agent` line: the next
    /// `User-agent` then starts a new group.
    in_rules: bool,
    /// Whether the body holds a control byte at all (most do not, and then
    /// no line is searched for one).
    has_controls: bool,
    /// Lines cut at a control byte, and Allow rules dropped for holding one.
    garbled_lines: u32,
}

/// A control byte that has no place in a robots.txt line: C0 controls other
/// than tab, vertical tab and form feed (read as white space), and DEL.
#[inline(always)]
fn is_garbage_control(b: u8) -> bool {
    // Bitwise, without branches, so that a scan of many bytes vectorises.
    ((b < 0x20) & !matches!(b, b'\t' | b'\x0b' | b'\x0c' | b'\n' | b'\r')) | (b == 0x7f)
}

/// Whether any byte of `body` is a garbage control, scanned the vectorised
/// way the pattern normaliser scans for bytes to encode.
fn has_garbage_control(body: &[u8]) -> bool {
    !none_of(body, is_garbage_control)
}

/// `body` without a UTF-8 byte order mark, or the start of one (Google).
fn skip_bom(body: &[u8]) -> &[u8] {
    for bom in [&[0xEF, 0xBB, 0xBF][..], &[0xEF, 0xBB], &[0xEF]] {
        if let Some(rest) = body.strip_prefix(bom) {
            return rest;
        }
    }
    body
}

/// Whether a body is not a robots.txt at all: an HTML page or binary data
/// from which no group with rules parses.
///
/// This is the one classification every face uses, the same as
/// [`Robots::not_robots`]: a body that only looks wrong (a NUL byte, control
/// bytes, an HTML comment on its first line) but from which a group with
/// rules parses is a robots.txt and is obeyed, so garbage can never turn a
/// policy into "no policy". Only bodies whose first 4 KiB look like HTML or
/// binary data are parsed to decide; for the rest this costs one look at
/// their start.
pub fn sniff(body: &[u8]) -> Option<NotRobots> {
    // A UTF-16 body is all NUL bytes to the quick look: only its decoded
    // text can say.
    if utf16::byte_order(body).is_none() {
        sniff_not_robots(skip_bom(body))?;
    }
    parse(body).not_robots
}

impl Robots {
    /// Parses a robots.txt body. Never fails; see [`Robots::diagnostics`].
    pub fn parse(body: &[u8]) -> Robots {
        parse(body)
    }
}

fn parse(input: &[u8]) -> Robots {
    let Some(order) = utf16::byte_order(input) else {
        return parse_utf8(skip_bom(input), input.len(), None);
    };
    let text = utf16::decode(input, order);
    let mut robots = parse_utf8(text.as_bytes(), input.len(), Some(order));
    robots.diagnostics.insert(
        0,
        Diagnostic::new(
            LintCode::Utf16Body,
            None,
            format!(
                "the file is {} (it starts with that byte order mark); it is read as text, but RFC 9309 asks for \
                 UTF-8 and crawlers that read bytes find no rules in it: save it as UTF-8",
                order.name()
            ),
        ),
    );
    robots
}

/// Parses `body`, text without a byte order mark (UTF-8 or, when decoding
/// found none, bytes read as the reference reads them), for a file of
/// `size` octets as served, decoded from UTF-16 when `decoded_from` says so.
fn parse_utf8(mut body: &[u8], size: usize, decoded_from: Option<utf16::ByteOrder>) -> Robots {
    let mut truncated = false;
    if body.len() > MAX_PARSE_BYTES {
        truncated = true;
        // Cut at the last line end inside the limit: half a pattern could
        // block far more than the whole one.
        let cut = memrchr2(b'\n', b'\r', &body[..MAX_PARSE_BYTES]).map_or(0, |i| i + 1);
        body = &body[..cut];
    }
    // Most lines of a robots.txt are rules, and most lines are short: room
    // for a rule per 24 octets saves growing the array on most files.
    let lines = body.len() / 24 + 4;
    let (text, body_start) = match std::str::from_utf8(body) {
        Ok(text) => (text.to_owned(), Some(body.as_ptr() as usize)),
        Err(_) => (String::with_capacity(body.len() / 2), None),
    };
    let mut p = Parser {
        robots: Robots {
            text,
            patterns: Vec::with_capacity(body.len() / 2),
            groups: Vec::new(),
            agents: Vec::new(),
            rules: Vec::with_capacity(lines),
            records: Vec::new(),
            diagnostics: Vec::new(),
            lines: 0,
            size,
            truncated,
            not_robots: None,
        },
        body_start,
        in_rules: false,
        has_controls: has_garbage_control(body),
        garbled_lines: 0,
    };
    // Line ends from one iterator over the body (cheaper than a search per
    // line); a CR LF pair ends one line.
    let mut pos = 0;
    let mut line_no = 0u32;
    for end in memchr2_iter(b'\n', b'\r', body) {
        if end < pos {
            continue; // the LF of a CR LF pair
        }
        line_no += 1;
        p.line(&body[pos..end], line_no);
        pos = if body[end] == b'\r' && body.get(end + 1) == Some(&b'\n') { end + 2 } else { end + 1 };
    }
    if pos < body.len() {
        line_no += 1;
        p.line(&body[pos..], line_no);
    }
    p.robots.lines = line_no;
    // The arrays were sized from the body's length; a file of comments and
    // blank lines leaves most of that room unused.
    let robots = &mut p.robots;
    if robots.rules.capacity() > 2 * robots.rules.len() + 16 {
        robots.rules.shrink_to_fit();
    }
    if robots.patterns.capacity() > 2 * robots.patterns.len() + 256 {
        robots.patterns.shrink_to_fit();
    }
    p.classify(body);
    if truncated {
        p.robots.diagnostics.push(Diagnostic::new(
            LintCode::FileTooLarge,
            None,
            format!(
                "the file is {size} bytes; only the first {} KiB{} are read and everything after line {line_no} is \
                 ignored",
                MAX_PARSE_BYTES / 1024,
                if decoded_from.is_some() { " of its text (decoded to UTF-8)" } else { "" },
            ),
        ));
    }
    p.robots
}

impl Parser {
    /// Decides whether the body is a robots.txt (DESIGN: "a body that is not
    /// clean text"): a body from which a group with rules parsed is obeyed
    /// whatever else it holds, with a diagnostic; only one from which none
    /// parsed, and that looks like HTML or binary data, is not a robots.txt.
    fn classify(&mut self, body: &[u8]) {
        // Without control bytes (vertical tabs count for the sniffer) a body
        // can only look like HTML, and that needs a `<` first.
        let looks_like_markup = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<');
        let head = &body[..body.len().min(4096)];
        let sniffed = if self.has_controls || looks_like_markup || memchr(0x0b, head).is_some() {
            sniff_not_robots(body)
        } else {
            None
        };
        let has_rules = self.robots.groups.iter().any(|g| g.rules.start < g.rules.end);
        if !has_rules {
            self.robots.not_robots = sniffed;
            return;
        }
        let what = match (sniffed, self.garbled_lines) {
            (Some(NotRobots::Html), _) => "looks like an HTML page",
            (Some(NotRobots::Binary), _) | (None, 1..) => "holds NUL or control bytes",
            (None, 0) => return,
        };
        let groups = self.robots.groups.iter().filter(|g| g.rules.start < g.rules.end).count();
        let cut = match self.garbled_lines {
            0 => String::new(),
            n => format!(
                "; {n} line{} cut at a control byte (a Disallow keeps what comes before it, an Allow is dropped)",
                if n == 1 { "" } else { "s" }
            ),
        };
        self.robots.diagnostics.push(Diagnostic::new(
            LintCode::GarbledBody,
            None,
            format!(
                "the body {what}, but {groups} group{} with rules parse from it and are obeyed{cut}",
                if groups == 1 { "" } else { "s" }
            ),
        ));
    }

    /// The span of `bytes`, a piece of the body, in the text arena.
    ///
    /// A value cut at [`MAX_LINE_BYTES`] may end inside a character: its
    /// span then ends at the last whole character before the cut, so the
    /// text shown as evidence is valid UTF-8 while the pattern is matched on
    /// every byte up to the cut, as the reference does.
    fn push_text(&mut self, bytes: &[u8]) -> Span {
        if let Some(body_start) = self.body_start {
            let start = bytes.as_ptr() as usize - body_start;
            let mut end = start + bytes.len();
            debug_assert!(end <= self.robots.text.len(), "a value outside the body");
            while !self.robots.text.is_char_boundary(end) {
                end -= 1;
            }
            return start as u32..end as u32;
        }
        let start = self.robots.text.len() as u32;
        match std::str::from_utf8(bytes) {
            Ok(s) => self.robots.text.push_str(s),
            Err(_) => self.robots.text.push_str(&String::from_utf8_lossy(bytes)),
        }
        start..self.robots.text.len() as u32
    }

    fn diag(&mut self, code: LintCode, line: u32, message: String) {
        self.robots.diagnostics.push(Diagnostic::new(code, Some(line), message));
    }

    fn line(&mut self, mut line: &[u8], line_no: u32) {
        if line.len() > MAX_LINE_BYTES {
            line = &line[..MAX_LINE_BYTES];
            self.diag(
                LintCode::LineTooLong,
                line_no,
                format!("line is longer than {MAX_LINE_BYTES} bytes; the rest of it is ignored"),
            );
        }
        if let Some(hash) = memchr(b'#', line) {
            line = &line[..hash];
        }
        // Like the reference, which reads a line as a C string, nothing
        // after a NUL (or any other control byte) is part of the line.
        let mut garbled = false;
        if self.has_controls
            && let Some(at) = line.iter().position(|&b| is_garbage_control(b))
        {
            line = &line[..at];
            garbled = true;
            self.garbled_lines += 1;
        }
        let line = trim(line);
        if line.is_empty() {
            return;
        }
        let (key, value, missing_colon) = match memchr(b':', line) {
            Some(colon) => (trim(&line[..colon]), trim(&line[colon + 1..]), false),
            None => {
                // Like the reference: without a colon, a line of exactly two
                // tokens separated by spaces or tabs (nothing else) is read
                // as key and value.
                let mut tokens = line.split(|&b| b == b' ' || b == b'\t').filter(|t| !t.is_empty());
                match (tokens.next(), tokens.next(), tokens.next()) {
                    (Some(k), Some(v), None) => (k, v, true),
                    _ => {
                        let text = String::from_utf8_lossy(line).into_owned();
                        self.diag(LintCode::InvalidLine, line_no, format!("`{text}` is not a `key: value` record"));
                        return;
                    }
                }
            }
        };
        let (kind, spelling) = classify_key(key);
        if missing_colon {
            let k = String::from_utf8_lossy(key);
            self.diag(LintCode::MissingColon, line_no, format!("missing `:` after `{k}`; read as `{k}: …`"));
        }
        match (kind, spelling) {
            (Key::Record(RecordKind::Unknown), _) | (_, Spelling::Exact) => {}
            (_, spelling) => {
                let written = String::from_utf8_lossy(key);
                let meant = match kind {
                    Key::UserAgent => "User-agent",
                    Key::Rule(d) => {
                        if d == Directive::Allow {
                            "Allow"
                        } else {
                            "Disallow"
                        }
                    }
                    Key::Record(k) => k.name(),
                };
                let how = if spelling == Spelling::Prefixed { "read" } else { "misspelled; read" };
                self.diag(LintCode::MisspelledDirective, line_no, format!("`{written}` is {how} as `{meant}`"));
            }
        }
        match kind {
            Key::UserAgent => self.user_agent(value, line_no),
            // An Allow cut short would allow more than was written: dropped.
            Key::Rule(Directive::Allow) if garbled => {}
            Key::Rule(directive) => self.rule(directive, value, line_no),
            Key::Record(kind) => self.record(kind, key, value, line_no),
        }
    }

    fn user_agent(&mut self, value: &[u8], line_no: u32) {
        if self.in_rules || self.robots.groups.is_empty() {
            let n = self.robots.agents.len() as u32;
            let r = self.robots.rules.len() as u32;
            self.robots.groups.push(GroupEntry { agents: n..n, rules: r..r });
            self.in_rules = false;
        }
        let (token_len, global) = product_token(value);
        let value_span = self.push_text(value);
        let token = value_span.start..value_span.start + token_len as u32;
        if !global && token_len == 0 {
            let v = String::from_utf8_lossy(value);
            self.diag(
                LintCode::InvalidProductToken,
                line_no,
                format!("`{v}` has no product token (letters, `-` and `_`); this group applies to no crawler"),
            );
        } else if !global && token_len < value.len() {
            let v = String::from_utf8_lossy(value);
            let t = String::from_utf8_lossy(&value[..token_len]);
            self.diag(
                LintCode::InvalidProductToken,
                line_no,
                format!("`{v}` is not a product token; crawlers read it as `{t}`"),
            );
        }
        self.robots.agents.push(AgentEntry { line: line_no, value: value_span, token, global });
        if let Some(group) = self.robots.groups.last_mut() {
            group.agents.end = self.robots.agents.len() as u32;
        }
    }

    fn rule(&mut self, directive: Directive, value: &[u8], line_no: u32) {
        if self.robots.groups.is_empty() {
            let v = String::from_utf8_lossy(value);
            let d = directive.as_str();
            self.diag(
                LintCode::OrphanRule,
                line_no,
                format!("`{d}: {v}` comes before any `User-agent` line; crawlers ignore it"),
            );
            return;
        }
        self.in_rules = true;
        let raw = self.push_text(value);
        self.push_rule(directive, value, raw.clone(), line_no, false);
        if value.first().is_some_and(|&b| b != b'/' && b != b'*') {
            let v = String::from_utf8_lossy(value);
            self.diag(
                LintCode::PatternNeverMatches,
                line_no,
                format!("pattern `{v}` starts with neither `/` nor `*`, so it matches no URL"),
            );
        }
        // Google's reference: `Allow: /dir/index.html` also allows `/dir/`,
        // exactly when the text from the last `/` starts with `/index.htm`
        // (case-sensitive), so `index.html$`, `index.htm?x=1` and
        // `index.html*` count and `INDEX.HTML` does not.
        if directive == Directive::Allow
            && let Some(slash) = value.iter().rposition(|&b| b == b'/')
            && value[slash..].starts_with(b"/index.htm")
        {
            let mut dir = value[..=slash].to_vec();
            dir.push(b'$');
            self.push_rule(Directive::Allow, &dir, raw, line_no, true);
        }
    }

    fn push_rule(&mut self, directive: Directive, pattern: &[u8], raw: Span, line_no: u32, synthetic: bool) {
        let start = self.robots.patterns.len() as u32;
        let normalized = normalize_pattern_into(pattern, &mut self.robots.patterns);
        let end = self.robots.patterns.len() as u32;
        let first = self.robots.patterns.get(start as usize).copied();
        let matchable = (first == Some(b'/') || first == Some(WILDCARD)) && start < end;
        self.robots.rules.push(RuleEntry {
            directive,
            line: line_no,
            raw,
            normalized: start..end,
            anchored: normalized.anchored,
            priority: normalized.priority,
            matchable,
            synthetic,
        });
        if let Some(group) = self.robots.groups.last_mut() {
            group.rules.end = self.robots.rules.len() as u32;
        }
    }

    fn record(&mut self, kind: RecordKind, key: &[u8], value: &[u8], line_no: u32) {
        let key_span = self.push_text(key);
        let value_span = self.push_text(value);
        // `Sitemap` and `License` are global: no group owns them.
        let group = if matches!(kind, RecordKind::Sitemap | RecordKind::License) || self.robots.groups.is_empty() {
            None
        } else {
            Some(self.robots.groups.len() as u32 - 1)
        };
        self.robots.records.push(RecordEntry { line: line_no, kind, key: key_span, value: value_span, group });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_resolve_like_the_reference() {
        let cases: &[(&str, Key, Spelling)] = &[
            ("User-agent", Key::UserAgent, Spelling::Exact),
            ("user-AGENT", Key::UserAgent, Spelling::Exact),
            ("User-agents", Key::UserAgent, Spelling::Prefixed),
            ("useragent", Key::UserAgent, Spelling::Misspelled),
            ("user agent", Key::UserAgent, Spelling::Misspelled),
            ("Allow", Key::Rule(Directive::Allow), Spelling::Exact),
            ("Allowed", Key::Rule(Directive::Allow), Spelling::Prefixed),
            ("Disallowed", Key::Rule(Directive::Disallow), Spelling::Prefixed),
            ("dissallow", Key::Rule(Directive::Disallow), Spelling::Misspelled),
            ("dissalow", Key::Rule(Directive::Disallow), Spelling::Misspelled),
            ("disalow", Key::Rule(Directive::Disallow), Spelling::Misspelled),
            ("diasllow", Key::Rule(Directive::Disallow), Spelling::Misspelled),
            ("disallaw", Key::Rule(Directive::Disallow), Spelling::Misspelled),
            ("Sitemap", Key::Record(RecordKind::Sitemap), Spelling::Exact),
            ("site-map", Key::Record(RecordKind::Sitemap), Spelling::Misspelled),
            ("Crawl-Delay", Key::Record(RecordKind::CrawlDelay), Spelling::Exact),
            ("content-signal", Key::Record(RecordKind::ContentSignal), Spelling::Exact),
            ("Content-Usage", Key::Record(RecordKind::ContentUsage), Spelling::Exact),
            ("License", Key::Record(RecordKind::License), Spelling::Exact),
            ("licence", Key::Record(RecordKind::Unknown), Spelling::Exact),
            ("NOINDEX", Key::Record(RecordKind::Noindex), Spelling::Exact),
            ("Allow-x", Key::Rule(Directive::Allow), Spelling::Prefixed),
            ("Disalow-typo", Key::Rule(Directive::Disallow), Spelling::Misspelled),
            ("Crawl_delay", Key::Record(RecordKind::Unknown), Spelling::Exact),
            ("Unicorns", Key::Record(RecordKind::Unknown), Spelling::Exact),
        ];
        for (key, kind, spelling) in cases {
            assert_eq!(classify_key(key.as_bytes()), (*kind, *spelling), "key {key:?}");
        }
    }

    #[test]
    fn product_tokens() {
        assert_eq!(product_token(b"*"), (0, true));
        assert_eq!(product_token(b"* comment"), (0, true));
        assert_eq!(product_token(b"*bot"), (0, false));
        assert_eq!(product_token(b"FooBot/2.1"), (6, false));
        assert_eq!(product_token(b"Googlebot-News"), (14, false));
        assert_eq!(product_token(b"foo_bar baz"), (7, false));
        assert_eq!(product_token(b"123bot"), (0, false));
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff_not_robots(b"<!DOCTYPE html><html>"), Some(NotRobots::Html));
        assert_eq!(sniff_not_robots(b"\n  <html lang=en>"), Some(NotRobots::Html));
        assert_eq!(sniff_not_robots(b"\x1f\x8b\x08\x00"), Some(NotRobots::Binary));
        assert_eq!(sniff_not_robots(b"User-agent: *\0"), Some(NotRobots::Binary));
        assert_eq!(sniff_not_robots(b"User-agent: *\nDisallow: /<html>"), None);
        assert_eq!(sniff_not_robots(b""), None);
    }

    #[test]
    fn the_sniffer_runs_whenever_it_could_say_something() {
        // Vertical tabs are not garbage to the line parser but count as
        // control bytes for the sniffer: a body of them is still binary.
        let tabs = [&[0x0b_u8; 64][..], b"\nUser-agent: *\nDisallow: /x\n"].concat();
        let robots = parse(&tabs);
        assert_eq!(robots.not_robots, None);
        assert!(robots.diagnostics.iter().any(|d| d.code == LintCode::GarbledBody), "{:?}", robots.diagnostics);
        assert_eq!(parse(&[0x0b; 64]).not_robots, Some(NotRobots::Binary));
        // Markup after white space, with rules and without.
        assert_eq!(parse(b"\n\n <html><body>x</body></html>").not_robots, Some(NotRobots::Html));
        let page = parse(b" <html>\nUser-agent: *\nDisallow: /\n</html>");
        assert_eq!(page.not_robots, None);
        assert!(page.diagnostics.iter().any(|d| d.code == LintCode::GarbledBody));
        // A plain file is neither, and says nothing.
        let plain = parse(b"User-agent: *\nDisallow: /<html>\n");
        assert_eq!(plain.not_robots, None);
        assert!(plain.diagnostics.is_empty(), "{:?}", plain.diagnostics);
    }

    #[test]
    fn values_index_the_body_or_copies_of_it() {
        // Valid UTF-8: spans into the body itself; invalid: copied values.
        for body in [&b"User-agent: Bot\nDisallow: /caf\xc3\xa9\n"[..], b"User-agent: Bot\nDisallow: /caf\xe9\n"] {
            let robots = parse(body);
            let group = robots.groups().next().unwrap();
            assert_eq!(group.user_agents().next().unwrap().token, "Bot");
            let rule = group.rules().next().unwrap();
            assert!(rule.pattern.starts_with("/caf"), "{:?}", rule.pattern);
            assert_eq!(rule.line, 2);
        }
    }
}
