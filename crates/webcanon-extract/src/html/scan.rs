//! A linear pre-scan of raw HTML, before any tree is built: element count,
//! nesting depth, and the `<head>` facts we need (title, meta, links).
//!
//! Tree builders and extractors go super-linear or overflow the stack on
//! hostile nesting (100,000 nested `<div>`s), and a timeout cannot stop a
//! blocking thread; so the input is measured first, in one pass that
//! cannot recurse, and only documents within the caps reach them.

/// Elements without an end tag.
const VOID: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];
/// Elements whose end tag is often left out; they never nest in practice,
/// so counting them would make ordinary pages look deep.
const OPTIONAL_END: &[&str] = &["p", "li", "dt", "dd", "tr", "td", "th", "option", "thead", "tbody", "tfoot"];
/// Elements whose content is raw text up to their end tag.
pub(super) const RAW_TEXT: &[&str] =
    &["script", "style", "textarea", "title", "xmp", "noscript", "iframe", "noembed", "noframes"];

/// A `<meta>` or `<link>` tag's attributes of interest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeadTag {
    /// `meta` or `link`.
    pub tag: String,
    /// Attributes, names lower-cased, in order.
    pub attrs: Vec<(String, String)>,
}

impl HeadTag {
    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What the scan found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Start tags seen.
    pub elements: usize,
    /// The deepest nesting seen: an upper bound of the depth an HTML5 tree
    /// builder reaches (a self-closing `<div/>` opens an element, an end tag
    /// closes only an element that is open).
    pub max_depth: usize,
    /// The most attributes seen on one element.
    pub max_attributes: usize,
    /// NUL and other control bytes (not tab, LF, CR, FF) in the document.
    pub controls: usize,
    /// For each run of text, its `&` count times its length, summed: the
    /// extractor's cost of escaping text grows with that product.
    pub ampersand_work: u64,
    /// The text of the first `<title>`.
    pub title: Option<String>,
    /// Every `<meta>` and `<link>` (at most 500).
    pub head: Vec<HeadTag>,
    /// The byte ranges of the `<noscript>` elements of the `<head>`, end
    /// tag included: what the tree is built without (see
    /// [`super`]'s rule for `<noscript>`).
    pub head_noscripts: Vec<std::ops::Range<usize>>,
    /// The `lang` attribute of the `<html>` element.
    pub html_lang: Option<String>,
    /// The text of the `<script type="application/ld+json">` blocks, each
    /// at most [`MAX_JSON_LD_BYTES`] (larger ones are left out), at most
    /// [`MAX_JSON_LD_BLOCKS`] of them.
    pub json_ld: Vec<String>,
    /// The `<time datetime>` elements, in document order (at most
    /// [`MAX_TIME_TAGS`]).
    pub times: Vec<HeadTag>,
    /// The byte ranges of the contents of `<script>` (JSON-LD aside) and
    /// `<style>` elements, in order: code, not text, and on many pages
    /// half of the bytes. The tree is built without them (the elements
    /// stay, empty). Only a content whose end the tokenizer sees where
    /// the scan does is listed: not one in SVG or MathML, not one holding
    /// `<!--` (a script's escaped state can hide its end tag), not one
    /// without its end tag, none after a `<plaintext>`; at most
    /// [`MAX_CODE_BODIES`].
    pub code_bodies: Vec<std::ops::Range<usize>>,
}

/// The largest JSON-LD block kept for reading; pages put a few kilobytes
/// in theirs, and a larger one is not worth its parse.
pub const MAX_JSON_LD_BYTES: usize = 256 * 1024;
/// The most JSON-LD blocks kept.
pub const MAX_JSON_LD_BLOCKS: usize = 16;
/// The most `<time>` elements kept.
pub const MAX_TIME_TAGS: usize = 16;
/// The most script and style contents listed for the tree to be built
/// without; a page with more keeps the rest (its tree costs more, and
/// its element count is over the caps long before).
pub const MAX_CODE_BODIES: usize = 10_000;

/// Elements that belong in a `<head>`: any other start tag begins the body.
const HEAD_ELEMENTS: &[&str] =
    &["base", "head", "html", "link", "meta", "noscript", "script", "style", "template", "title"];

/// Where `needle` first occurs in `haystack`, ASCII case ignored: the
/// first byte found by `memchr` in both cases, the rest compared there.
fn find_ci(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), haystack)
        .find(|&at| haystack[at + 1..].get(..rest.len()).is_some_and(|w| w.eq_ignore_ascii_case(rest)))
}

/// Where the raw text starting at `start` ends: at `</name` followed by
/// white space, `/` or `>`, as the tokenizer ends it (`</scripts` does
/// not end a script); `None` when it runs to the end.
pub(super) fn raw_text_end(bytes: &[u8], start: usize, name: &str) -> Option<usize> {
    let close = format!("</{name}");
    let mut from = start;
    while let Some(found) = find_ci(&bytes[from..], close.as_bytes()) {
        let at = from + found;
        match bytes.get(at + close.len()) {
            Some(b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>') => return Some(at),
            // Cut short: the tokenizer waits for more and ends at the end.
            None => return None,
            Some(_) => from = at + close.len(),
        }
    }
    None
}

/// Elements in which `<x/>` really is self-closing (SVG and MathML).
const FOREIGN: &[&str] = &["svg", "math"];

/// How many open element names the scan remembers to match end tags; deeper
/// nesting is still counted, its end tags then close nothing (an upper bound).
const STACK_NAMES: usize = 4096;

/// Scans `html` once. Stops counting nothing: the caller compares the
/// counts with its caps.
pub fn scan(html: &str) -> Scan {
    let bytes = html.as_bytes();
    let mut out = Scan {
        controls: bytes
            .iter()
            .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)) || b == 0x7f)
            .count(),
        ..Scan::default()
    };
    // The open elements (names up to STACK_NAMES), and how many of them are
    // foreign (SVG, MathML).
    let mut open: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut foreign = 0usize;
    let mut i = 0;
    // Where the current run of text started.
    let mut text_start = 0;
    // Whether every start tag so far belongs in a `<head>`.
    let mut in_head = true;
    // Past a `<plaintext>`, the tokenizer reads everything as text.
    let mut plaintext = false;
    loop {
        let Some(offset) = memchr::memchr(b'<', &bytes[i..]) else {
            out.ampersand_work += ampersand_work(&bytes[text_start..]);
            break;
        };
        out.ampersand_work += ampersand_work(&bytes[text_start..i + offset]);
        i += offset + 1;
        if i >= bytes.len() {
            break;
        }
        match bytes[i] {
            b'!' => {
                // Comment, doctype or CDATA: skip to its end.
                let end = if bytes[i..].starts_with(b"!--") { "-->" } else { ">" };
                i = memchr::memmem::find(&bytes[i..], end.as_bytes()).map_or(bytes.len(), |e| i + e + end.len());
            }
            b'/' => {
                let end = memchr::memchr(b'>', &bytes[i..]).map_or(bytes.len(), |e| i + e + 1);
                let name = tag_name(&bytes[i + 1..end.min(bytes.len())]);
                // An end tag closes the innermost open element of its name
                // and everything inside it; a stray one closes nothing. The
                // search is bounded by the remembered names (not a tree walk).
                if depth <= open.len()
                    && let Some(at) = open.iter().rposition(|n| *n == name)
                {
                    for closed in open.drain(at..) {
                        depth -= 1;
                        if FOREIGN.contains(&closed.as_str()) {
                            foreign -= 1;
                        }
                    }
                }
                i = end;
            }
            b if b.is_ascii_alphabetic() => {
                let tag_start = i - 1;
                let (end, self_closing, attributes_seen) = tag_end(bytes, i);
                out.max_attributes = out.max_attributes.max(attributes_seen);
                let inner = &bytes[i..end.saturating_sub(1).max(i)];
                let name = tag_name(inner);
                out.elements += 1;
                in_head &= HEAD_ELEMENTS.contains(&name.as_str());
                // HTML ignores `/>` except on void elements, inside SVG and
                // MathML, and on an `<svg/>` or `<math/>` itself: `<div/>`
                // opens a div.
                let closes_itself = self_closing && (foreign > 0 || FOREIGN.contains(&name.as_str()));
                let nests = !VOID.contains(&name.as_str()) && !OPTIONAL_END.contains(&name.as_str()) && !closes_itself;
                if nests {
                    depth += 1;
                    out.max_depth = out.max_depth.max(depth);
                    if FOREIGN.contains(&name.as_str()) {
                        foreign += 1;
                    }
                    if open.len() < STACK_NAMES && depth == open.len() + 1 {
                        open.push(name.clone());
                    }
                }
                if (name == "meta" || name == "link") && out.head.len() < 500 {
                    out.head.push(HeadTag { tag: name.clone(), attrs: attributes(&inner[name.len()..]) });
                }
                if name == "html" && out.html_lang.is_none() {
                    out.html_lang = HeadTag { tag: name.clone(), attrs: attributes(&inner[name.len()..]) }
                        .attr("lang")
                        .map(str::to_string);
                }
                if name == "time" && out.times.len() < MAX_TIME_TAGS {
                    let tag = HeadTag { tag: name.clone(), attrs: attributes(&inner[name.len()..]) };
                    if tag.attr("datetime").is_some() {
                        out.times.push(tag);
                    }
                }
                let json_ld = name == "script"
                    && attributes(&inner[name.len()..]).iter().any(|(attr, value)| {
                        attr == "type" && value.trim().eq_ignore_ascii_case("application/ld+json")
                    });
                plaintext |= name == "plaintext";
                i = end;
                if RAW_TEXT.contains(&name.as_str()) && !closes_itself {
                    let closed = raw_text_end(bytes, i, &name);
                    let stop = closed.unwrap_or(bytes.len());
                    let code = (name == "script" && !json_ld) || name == "style";
                    if code
                        && closed.is_some()
                        && stop > i
                        && foreign == 0
                        && !plaintext
                        && out.code_bodies.len() < MAX_CODE_BODIES
                        && memchr::memmem::find(&bytes[i..stop], b"<!--").is_none()
                    {
                        out.code_bodies.push(i..stop);
                    }
                    if json_ld && out.json_ld.len() < MAX_JSON_LD_BLOCKS && stop - i <= MAX_JSON_LD_BYTES {
                        out.json_ld.push(html[i..stop].to_string());
                    }
                    if name == "title" && out.title.is_none() {
                        let text = decode_entities(&html[i..stop]);
                        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                        if !text.is_empty() {
                            out.title = Some(text);
                        }
                    }
                    // The end tag is read by the `/` branch, which closes the
                    // element. Scripts and styles are not text.
                    if name != "script" && name != "style" {
                        out.ampersand_work += ampersand_work(&bytes[i..stop]);
                    }
                    if name == "noscript" && in_head {
                        let close_end = memchr::memchr(b'>', &bytes[stop..]).map_or(bytes.len(), |e| stop + e + 1);
                        out.head_noscripts.push(tag_start..close_end);
                    }
                    i = stop;
                }
            }
            _ => {}
        }
        text_start = text_start.max(i.min(bytes.len()));
    }
    out
}

fn ampersand_work(text: &[u8]) -> u64 {
    let ampersands = memchr::memchr_iter(b'&', text).count() as u64;
    ampersands * text.len() as u64
}

/// The end of the tag starting at `start` (just past `>`), honouring quoted
/// attribute values, whether it is self-closing (`/>`), and how many
/// attributes it has (runs of name characters after white space).
///
/// As in the HTML tokenizer, a quote opens a value only right after `=`
/// (white space between allowed); elsewhere (`<a title=Don't>`) it is an
/// ordinary character, and must not make the rest of the page one tag.
pub(super) fn tag_end(bytes: &[u8], start: usize) -> (usize, bool, usize) {
    let mut i = start;
    let mut attributes = 0;
    let mut after_equals = false;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if after_equals && (b == b'"' || b == b'\'') {
            // A quoted value, `>` and white space in it included: its
            // closing quote is found at once.
            let Some(length) = memchr::memchr(b, &bytes[i + 1..]) else { break };
            i += length + 2;
            after_equals = false;
            continue;
        }
        after_equals = b == b'=';
        if b == b'>' {
            return (i + 1, i > start && bytes[i - 1] == b'/', attributes);
        }
        if !matches!(b, b'/' | b'=') && bytes[i - 1].is_ascii_whitespace() {
            attributes += 1;
        }
        i += 1;
    }
    (bytes.len(), false, attributes)
}

pub(super) fn tag_name(inner: &[u8]) -> String {
    let len = inner.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b':').count();
    String::from_utf8_lossy(&inner[..len]).to_ascii_lowercase()
}

pub(super) fn attributes(mut s: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        while let [b, rest @ ..] = s {
            if b.is_ascii_whitespace() || *b == b'/' { s = rest } else { break }
        }
        if s.is_empty() || out.len() >= 32 {
            return out;
        }
        let name_len = s.iter().take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b'=' | b'>' | b'/')).count();
        if name_len == 0 {
            s = &s[1..];
            continue;
        }
        let name = String::from_utf8_lossy(&s[..name_len]).to_ascii_lowercase();
        s = &s[name_len..];
        while let [b, rest @ ..] = s {
            if b.is_ascii_whitespace() { s = rest } else { break }
        }
        let mut value = String::new();
        if let [b'=', rest @ ..] = s {
            s = rest;
            while let [b, rest @ ..] = s {
                if b.is_ascii_whitespace() { s = rest } else { break }
            }
            let (raw, rest) = match s {
                [q @ (b'"' | b'\''), rest @ ..] => {
                    let end = rest.iter().position(|b| b == q).unwrap_or(rest.len());
                    (&rest[..end], &rest[(end + 1).min(rest.len())..])
                }
                _ => {
                    let end = s.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(s.len());
                    (&s[..end], &s[end..])
                }
            };
            value = decode_entities(&String::from_utf8_lossy(raw));
            s = rest;
        }
        out.push((name, value));
    }
}

/// Decodes the few entities that matter in titles and attribute values.
pub fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // Only the next few bytes can end an entity: searching further
        // would read the rest of the text again at every `&`.
        let end = rest.as_bytes().iter().take(11).position(|&b| b == b';');
        let decoded = end.and_then(|e| {
            let entity = &rest[1..e];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" | "#39" => Some('\''),
                "nbsp" => Some(' '),
                _ if entity.starts_with("#x") || entity.starts_with("#X") => {
                    u32::from_str_radix(&entity[2..], 16).ok().and_then(char::from_u32)
                }
                _ if entity.starts_with('#') => entity[1..].parse().ok().and_then(char::from_u32),
                _ => None,
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_depth_and_elements() {
        let s = scan("<html><body><div><div><p>a<p>b<br><img src=x></div></div></body></html>");
        assert_eq!(s.elements, 8);
        assert_eq!(s.max_depth, 4);
        let deep = "<div>".repeat(1000);
        assert_eq!(scan(&deep).max_depth, 1000);
    }

    #[test]
    fn reads_title_meta_and_links() {
        let s = scan(
            "<head><title>A &amp; B</title><meta name=robots content='noai, noimageai'>\
             <link rel=\"canonical\" href=\"/x?a=1&amp;b=2\"><script>if (a<b) {}</script></head>",
        );
        assert_eq!(s.title.as_deref(), Some("A & B"));
        assert_eq!(s.head[0].attr("content"), Some("noai, noimageai"));
        assert_eq!(s.head[1].attr("href"), Some("/x?a=1&b=2"));
        assert_eq!(s.head.len(), 2);
    }

    #[test]
    fn quoted_gt_and_comments_do_not_confuse_it() {
        let s = scan("<!-- <div><div> --><a title=\"x > y\" href=/z>t</a>");
        assert_eq!((s.elements, s.max_depth), (1, 1));
    }

    #[test]
    fn a_stray_quote_in_a_tag_does_not_swallow_the_page() {
        // Seen on real pages: an apostrophe in an unquoted value, a quote in
        // an attribute name. Neither opens a quoted value.
        let page = "<p><a title=Don't href=/a>x</a> It's a page with many words in its text.</p>\
                    <img alt=\"a\" b\"=1 src=x> More words here, and 'quoted' ones too.</p>";
        let s = scan(page);
        assert!(s.max_attributes <= 3, "{}", s.max_attributes);
        assert_eq!(s.elements, 3);
        // Quoted values still hide `>` and white space.
        assert_eq!(scan("<a title = 'x > y z w' href=/z>t</a>").max_attributes, 2);
    }

    #[test]
    fn script_and_style_contents_are_listed_where_the_tokenizer_ends_them_too() {
        let listed = |page: &str| -> Vec<String> {
            scan(page).code_bodies.iter().map(|range| page[range.clone()].to_string()).collect()
        };
        // Scripts and styles, whatever the case of their end tags.
        assert_eq!(
            listed("<style>p{}</STYLE ><p>Text</p><script>if (a<b) x()</script\n><script src=x></script>"),
            ["p{}", "if (a<b) x()"]
        );
        // `</scripts` does not end a script: the content runs to the real end.
        assert_eq!(listed("<script>a = '</scripts>';</script><p>T</p>"), ["a = '</scripts>';"]);
        // JSON-LD is read from the tree's source too; it stays.
        assert!(listed("<script type='application/ld+json'>{}</script>").is_empty());
        // Where the tokenizer may end it elsewhere, nothing is cut: an
        // escaped script, a script in SVG, one without its end tag, and
        // every one after a `<plaintext>`.
        for page in [
            "<script><!-- document.write('<script>x</script>') --></script><p>T</p>",
            "<svg><script><![CDATA[ '</script>' ]]></script></svg>",
            "<p>T</p><script>x = 1;",
            "<p>T</p><script>x = 1;</script",
            "<plaintext><script>x</script>",
        ] {
            assert!(listed(page).is_empty(), "{page}");
        }
        // `/>` does not close an HTML element: `<script/>` opens a script.
        assert_eq!(listed("<script/>x()</script><p>T</p>"), ["x()"]);
        // `<svg/>` closes itself: the page after it is not in SVG.
        assert_eq!(listed("<p><svg/><script>x()</script></p>"), ["x()"]);
        assert_eq!(scan("<svg/><math/><div>").max_depth, 1);
        // A script inside raw text (an iframe's) is not a script.
        assert!(listed("<iframe><script></iframe><p>Text</p></script>").is_empty());
        // Bounded in number.
        let many = "<script>x</script>".repeat(MAX_CODE_BODIES + 10);
        assert_eq!(scan(&many).code_bodies.len(), MAX_CODE_BODIES);
    }

    #[test]
    fn find_ci_ignores_case_of_every_byte() {
        assert_eq!(find_ci(b"xx</ScRiPt>", b"</script"), Some(2));
        assert_eq!(find_ci(b"aXyz", b"xyz"), Some(1));
        assert_eq!(find_ci(b"</scrip", b"</script"), None);
        assert_eq!(find_ci(b"abc", b""), None);
    }

    #[test]
    fn the_heads_noscripts_are_found_and_the_bodys_are_not() {
        let pixel = "<noscript><img src='https://t.test/p?a=1&amp;b=2'></noscript>";
        let page = format!("<html><head><title>T</title>{pixel}<meta name=a></head><body><p>Text.</p>{pixel}</body>");
        let found = scan(&page);
        assert_eq!(found.head_noscripts.len(), 1);
        assert_eq!(&page[found.head_noscripts[0].clone()], pixel);
        // No `<head>` tags at all: the first `<p>` begins the body.
        assert!(scan(&format!("<p>Text.</p>{pixel}")).head_noscripts.is_empty());
        // An unclosed one runs to the end, as the tree builder reads it.
        let unclosed = "<head><noscript><img src=x>";
        assert_eq!(scan(unclosed).head_noscripts, vec![std::ops::Range { start: 6, end: unclosed.len() }]);
    }
}
