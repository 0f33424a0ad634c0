//! The Markdown syntax every pass over converted Markdown reads, in one
//! place: code fences, blocks and inline links.
//!
//! - **Fences.** A line opening with three or more backticks or tildes
//!   opens a fence; a line of the same character, at least as many, and
//!   nothing else closes it (CommonMark §4.5). What is inside is code:
//!   never rewritten, never read as prose. An unclosed fence runs to the
//!   end.
//! - **Blocks.** Lines between blank lines, a fence being one block of its
//!   own ([`blocks`]): what the tidy and merge passes weigh.
//! - **Links.** `[text](target)` and `![alt](target)`, read by the core's
//!   one inline-link reader ([`webcanon_core::llms::inline_link`]) outside
//!   inline code and backslash escapes ([`links`]). A link's text may run
//!   over line breaks, blank lines included: the converter writes a link
//!   around blocks (`<a>` around a heading and a teaser) that way. So the
//!   content shapes and link absolutizing read the text between fences as
//!   a whole, not line by line.
//!
//! Reading is linear on hostile input: every bracket and parenthesis is
//! matched in one pass first, so a `[` that opens no link is told in
//! constant time, and the reader is only handed links that close.

use webcanon_core::llms::inline_link;

/// A fence's opening: its character and how many of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    marker: u8,
    len: usize,
}

impl Fence {
    /// The fence a line opens, if it opens one (up to three spaces of
    /// indent, as CommonMark allows; deeper indents were read as fences
    /// too before, and converters indent fences inside list items).
    fn opened_by(line: &str) -> Option<Fence> {
        let trimmed = line.trim_start();
        let marker = *trimmed.as_bytes().first()?;
        if marker != b'`' && marker != b'~' {
            return None;
        }
        let len = trimmed.bytes().take_while(|&b| b == marker).count();
        (len >= 3).then_some(Fence { marker, len })
    }

    /// Whether `line` closes this fence.
    fn closed_by(self, line: &str) -> bool {
        let trimmed = line.trim();
        let len = trimmed.bytes().take_while(|&b| b == self.marker).count();
        len >= self.len && len == trimmed.len()
    }
}

/// A stretch of Markdown: prose (anything outside fences, blank lines
/// included) or one fenced code block with its fence lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stretch<'a> {
    /// Text outside fences, each line with its line end.
    Text(&'a str),
    /// A fenced block: the opening line, the code and the closing line (if
    /// any), each with its line end.
    Code(&'a str),
}

/// `markdown` cut into [`Stretch`]es, in order; joined they give it back.
pub(super) fn stretches(markdown: &str) -> Vec<Stretch<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut fence: Option<(Fence, usize)> = None;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        match fence {
            Some((open, code_start)) => {
                if open.closed_by(line) {
                    out.push(Stretch::Code(&markdown[code_start..offset]));
                    fence = None;
                    start = offset;
                }
            }
            None => {
                if let Some(open) = Fence::opened_by(line) {
                    if line_start > start {
                        out.push(Stretch::Text(&markdown[start..line_start]));
                    }
                    fence = Some((open, line_start));
                }
            }
        }
    }
    match fence {
        Some((_, code_start)) => out.push(Stretch::Code(&markdown[code_start..])),
        None if start < markdown.len() => out.push(Stretch::Text(&markdown[start..])),
        None => {}
    }
    out
}

/// The code of a [`Stretch::Code`] without its fence lines (the closing
/// one only if it is there), each line with its line end.
pub(super) fn fenced_code(block: &str) -> &str {
    let Some(first) = block.split_inclusive('\n').next() else { return block };
    let code = &block[first.len()..];
    let Some(open) = Fence::opened_by(first) else { return block };
    let last_start = code.trim_end_matches(['\n', '\r']).rfind('\n').map_or(0, |at| at + 1);
    if !code.is_empty() && open.closed_by(&code[last_start..]) { &code[..last_start] } else { code }
}

/// One block: lines between blank lines (a code fence is one block, and
/// so is a link whose text holds blank lines, with them).
pub(super) struct Block<'a> {
    /// Its lines, without line ends (blank ones only inside a link).
    pub(super) lines: Vec<&'a str>,
    /// Whether it is a fenced code block.
    pub(super) code: bool,
    /// Whether a link of it runs over a blank line.
    pub(super) spanning_link: bool,
}

impl Block<'_> {
    /// Its lines joined: its text as written.
    pub(super) fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// The blocks of `markdown`, in order.
pub(super) fn blocks(markdown: &str) -> Vec<Block<'_>> {
    let mut out: Vec<Block<'_>> = Vec::new();
    for stretch in stretches(markdown) {
        match stretch {
            Stretch::Code(code) => out.push(Block { lines: code.lines().collect(), code: true, spanning_link: false }),
            Stretch::Text(text) => text_blocks(text, &mut out),
        }
    }
    out
}

/// The blocks of text between fences: split at blank lines, but not at
/// one inside a link.
fn text_blocks<'a>(text: &'a str, out: &mut Vec<Block<'a>>) {
    let spans = links(text);
    let mut span = 0;
    let mut current: Vec<&str> = Vec::new();
    let mut spanning_link = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let line = line.strip_suffix('\n').map_or(line, |l| l.strip_suffix('\r').unwrap_or(l));
        if !line.trim().is_empty() {
            current.push(line);
            continue;
        }
        while span < spans.len() && spans[span].end <= at {
            span += 1;
        }
        if span < spans.len() && spans[span].start < at && !current.is_empty() {
            current.push(line);
            spanning_link = true;
        } else if !current.is_empty() {
            out.push(Block { lines: std::mem::take(&mut current), code: false, spanning_link });
            spanning_link = false;
        }
    }
    if !current.is_empty() {
        out.push(Block { lines: current, code: false, spanning_link });
    }
}

/// A link or image found in a stretch of text, as byte ranges of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LinkSpan {
    /// Where it starts: its `[`, or the `!` before an image's.
    pub(super) start: usize,
    /// Where it ends: after its `)`.
    pub(super) end: usize,
    /// Its text (an image's alt text), trimmed, without the brackets.
    pub(super) text: std::ops::Range<usize>,
    /// Its target, trimmed, without a title or `<…>`.
    pub(super) target: std::ops::Range<usize>,
    /// Whether it is an image (`![alt](target)`).
    pub(super) image: bool,
}

/// The links and images of `text`, outermost only (a link's text is read
/// again by whoever wants what is inside it), outside inline code and
/// escapes, in order.
pub(super) fn links(text: &str) -> Vec<LinkSpan> {
    let bytes = text.as_bytes();
    let closes = Closes::of(text);
    let mut out = Vec::new();
    // Once an `<…>` target finds no `>` and `)` after it, none later can.
    let mut angle_targets_fail = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => {
                // Inline code: on to the matching run of backticks.
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                let ticks = &text[i..i + run];
                i = text[i + run..].find(ticks).map_or(bytes.len(), |end| i + run + end + run);
            }
            b'\\' => i += 2,
            b'[' => {
                let Some(end) = closes.link_end(text, i, &mut angle_targets_fail) else {
                    i += 1;
                    continue;
                };
                let image = i > 0 && bytes[i - 1] == b'!' && (i < 2 || bytes[i - 2] != b'\\');
                match inline_link(&text[i..end]) {
                    Some((inner, target, _)) => {
                        out.push(LinkSpan {
                            start: if image { i - 1 } else { i },
                            end,
                            text: range_in(text, inner),
                            target: range_in(text, target),
                            image,
                        });
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Where each `[` that is followed, after its match, by `(` closes, and
/// where that `(` closes: matched in one pass, counting as
/// [`inline_link`] counts (`\\` escapes the next byte), sorted by opening.
struct Closes {
    brackets: Vec<(usize, usize)>,
    parens: Vec<(usize, usize)>,
}

impl Closes {
    fn of(text: &str) -> Closes {
        let bytes = text.as_bytes();
        let (mut brackets, mut parens) = (Vec::new(), Vec::new());
        let (mut open_brackets, mut open_parens) = (Vec::new(), Vec::<usize>::new());
        // As `inline_link` reads a target: a title (`"…"` after white
        // space, right inside the target's parenthesis) ends at its
        // closing quote; once none closes, none later can.
        let mut titles_close = true;
        let is_target = |open: usize| open > 0 && bytes[open - 1] == b']';
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 1,
                b'[' => open_brackets.push(i),
                b']' => {
                    if let Some(open) = open_brackets.pop()
                        && bytes.get(i + 1) == Some(&b'(')
                    {
                        brackets.push((open, i));
                    }
                }
                b'(' => open_parens.push(i),
                b')' => {
                    if let Some(open) = open_parens.pop()
                        && is_target(open)
                    {
                        parens.push((open, i));
                    }
                }
                // A target's parenthesis is open, so `i` is past it.
                b'"' if titles_close
                    && open_parens.last().is_some_and(|&open| is_target(open))
                    && matches!(bytes[i - 1], b' ' | b'\t') =>
                {
                    match memchr::memchr(b'"', &bytes[i + 1..]) {
                        Some(close) => i += close + 1,
                        None => titles_close = false,
                    }
                }
                _ => {}
            }
            i += 1;
        }
        brackets.sort_unstable();
        parens.sort_unstable();
        Closes { brackets, parens }
    }

    /// Where the link opened by the `[` at `open` ends (after its `)`),
    /// if it is one.
    fn link_end(&self, text: &str, open: usize, angle_targets_fail: &mut bool) -> Option<usize> {
        let close = find(&self.brackets, open)?;
        let paren = close + 1;
        if text.as_bytes().get(paren + 1) == Some(&b'<') {
            if *angle_targets_fail {
                return None;
            }
            let found = text[paren + 2..]
                .find('>')
                .and_then(|gt| text[paren + 2 + gt..].find(')').map(|end| paren + 2 + gt + end + 1));
            *angle_targets_fail = found.is_none();
            return found;
        }
        find(&self.parens, paren).map(|end| end + 1)
    }
}

fn find(pairs: &[(usize, usize)], open: usize) -> Option<usize> {
    pairs.binary_search_by_key(&open, |&(o, _)| o).ok().map(|at| pairs[at].1)
}

/// How deep links inside link texts (`[![alt](img)](url)`) are read; a
/// text nested deeper is taken as it is written.
pub(super) const MAX_LINK_NESTING: usize = 4;

/// What a rewrite may return for a link or image it shapes to nothing, to
/// mark where it stood (a private-use character, which no page's text
/// holds by rights): a link whose text is only such marks is named by its
/// image's alt text instead.
pub(super) const EMPTIED: char = '\u{E001}';

/// A link or image as [`rewrite_links`] hands it over.
pub(super) struct Link<'a> {
    /// Whether it is an image.
    pub(super) image: bool,
    /// Its text, already rewritten (an image inside a link); for a link
    /// whose text was only a dropped image, that image's alt text.
    pub(super) text: &'a str,
    /// Its target.
    pub(super) url: &'a str,
}

/// `text` with every link and image (see [`links`]) replaced by what `f`
/// makes of it; anything that does not parse stays as it is.
pub(super) fn rewrite_links(text: &str, f: &mut dyn FnMut(Link<'_>) -> String) -> String {
    rewrite_links_at(text, f, 0)
}

fn rewrite_links_at(text: &str, f: &mut dyn FnMut(Link<'_>) -> String, nesting: usize) -> String {
    if nesting > MAX_LINK_NESTING {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for link in links(text) {
        out.push_str(&text[copied..link.start]);
        let source = &text[link.text.clone()];
        let mut inner = rewrite_links_at(source, f, nesting + 1);
        if inner.chars().all(|c| c.is_whitespace() || c == EMPTIED) && !link.image {
            // A linked image that was dropped: its alt text names the link.
            inner = rewrite_links_at(source, &mut |l: Link<'_>| l.text.to_string(), nesting + 1);
        }
        out.push_str(&f(Link { image: link.image, text: &inner, url: &text[link.target.clone()] }));
        copied = link.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// A link target as the address it stands for: its backslash escapes
/// (`\(`, `\)`, which converters write for parentheses) undone.
pub(super) fn target_address(target: &str) -> std::borrow::Cow<'_, str> {
    if !target.contains('\\') {
        return std::borrow::Cow::Borrowed(target);
    }
    let mut address = String::with_capacity(target.len());
    let mut chars = target.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&next) if c == '\\' && next.is_ascii_punctuation() => {
                address.push(next);
                chars.next();
            }
            _ => address.push(c),
        }
    }
    std::borrow::Cow::Owned(address)
}

/// An address written as a link target: as it is when its parentheses
/// pair up (CommonMark reads such a target whole), each of them escaped
/// otherwise, so that the target ends where the address does.
pub(super) fn address_target(address: &str) -> std::borrow::Cow<'_, str> {
    let mut open = 0usize;
    let paired = address.bytes().all(|b| match b {
        b'(' => {
            open += 1;
            true
        }
        b')' => open.checked_sub(1).map(|left| open = left).is_some(),
        _ => true,
    }) && open == 0;
    if paired {
        return std::borrow::Cow::Borrowed(address);
    }
    std::borrow::Cow::Owned(address.replace('(', "\\(").replace(')', "\\)"))
}

/// Where `part`, a slice of `whole`, lies in it.
fn range_in(whole: &str, part: &str) -> std::ops::Range<usize> {
    let start = part.as_ptr() as usize - whole.as_ptr() as usize;
    debug_assert!(start + part.len() <= whole.len());
    start..start + part.len()
}

/// The visible text of a line and how much of it is link text:
/// `[text](target)` counts its text as link text, `![alt](…)` nothing.
pub(super) fn text_and_link_chars(line: &str) -> (String, usize) {
    text_and_link_chars_at(line, 0)
}

fn text_and_link_chars_at(line: &str, nesting: usize) -> (String, usize) {
    if nesting > MAX_LINK_NESTING {
        return (line.to_string(), 0);
    }
    let mut text = String::with_capacity(line.len());
    let mut link_chars = 0;
    let mut copied = 0;
    for link in links(line) {
        text.push_str(&line[copied..link.start]);
        if !link.image {
            let (inner, _) = text_and_link_chars_at(&line[link.text.clone()], nesting + 1);
            link_chars += visible(&inner);
            text.push_str(&inner);
        }
        copied = link.end;
    }
    text.push_str(&line[copied..]);
    (text, link_chars)
}

/// Characters that are not whitespace or Markdown punctuation.
pub(super) fn visible(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace() && !matches!(c, '*' | '_' | '>' | '#' | '-' | '|' | '`' | '\\')).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stretches_give_the_text_back_and_keep_fences_whole() {
        let rows: &[(&str, &[Stretch<'_>])] = &[
            ("plain\ntext", &[Stretch::Text("plain\ntext")]),
            (
                "a\n```\ncode [x](y)\n```\nb",
                &[Stretch::Text("a\n"), Stretch::Code("```\ncode [x](y)\n```\n"), Stretch::Text("b")],
            ),
            // A shorter or other fence does not close it; a longer one does.
            ("````\n```\n~~~\n`````\nafter", &[Stretch::Code("````\n```\n~~~\n`````\n"), Stretch::Text("after")]),
            // Text after the fence characters on a closing line: still code.
            ("```\n``` not a close\n", &[Stretch::Code("```\n``` not a close\n")]),
            ("~~~ rust\nunclosed", &[Stretch::Code("~~~ rust\nunclosed")]),
        ];
        for (markdown, expected) in rows {
            let got = stretches(markdown);
            assert_eq!(&got, expected, "{markdown:?}");
            let joined: String = got
                .iter()
                .map(|s| match s {
                    Stretch::Text(t) | Stretch::Code(t) => *t,
                })
                .collect();
            assert_eq!(&joined, markdown);
        }
    }

    #[test]
    fn fenced_code_is_the_code_between_the_fences() {
        assert_eq!(fenced_code("```rust\nlet a = 1;\n```\n"), "let a = 1;\n");
        assert_eq!(fenced_code("~~~\nunclosed\nstill code"), "unclosed\nstill code");
        assert_eq!(fenced_code("```\n```"), "");
    }

    #[test]
    fn links_are_found_outside_code_and_escapes() {
        let text = "See [a](https://x/a) and `[b](c)` and \\[d](e) and ![img](i.png) and [f\nover a line](g).";
        let found: Vec<(&str, &str, bool)> =
            links(text).iter().map(|l| (&text[l.text.clone()], &text[l.target.clone()], l.image)).collect();
        assert_eq!(found, [("a", "https://x/a", false), ("img", "i.png", true), ("f\nover a line", "g", false)]);
    }

    #[test]
    fn link_text_is_counted_and_images_are_not() {
        assert_eq!(text_and_link_chars("Read [the docs](https://x/d) now"), ("Read the docs now".to_string(), 7));
        assert_eq!(text_and_link_chars("![A photo](p.jpg) caption"), (" caption".to_string(), 0));
        assert_eq!(text_and_link_chars("[![Logo](l.png)](https://x/)"), (String::new(), 0));
        assert_eq!(text_and_link_chars("code `[x](y)` stays"), ("code `[x](y)` stays".to_string(), 0));
    }

    #[test]
    fn any_text_is_read_without_panicking() {
        for text in ["\"", "](\"", "[a](\"", "[a]( \"", "\\", "`", "[", "]", "(", ")", "![", "[a](<", "[é](ü \"ö"] {
            let _ = links(text);
            let _ = text_and_link_chars(text);
            let _ = blocks(text);
        }
    }

    #[test]
    fn hostile_text_is_read_in_linear_time() {
        for hostile in [
            format!("{}](x)", "[".repeat(1_000_000)),
            "[a](".repeat(300_000),
            "[a](<".repeat(300_000),
            "[a](b \"".repeat(300_000),
            "[a]\n".repeat(300_000),
        ] {
            let started = std::time::Instant::now();
            let _ = links(&hostile);
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
        }
        // Only the last bracket opens a link (with no text).
        let unmatched = format!("{}](x)", "[".repeat(1_000_000));
        let started = std::time::Instant::now();
        let found = links(&unmatched);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].start, 999_999);
        assert_eq!(text_and_link_chars(&unmatched).0, "[".repeat(999_999));
        // Links nested a hundred thousand deep: no stack overflow.
        let nested = format!("{}x{}", "[".repeat(100_000), "](u)".repeat(100_000));
        assert!(!text_and_link_chars(&nested).0.is_empty());
        assert!(!rewrite_links(&nested, &mut |l: Link<'_>| l.text.to_string()).is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
    }

    #[test]
    fn targets_and_addresses_convert_both_ways() {
        assert_eq!(target_address("/a_\\(b\\)"), "/a_(b)");
        assert_eq!(target_address("/plain"), "/plain");
        assert_eq!(target_address("/a\\b"), "/a\\b");
        assert_eq!(address_target("https://x.test/a_(b)"), "https://x.test/a_(b)");
        assert_eq!(address_target("https://x.test/a("), "https://x.test/a\\(");
        assert_eq!(address_target("https://x.test/a)(b"), "https://x.test/a\\)\\(b");
        // What is written is read back as the whole address.
        for address in ["https://x.test/a(", "https://x.test/a)", "https://x.test/(a)(b", "https://x.test/ok"] {
            let text = format!("[t]({})", address_target(address));
            let found = links(&text);
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(target_address(&text[found[0].target.clone()]), address, "{text}");
        }
    }

    #[test]
    fn a_block_holds_a_link_over_blank_lines_whole() {
        let markdown = "Para one.\n\n[\n\n### Heading\n\nTeaser](https://x/a)\n\nPara two.";
        let found: Vec<(String, bool)> = blocks(markdown).iter().map(|b| (b.text(), b.spanning_link)).collect();
        assert_eq!(
            found,
            [
                ("Para one.".to_string(), false),
                ("[\n\n### Heading\n\nTeaser](https://x/a)".to_string(), true),
                ("Para two.".to_string(), false)
            ]
        );
    }

    #[test]
    fn a_link_may_hold_blocks() {
        let text = "*   [\n\n    ### Heading\n\n    Teaser](https://x/a) and [b](<https://x/b c>) and [c](d";
        let found: Vec<(&str, &str)> =
            links(text).iter().map(|l| (&text[l.text.clone()], &text[l.target.clone()])).collect();
        assert_eq!(found, [("### Heading\n\n    Teaser", "https://x/a"), ("b", "https://x/b c")]);
        // A title may hold a parenthesis of its own.
        let text = "draufgekloppe ![:(](data:image/gif \"Frown :(\") and [x](y)";
        let found: Vec<(&str, &str)> =
            links(text).iter().map(|l| (&text[l.text.clone()], &text[l.target.clone()])).collect();
        assert_eq!(found, [(":(", "data:image/gif"), ("x", "y")]);
    }
}
