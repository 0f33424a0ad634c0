//! Which character encoding a body is in, and its text.
//!
//! The order a browser uses: a byte-order mark; the `charset` of the
//! `Content-Type` header; a `<meta charset>` or `http-equiv` declaration
//! in the first 1024 bytes; then, when nothing is declared, UTF-8 if the
//! bytes are valid UTF-8, else the encoding `chardetng` (Firefox's
//! detector) guesses from the bytes and the URL's top-level domain. Pages
//! in Shift_JIS, EUC-KR, GBK, windows-1251 or ISO-8859-x without a
//! declaration are common, and decoding them as UTF-8 replaces every
//! non-ASCII character.

use encoding_rs::Encoding;
use url::Url;

/// How many bytes the detector reads: enough for a confident guess, and a
/// bound on its cost whatever the body's size.
const DETECT_BYTES: usize = 256 * 1024;

/// Where the encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// A byte-order mark.
    Bom,
    /// The `Content-Type` header's `charset`.
    Header,
    /// A `<meta>` declaration near the top of the page.
    Meta,
    /// Nothing was declared and the bytes are valid UTF-8.
    Utf8,
    /// Nothing was declared; the detector guessed.
    Detected,
}

/// A decoded body.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The text (bytes invalid in the encoding replaced by U+FFFD).
    pub text: String,
    /// The encoding used.
    pub encoding: &'static Encoding,
    /// Where it came from.
    pub source: CharsetSource,
}

/// Decodes `body`, served with `content_type` from `url` (the URL's
/// top-level domain helps the detector).
///
/// ```
/// use webcanon_extract::charset::{decode, CharsetSource};
///
/// let declared = decode(b"caf\xe9", Some("text/plain; charset=windows-1252"), None);
/// assert_eq!((declared.text.as_str(), declared.source), ("café", CharsetSource::Header));
///
/// // Undeclared Russian text in windows-1251 ("Привет, мир" and more).
/// let body = "<p>Привет, мир! Это страница без объявленной кодировки.</p>";
/// let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(body);
/// let detected = decode(&bytes, Some("text/html"), None);
/// assert_eq!((detected.text.as_str(), detected.source), (body, CharsetSource::Detected));
/// ```
pub fn decode(body: &[u8], content_type: Option<&str>, url: Option<&Url>) -> Decoded {
    let (encoding, source) = sniff(body, content_type, url);
    // `decode` honours a BOM over the label, as browsers do.
    let (text, _, _) = encoding.decode(body);
    Decoded { text: text.into_owned(), encoding, source }
}

/// The encoding of `body` and where it came from, without decoding it.
pub fn sniff(body: &[u8], content_type: Option<&str>, url: Option<&Url>) -> (&'static Encoding, CharsetSource) {
    if let Some((encoding, _)) = Encoding::for_bom(body) {
        return (encoding, CharsetSource::Bom);
    }
    if let Some(encoding) = content_type.and_then(header_charset).and_then(|l| Encoding::for_label(l.as_bytes())) {
        return (encoding, CharsetSource::Header);
    }
    if let Some(encoding) = meta_charset(body).and_then(|l| Encoding::for_label(l.as_bytes())) {
        // A page cannot declare itself UTF-16 in ASCII; browsers read UTF-8.
        let encoding = if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
            encoding_rs::UTF_8
        } else {
            encoding
        };
        return (encoding, CharsetSource::Meta);
    }
    let head = &body[..body.len().min(DETECT_BYTES)];
    if valid_utf8_prefix(head, body.len() > DETECT_BYTES) {
        return (encoding_rs::UTF_8, CharsetSource::Utf8);
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(head, head.len() == body.len());
    let tld = url.and_then(Url::host_str).and_then(|h| h.rsplit('.').next()).map(str::as_bytes);
    (detector.guess(tld, true), CharsetSource::Detected)
}

/// Whether `head` is valid UTF-8; when it is cut from a longer body, a
/// character split at the cut does not count against it.
fn valid_utf8_prefix(head: &[u8], cut: bool) -> bool {
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => cut && e.error_len().is_none() && head.len() - e.valid_up_to() < 4,
    }
}

/// The `charset` parameter of a `Content-Type` value.
fn header_charset(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then(|| v.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// A `charset=` declaration in the first 1024 bytes (`<meta charset=…>` or
/// the `http-equiv` form's `content="…; charset=…"`).
fn meta_charset(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(1024)];
    let at = memchr::memmem::find(&head.to_ascii_lowercase(), b"charset=")?;
    let value: String = head[at + 8..]
        .iter()
        .skip_while(|b| matches!(b, b'"' | b'\'' | b' '))
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
        .map(|&b| char::from(b))
        .collect();
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
        encoding.encode(text).0.into_owned()
    }

    #[test]
    fn declared_encodings_win_in_browser_order() {
        let rows: &[(&[u8], Option<&str>, &str, CharsetSource)] = &[
            (b"caf\xe9", Some("text/plain; charset=windows-1252"), "café", CharsetSource::Header),
            (b"caf\xe9", Some("text/plain; charset=\"ISO-8859-1\""), "café", CharsetSource::Header),
            (b"\xef\xbb\xbfhi", Some("text/plain; charset=windows-1252"), "hi", CharsetSource::Bom),
            (
                b"<meta charset=shift_jis><p>\x82\xa0</p>",
                Some("text/html"),
                "<meta charset=shift_jis><p>\u{3042}</p>",
                CharsetSource::Meta,
            ),
            (
                b"<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; CHARSET=windows-1251\"><p>\xcf</p>",
                None,
                "<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; CHARSET=windows-1251\"><p>\u{41f}</p>",
                CharsetSource::Meta,
            ),
            (b"<meta charset=utf-16><p>x</p>", None, "<meta charset=utf-16><p>x</p>", CharsetSource::Meta),
            (b"plain \xc3\xa9", None, "plain \u{e9}", CharsetSource::Utf8),
        ];
        for (body, content_type, text, source) in rows {
            let decoded = decode(body, *content_type, None);
            assert_eq!((decoded.text.as_str(), decoded.source), (*text, *source), "{content_type:?}");
        }
    }

    #[test]
    fn undeclared_legacy_encodings_are_detected() {
        let url = |s: &str| Url::parse(s).unwrap();
        let rows: &[(&'static Encoding, &str, Option<Url>)] = &[
            (
                encoding_rs::SHIFT_JIS,
                "<p>日本語のページです。文字コードの宣言がありません。東京の天気は晴れです。</p>",
                Some(url("https://example.jp/")),
            ),
            (
                encoding_rs::EUC_KR,
                "<p>한국어 페이지입니다. 문자 인코딩 선언이 없습니다. 서울의 날씨는 맑습니다.</p>",
                Some(url("https://example.kr/")),
            ),
            (
                encoding_rs::GBK,
                "<p>这是一个中文网页，没有声明字符编码。北京今天天气晴朗，适合出门散步。</p>",
                Some(url("https://example.cn/")),
            ),
            (
                encoding_rs::WINDOWS_1251,
                "<p>Это русская страница без объявленной кодировки. Погода в Москве хорошая.</p>",
                None,
            ),
            (
                encoding_rs::WINDOWS_1252,
                "<p>Une page française sans déclaration : l'été à Genève, café crème et crêpes.</p>",
                None,
            ),
            (
                encoding_rs::ISO_8859_2,
                "<p>Strona po polsku bez deklaracji kodowania. Zażółć gęślą jaźń, mówią w Łodzi.</p>",
                Some(url("https://example.pl/")),
            ),
        ];
        for (encoding, text, url) in rows {
            let bytes = encode(encoding, text);
            let decoded = decode(&bytes, Some("text/html"), url.as_ref());
            assert_eq!(decoded.source, CharsetSource::Detected, "{}", encoding.name());
            assert_eq!(decoded.text, *text, "{} guessed as {}", encoding.name(), decoded.encoding.name());
        }
    }

    #[test]
    fn a_utf8_character_cut_at_the_detection_limit_is_still_utf8() {
        let mut body = "a".repeat(DETECT_BYTES - 1).into_bytes();
        body.extend_from_slice("é and more text".as_bytes());
        assert_eq!(sniff(&body, None, None), (encoding_rs::UTF_8, CharsetSource::Utf8));
    }
}
