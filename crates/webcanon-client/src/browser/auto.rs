//! `--render auto`: which fetched pages are worth rendering.
//!
//! A page is rendered when the text extracted from its fetched HTML is
//! short and the HTML carries scripts: the shell of an application, whose
//! text arrives through scripts. The thresholds come from measurement
//! (`benches/README.md`, "Rendering: the auto rule").

/// The most characters of extracted text a page may have and still be
/// rendered under `auto`.
pub const AUTO_MAX_TEXT_CHARS: usize = 200;

/// The fewest `<script>` elements a page must have to be rendered under
/// `auto`.
pub const AUTO_MIN_SCRIPTS: usize = 1;

/// Whether `auto` renders a page whose fetched HTML is `html` and whose
/// extracted text, as plain text without links or images, is `text`.
///
/// ```
/// use webcanon_client::browser::wants_render;
///
/// let shell = br#"<html><body><div id="app"></div><script src="/app.js"></script></body></html>"#;
/// assert!(wants_render(shell, ""));
/// let article = b"<html><body><article><p>Words.</p></article></body></html>";
/// assert!(!wants_render(article, "Words."));
/// ```
pub fn wants_render(html: &[u8], text: &str) -> bool {
    main_text_chars(text) <= AUTO_MAX_TEXT_CHARS && count_scripts(html) >= AUTO_MIN_SCRIPTS
}

/// The letters and digits of `text`: what the rule counts (white space,
/// punctuation and markup do not make a page readable).
pub fn main_text_chars(text: &str) -> usize {
    text.chars().filter(|c| c.is_alphanumeric()).count()
}

/// `<script` start tags, in any case.
pub fn count_scripts(html: &[u8]) -> usize {
    let finder = memchr::memmem::Finder::new(b"<");
    finder
        .find_iter(html)
        .filter(|&at| html.get(at + 1..at + 7).is_some_and(|name| name.eq_ignore_ascii_case(b"script")))
        .filter(|&at| html.get(at + 7).is_none_or(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/'))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_counted_in_any_case_and_not_by_prefix() {
        let rows: &[(&[u8], usize)] = &[
            (b"", 0),
            (b"<script>x</script>", 1),
            (b"<SCRIPT src=a></SCRIPT><script\nsrc=b>", 2),
            (b"<scripts></scripts><noscript></noscript>", 0),
            (b"<script", 1),
        ];
        for (html, count) in rows {
            assert_eq!(count_scripts(html), *count, "{}", String::from_utf8_lossy(html));
        }
    }
}
