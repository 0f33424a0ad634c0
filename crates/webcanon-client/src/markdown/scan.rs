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
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "title", "xmp", "noscript"];

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
    /// The deepest nesting seen.
    pub max_depth: usize,
    /// The text of the first `<title>`.
    pub title: Option<String>,
    /// Every `<meta>` and `<link>` (at most 500).
    pub head: Vec<HeadTag>,
}

fn find_ci(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle))
}

/// Scans `html` once. Stops counting nothing: the caller compares the
/// counts with its caps.
pub fn scan(html: &str) -> Scan {
    let bytes = html.as_bytes();
    let mut out = Scan::default();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[i..]) {
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
                if !name.is_empty() && !OPTIONAL_END.contains(&name.as_str()) && !VOID.contains(&name.as_str()) {
                    depth = depth.saturating_sub(1);
                }
                i = end;
            }
            b if b.is_ascii_alphabetic() => {
                let (end, self_closing) = tag_end(bytes, i);
                let inner = &bytes[i..end.saturating_sub(1).max(i)];
                let name = tag_name(inner);
                out.elements += 1;
                let nests = !VOID.contains(&name.as_str()) && !OPTIONAL_END.contains(&name.as_str()) && !self_closing;
                if nests {
                    depth += 1;
                    out.max_depth = out.max_depth.max(depth);
                }
                if (name == "meta" || name == "link") && out.head.len() < 500 {
                    out.head.push(HeadTag { tag: name.clone(), attrs: attributes(&inner[name.len()..]) });
                }
                i = end;
                if RAW_TEXT.contains(&name.as_str()) && !self_closing {
                    let close = format!("</{name}");
                    let stop = find_ci(&bytes[i..], close.as_bytes()).map_or(bytes.len(), |e| i + e);
                    if name == "title" && out.title.is_none() {
                        let text = decode_entities(&html[i..stop]);
                        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                        if !text.is_empty() {
                            out.title = Some(text);
                        }
                    }
                    // The end tag is read by the `/` branch, which closes the element.
                    i = stop;
                }
            }
            _ => {}
        }
    }
    out
}

/// The end of the tag starting at `start` (just past `>`), honouring quoted
/// attribute values, and whether it is self-closing (`/>`).
fn tag_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut quote = None;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return (i + 1, i > start && bytes[i - 1] == b'/'),
            None => {}
        }
        i += 1;
    }
    (bytes.len(), false)
}

fn tag_name(inner: &[u8]) -> String {
    let len = inner.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b':').count();
    String::from_utf8_lossy(&inner[..len]).to_ascii_lowercase()
}

fn attributes(mut s: &[u8]) -> Vec<(String, String)> {
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
        let end = rest.find(';').filter(|&e| e <= 10);
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
}
