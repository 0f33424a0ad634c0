//! The shape of the content an agent receives: Markdown or plain text,
//! links inline, as numbered references or dropped, images kept or dropped.
//!
//! Link and image addresses are a large share of a page's Markdown (about
//! a sixth of the characters on real news pages), and an LLM's context
//! window pays for each. The default keeps the text readable and every
//! link followable at the least cost: Markdown, links as numbered
//! references listed once at the end (a page that links one address five
//! times lists it once), images dropped.
//!
//! | shape | what the reader sees |
//! |---|---|
//! | `links: inline` | `[text](https://…)` where the link is |
//! | `links: references` (default) | `[text][1]` … and `[1]: https://…` at the end |
//! | `links: drop` | `text` |
//! | `images: keep` | `![alt](https://…)` |
//! | `images: drop` (default) | nothing |
//! | `format: text` | headings, emphasis and fences as plain lines; links as `text (https://…)`, `text [1]` or `text` |

use std::collections::HashMap;
use std::fmt::Write;

use crate::syntax::{self, EMPTIED, Link, Stretch, rewrite_links};

/// Markdown or plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContentFormat {
    /// Markdown (the default).
    #[default]
    Markdown,
    /// Plain text: no Markdown syntax.
    Text,
}

/// What becomes of links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LinkStyle {
    /// Where they are: `[text](url)`.
    Inline,
    /// Numbered, each address listed once at the end (the default).
    #[default]
    References,
    /// Their text only.
    Drop,
}

/// What becomes of images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ImageStyle {
    /// `![alt](url)`.
    Keep,
    /// Removed (the default).
    #[default]
    Drop,
}

/// A shape value that is not one of the spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown value `{given}`, expected one of {expected}")]
pub struct UnknownValue {
    given: String,
    expected: &'static str,
}

impl UnknownValue {
    /// `given` is not one of `expected` (the spellings, as a phrase).
    pub(crate) fn new(given: &str, expected: &'static str) -> UnknownValue {
        UnknownValue { given: given.to_string(), expected }
    }
}

/// `FromStr` by the JSON spelling, for every face that takes the value as
/// a string (a flag, a keyword argument).
macro_rules! spelled {
    ($name:ident, $expected:literal, { $($text:literal => $variant:ident,)+ }) => {
        impl std::str::FromStr for $name {
            type Err = UnknownValue;

            fn from_str(given: &str) -> Result<$name, UnknownValue> {
                match given {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownValue { given: given.to_string(), expected: $expected }),
                }
            }
        }
    };
}

spelled!(ContentFormat, "`markdown`, `text`", { "markdown" => Markdown, "text" => Text, });
spelled!(LinkStyle, "`inline`, `references`, `drop`", { "inline" => Inline, "references" => References, "drop" => Drop, });
spelled!(ImageStyle, "`keep`, `drop`", { "keep" => Keep, "drop" => Drop, });

/// The shape of the content (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default, deny_unknown_fields)]
pub struct ContentShape {
    /// Markdown or plain text.
    pub format: ContentFormat,
    /// What becomes of links.
    pub links: LinkStyle,
    /// What becomes of images.
    pub images: ImageStyle,
}

impl ContentShape {
    /// The Markdown as the page converts to it: links inline, images kept.
    pub const AS_CONVERTED: ContentShape =
        ContentShape { format: ContentFormat::Markdown, links: LinkStyle::Inline, images: ImageStyle::Keep };

    /// This shape with a request's own choices where it makes them: what
    /// each face does with the optional `format`, `links` and `images` of
    /// one request over the client's default shape.
    ///
    /// ```
    /// use webcanon_extract::shape::{ContentShape, ContentFormat, LinkStyle};
    ///
    /// let shape = ContentShape::default().overridden(Some(ContentFormat::Text), None, None);
    /// assert_eq!(shape.format, ContentFormat::Text);
    /// assert_eq!(shape.links, ContentShape::default().links);
    /// ```
    pub fn overridden(
        self,
        format: Option<ContentFormat>,
        links: Option<LinkStyle>,
        images: Option<ImageStyle>,
    ) -> ContentShape {
        ContentShape {
            format: format.unwrap_or(self.format),
            links: links.unwrap_or(self.links),
            images: images.unwrap_or(self.images),
        }
    }

    /// Gives `markdown` this shape. Code blocks and inline code are left as
    /// they are.
    ///
    /// ```
    /// use webcanon_extract::shape::{ContentShape, LinkStyle, ImageStyle, ContentFormat};
    ///
    /// let page = "See [the guide](https://x.test/g) and [it again](https://x.test/g).\n\n![A chart](https://x.test/c.png)";
    /// assert_eq!(
    ///     ContentShape::default().apply(page),
    ///     "See [the guide][1] and [it again][1].\n\n[1]: https://x.test/g"
    /// );
    /// let text = ContentShape { format: ContentFormat::Text, links: LinkStyle::Inline, images: ImageStyle::Drop };
    /// assert_eq!(text.apply("## Title\n\nSome **bold** [link](https://x.test/)."), "Title\n\nSome bold link (https://x.test/).");
    /// ```
    pub fn apply(&self, markdown: &str) -> String {
        if *self == ContentShape::AS_CONVERTED {
            return markdown.to_string();
        }
        let mut references = References::default();
        let mut out = String::with_capacity(markdown.len());
        for stretch in syntax::stretches(markdown) {
            match stretch {
                Stretch::Code(code) => match self.format {
                    ContentFormat::Markdown => out.push_str(code),
                    // The code's lines without the fence lines.
                    ContentFormat::Text => out.push_str(syntax::fenced_code(code)),
                },
                Stretch::Text(text) => out.push_str(&self.text_stretch(text, &mut references)),
            }
        }
        if self.format == ContentFormat::Markdown && out == markdown {
            // Nothing to reshape: the content as it came, to the byte.
            return out;
        }
        let mut out = collapse_blank_lines(&out);
        if !references.urls.is_empty() {
            out.push_str("\n\n");
            for (n, url) in references.urls.iter().enumerate() {
                match self.format {
                    ContentFormat::Markdown => writeln!(out, "[{}]: {url}", n + 1),
                    ContentFormat::Text => writeln!(out, "[{}] {url}", n + 1),
                }
                .expect("writing to a String cannot fail");
            }
            out.truncate(out.trim_end().len());
        }
        out
    }

    /// Text between fences shaped: its links (whose text may run over
    /// line breaks) rewritten, then, as text, each line's syntax removed.
    /// A line that shaping leaves with nothing (it held only an image, or
    /// only a rule in text) is dropped with it; blank lines stay.
    fn text_stretch(&self, text: &str, references: &mut References) -> String {
        // Addresses are set aside while the Markdown syntax is removed, so
        // that their `_` and `*` survive; links and images shaped to
        // nothing leave a mark, so that a line that held only them is told
        // from one that was blank.
        let mut addresses: Vec<String> = Vec::new();
        let linked = rewrite_links(text, &mut |link: Link<'_>| {
            let shaped = self.link(link, references);
            if shaped.is_empty() {
                return EMPTIED.to_string();
            }
            if self.format == ContentFormat::Markdown {
                return shaped;
            }
            match shaped.rfind(" (") {
                Some(at) if (shaped.ends_with(')') && self.links == LinkStyle::Inline) || link_is_image(&shaped) => {
                    addresses.push(shaped[at + 2..shaped.len() - 1].to_string());
                    format!("{} ({ADDRESS}{}{ADDRESS})", &shaped[..at], addresses.len() - 1)
                }
                _ => shaped,
            }
        });
        let mut out = String::with_capacity(linked.len());
        for line in linked.split_inclusive('\n') {
            if line.trim().is_empty() {
                out.push_str(line);
                continue;
            }
            let shaped = match self.format {
                ContentFormat::Markdown => line.replace(EMPTIED, ""),
                ContentFormat::Text => plain(line).replace(EMPTIED, ""),
            };
            if !shaped.trim().is_empty() {
                out.push_str(&shaped);
            }
        }
        for (n, address) in addresses.iter().enumerate() {
            out = out.replacen(&format!("{ADDRESS}{n}{ADDRESS}"), address, 1);
        }
        out
    }

    fn link(&self, link: Link<'_>, references: &mut References) -> String {
        let text = link.text.trim();
        // Markdown keeps the target as written; text shows the address
        // itself, its escapes undone.
        let url = match self.format {
            ContentFormat::Markdown => std::borrow::Cow::Borrowed(link.url),
            ContentFormat::Text => syntax::target_address(link.url),
        };
        if link.image {
            return match (self.images, self.format) {
                (ImageStyle::Drop, _) => String::new(),
                (ImageStyle::Keep, ContentFormat::Markdown) => format!("![{text}]({url})"),
                (ImageStyle::Keep, ContentFormat::Text) if text.is_empty() => format!("[image]({url})"),
                (ImageStyle::Keep, ContentFormat::Text) => format!("[image: {text}] ({url})"),
            };
        }
        if text.is_empty() {
            return String::new();
        }
        match (self.links, self.format) {
            (LinkStyle::Drop, _) => text.to_string(),
            (LinkStyle::Inline, ContentFormat::Markdown) => format!("[{text}]({url})"),
            (LinkStyle::Inline, ContentFormat::Text) => format!("{text} ({url})"),
            (LinkStyle::References, ContentFormat::Markdown) => format!("[{text}][{}]", references.number(&url)),
            (LinkStyle::References, ContentFormat::Text) => format!("{text} [{}]", references.number(&url)),
        }
    }
}

/// Marks an address set aside in a plain-text line (a private-use
/// character, which no page's text holds by rights).
const ADDRESS: char = '\u{E000}';

/// Whether a plain-text link is an image's (`[image: alt] (url)`).
fn link_is_image(shaped: &str) -> bool {
    shaped.starts_with("[image") && shaped.ends_with(')')
}

/// Addresses numbered in order of first use.
#[derive(Default)]
struct References {
    urls: Vec<String>,
    numbers: HashMap<String, usize>,
}

impl References {
    fn number(&mut self, url: &str) -> usize {
        if let Some(&n) = self.numbers.get(url) {
            return n;
        }
        self.urls.push(url.to_string());
        self.numbers.insert(url.to_string(), self.urls.len());
        self.urls.len()
    }
}

/// One Markdown line as plain text: heading and quote markers, emphasis and
/// escapes removed; list bullets become `- `.
fn plain(line: &str) -> String {
    let body = line.trim_end_matches(['\n', '\r']);
    let newline = &line[body.len()..];
    let indent = &body[..body.len() - body.trim_start().len()];
    let mut s = body.trim_start();
    if matches!(s.trim(), "* * *" | "***" | "---" | "- - -" | "___") {
        return newline.to_string();
    }
    let mut prefix = String::new();
    for marker in ["*   ", "* ", "+   ", "+ ", "-   "] {
        if let Some(rest) = s.strip_prefix(marker) {
            prefix.push_str("- ");
            s = rest;
            break;
        }
    }
    // A heading may stand in a list item (`*   ## Headline`, a link
    // around a teaser's heading): its marker goes too.
    let hashes = s.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && s[hashes..].starts_with(' ') {
        s = s[hashes..].trim_start();
    }
    let mut text = String::with_capacity(s.len());
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\\' if i + 1 < bytes.len() && bytes[i + 1].is_ascii_punctuation() => {
                text.push(char::from(bytes[i + 1]));
                i += 2;
                continue;
            }
            b'*' | b'_' => {
                let run = bytes[i..].iter().take_while(|&&c| c == b).count();
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + run).copied();
                let word = |c: Option<u8>| c.is_some_and(|c| c.is_ascii_alphanumeric());
                // `snake_case` keeps its underscores; emphasis markers go.
                if b == b'_' && word(before) && word(after) {
                    text.push_str(&s[i..i + run]);
                }
                i += run;
                continue;
            }
            _ => {}
        }
        let ch = s[i..].chars().next().expect("i is on a char boundary");
        text.push(ch);
        i += ch.len_utf8();
    }
    format!("{indent}{prefix}{text}{newline}")
}

/// At most one blank line in a row, none at the ends.
fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# Guide\n\nRead [the **docs**](https://x.test/d) or [this (one)](https://x.test/a_(b) \"T\").\n\n\
                        ![Chart](https://x.test/c.png)\n\n[![Logo](https://x.test/l.png)](https://x.test/)\n\n\
                        *   Item with [docs](https://x.test/d)\n\n```\nlet a = [x](y);\n```\n\nUse `[a](b)` literally.";

    fn shape(format: ContentFormat, links: LinkStyle, images: ImageStyle) -> ContentShape {
        ContentShape { format, links, images }
    }

    #[test]
    fn every_shape_of_one_page() {
        use ContentFormat::*;
        use ImageStyle::{Drop as NoImages, Keep};
        use LinkStyle::{Drop as NoLinks, Inline, References};
        let rows: &[(ContentShape, &str)] = &[
            (shape(Markdown, Inline, Keep), PAGE),
            (
                shape(Markdown, References, NoImages),
                "# Guide\n\nRead [the **docs**][1] or [this (one)][2].\n\n[Logo][3]\n\n*   Item with [docs][1]\n\n\
                 ```\nlet a = [x](y);\n```\n\nUse `[a](b)` literally.\n\n\
                 [1]: https://x.test/d\n[2]: https://x.test/a_(b)\n[3]: https://x.test/",
            ),
            (
                shape(Markdown, NoLinks, Keep),
                "# Guide\n\nRead the **docs** or this (one).\n\n![Chart](https://x.test/c.png)\n\n\
                 ![Logo](https://x.test/l.png)\n\n*   Item with docs\n\n```\nlet a = [x](y);\n```\n\nUse `[a](b)` literally.",
            ),
            (
                shape(Text, Inline, NoImages),
                "Guide\n\nRead the docs (https://x.test/d) or this (one) (https://x.test/a_(b)).\n\n\
                 Logo (https://x.test/)\n\n- Item with docs (https://x.test/d)\n\nlet a = [x](y);\n\nUse `[a](b)` literally.",
            ),
            (
                shape(Text, References, NoImages),
                "Guide\n\nRead the docs [1] or this (one) [2].\n\nLogo [3]\n\n- Item with docs [1]\n\nlet a = [x](y);\n\n\
                 Use `[a](b)` literally.\n\n[1] https://x.test/d\n[2] https://x.test/a_(b)\n[3] https://x.test/",
            ),
        ];
        for (shape, expected) in rows {
            assert_eq!(shape.apply(PAGE), *expected, "{shape:?}");
        }
    }

    #[test]
    fn text_keeps_words_and_drops_syntax() {
        let text = shape(ContentFormat::Text, LinkStyle::Drop, ImageStyle::Drop);
        assert_eq!(
            text.apply("6\\. snake_case and *em* and __strong__\n\n* * *\n\n> quoted"),
            "6. snake_case and em and strong\n\n> quoted"
        );
    }

    #[test]
    fn text_without_links_and_images_holds_no_markdown_of_them() {
        let text = shape(ContentFormat::Text, LinkStyle::Drop, ImageStyle::Drop);
        let rows: &[(&str, &str)] = &[
            // A link around a teaser's heading, in a list item.
            ("*   [## Head\n\n    teaser](https://x.test/x)", "- Head\n\n    teaser"),
            // A link's text over a line break and over blank lines.
            (
                "[line  \nbreak](https://x.test/x) and [para one\n\npara two](https://x.test/y)",
                "line\nbreak and para one\n\npara two",
            ),
            // Targets with escaped parentheses, paired or not.
            ("[open](https://x.test/x\\() and [pair](https://x.test/a_(b))", "open and pair"),
            // An image whose alt text holds escaped brackets.
            ("Before ![a\\]b](https://x.test/i.png) after", "Before  after"),
        ];
        for (markdown, expected) in rows {
            assert_eq!(text.apply(markdown), *expected, "{markdown:?}");
        }
        let inline = shape(ContentFormat::Text, LinkStyle::Inline, ImageStyle::Drop);
        assert_eq!(inline.apply("[open](https://x.test/x\\()"), "open (https://x.test/x()");
    }

    #[test]
    fn what_does_not_parse_is_left_alone() {
        let s = ContentShape::default();
        for line in ["[not a link]", "[open](no close", "a ] b [ c", "\\[escaped](x)"] {
            assert_eq!(s.apply(line), line);
        }
    }

    #[test]
    fn strings_parse_by_the_json_spelling() {
        for style in [LinkStyle::Inline, LinkStyle::References, LinkStyle::Drop] {
            let spelled = serde_json::to_value(style).unwrap();
            assert_eq!(spelled.as_str().unwrap().parse::<LinkStyle>(), Ok(style));
        }
        assert_eq!("text".parse::<ContentFormat>(), Ok(ContentFormat::Text));
        assert_eq!("keep".parse::<ImageStyle>(), Ok(ImageStyle::Keep));
        let err = "footnotes".parse::<LinkStyle>().unwrap_err();
        assert_eq!(err.to_string(), "unknown value `footnotes`, expected one of `inline`, `references`, `drop`");
    }

    #[test]
    fn hostile_lines_cost_linear_time_and_bounded_depth() {
        let s = ContentShape::default();
        // A megabyte of brackets that open no link: each try would scan on
        // to the end of the line.
        // Only the last bracket opens a link, with no text: dropped.
        let unmatched = format!("{}](x)", "[".repeat(1_000_000));
        let started = std::time::Instant::now();
        assert_eq!(s.apply(&unmatched), "[".repeat(999_999));
        // Links nested a hundred thousand deep: no stack overflow.
        let nested = format!("{}x{}", "[".repeat(100_000), "](u)".repeat(100_000));
        assert!(!s.apply(&nested).is_empty());
        // Quadratic work would take hours on these; linear takes milliseconds.
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "{:?}", started.elapsed());
    }

    #[test]
    fn shapes_travel_as_snake_case_json() {
        let json = serde_json::to_value(ContentShape::default()).unwrap();
        assert_eq!(json, serde_json::json!({"format": "markdown", "links": "references", "images": "drop"}));
        let partial: ContentShape = serde_json::from_value(serde_json::json!({"links": "inline"})).unwrap();
        assert_eq!(partial, ContentShape { links: LinkStyle::Inline, ..ContentShape::default() });
        assert!(serde_json::from_value::<ContentShape>(serde_json::json!({"links": "footnotes"})).is_err());
    }
}
