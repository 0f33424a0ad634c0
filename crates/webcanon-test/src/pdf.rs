//! Small PDFs written byte by byte for tests: text pages in a standard
//! font (and code in a monospaced one), an information dictionary, and the hostile kinds (encrypted,
//! image only, no pages, a page tree that claims more pages than it has,
//! pages and forms with content streams of their own, compressed, such as
//! a few kilobytes that draw millions of characters).
//!
//! ```
//! let pdf = webcanon_test::pdf::PdfSpec::text(&[&["Hello, PDF."]]).title("Greeting").build();
//! assert!(pdf.starts_with(b"%PDF-1.4"));
//! ```

use std::fmt::Write;
use std::io::Write as _;

pub mod bombs;
pub mod samples;

/// What the PDF holds.
#[derive(Debug, Clone, Default)]
pub struct PdfSpec {
    pages: Vec<Page>,
    forms: Vec<Vec<u8>>,
    title: Option<String>,
    author: Option<String>,
    encrypted: bool,
    image_only: bool,
    claimed_pages: Option<u64>,
}

impl PdfSpec {
    /// Pages of text, each a list of lines, set in Helvetica 12 pt.
    pub fn text(pages: &[&[&str]]) -> PdfSpec {
        PdfSpec {
            pages: pages.iter().map(|p| Page::Lines(p.iter().map(|l| l.to_string()).collect())).collect(),
            ..PdfSpec::default()
        }
    }

    /// `count` pages, each with the one line `Page N of the long document.`
    pub fn numbered(count: usize) -> PdfSpec {
        PdfSpec {
            pages: (1..=count).map(|n| Page::Lines(vec![format!("Page {n} of the long document.")])).collect(),
            ..PdfSpec::default()
        }
    }

    /// `count` pages, each showing a gray image and no text (a scan).
    pub fn image_only(count: usize) -> PdfSpec {
        PdfSpec { pages: vec![Page::Lines(Vec::new()); count], image_only: true, ..PdfSpec::default() }
    }

    /// One more page of text lines.
    pub fn lines_page(mut self, lines: &[&str]) -> PdfSpec {
        self.pages.push(Page::Lines(lines.iter().map(|l| l.to_string()).collect()));
        self
    }

    /// One more page of lines set in Courier 10 pt (monospaced: code, a
    /// listing), their leading spaces kept.
    pub fn code_page(mut self, lines: &[&str]) -> PdfSpec {
        self.pages.push(Page::Code(lines.iter().map(|l| l.to_string()).collect()));
        self
    }

    /// One more page whose content stream is `content`, compressed
    /// (FlateDecode), with the resources every page has: the font `/F1`
    /// (Helvetica), the image `/Im1` and the forms `/Fm1`, `/Fm2`, ….
    pub fn drawn_page(mut self, content: &[u8]) -> PdfSpec {
        self.pages.push(Page::Drawn(content.to_vec()));
        self
    }

    /// One more page whose content stream is `content`, compressed with
    /// LZWDecode (the code size switched one code early, `/EarlyChange`
    /// 1, as PDF has it by default), with the resources of
    /// [`PdfSpec::drawn_page`].
    pub fn lzw_page(mut self, content: &[u8]) -> PdfSpec {
        self.pages.push(Page::Lzw(content.to_vec()));
        self
    }

    /// A form XObject, `/Fm1` for the first, whose content stream is
    /// `content`, compressed, with the resources of a page (so forms can
    /// draw forms, themselves included); every page has it.
    pub fn form(mut self, content: &[u8]) -> PdfSpec {
        self.forms.push(content.to_vec());
        self
    }

    /// The information dictionary's `Title`.
    pub fn title(mut self, title: &str) -> PdfSpec {
        self.title = Some(title.to_string());
        self
    }

    /// The information dictionary's `Author`.
    pub fn author(mut self, author: &str) -> PdfSpec {
        self.author = Some(author.to_string());
        self
    }

    /// An `/Encrypt` dictionary (standard handler, RC4 40-bit) whose
    /// password is not the empty one: unreadable without it.
    pub fn encrypted(mut self) -> PdfSpec {
        self.encrypted = true;
        self
    }

    /// The page tree's `/Count` claims `count` pages, whatever it holds.
    pub fn claiming_pages(mut self, count: u64) -> PdfSpec {
        self.claimed_pages = Some(count);
        self
    }

    /// The file.
    pub fn build(&self) -> Vec<u8> {
        // 1 catalog, 2 page tree, 3 font, 4 image, forms from 5; then pages.
        let mut objects: Vec<Vec<u8>> = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            Vec::new(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
            stream(
                "/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8",
                b"\x00\x80\x80\xff",
            ),
        ];
        let mut xobjects = String::from("/Im1 4 0 R");
        for n in 1..=self.forms.len() {
            write!(xobjects, " /Fm{n} {} 0 R", n + 4).unwrap();
        }
        for form in &self.forms {
            objects.push(compressed_stream(
                &format!(
                    "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << {xobjects} >> >>"
                ),
                form,
            ));
        }
        let mut kids = String::new();
        for page in &self.pages {
            let page_id = objects.len() + 1;
            let content_id = page_id + 1;
            write!(kids, "{page_id} 0 R ").unwrap();
            objects.push(
                format!(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 {COURIER} >> /XObject << {xobjects} >> >> /Contents {content_id} 0 R >>"
                )
                .into_bytes(),
            );
            objects.push(match page {
                Page::Lines(lines) => stream("", &self.content(lines)),
                Page::Code(lines) => stream("", &shown("/F2 10 Tf 12 TL", lines)),
                Page::Drawn(content) => compressed_stream("", content),
                Page::Lzw(content) => {
                    let mut encoder = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
                    stream("/Filter /LZWDecode", &encoder.encode(content).unwrap())
                }
            });
        }
        let count = self.claimed_pages.unwrap_or(self.pages.len() as u64);
        objects[1] = format!("<< /Type /Pages /Kids [{}] /Count {count} >>", kids.trim_end()).into_bytes();
        let info_id = self.info().map(|info| {
            objects.push(info.into_bytes());
            objects.len()
        });
        let encrypt_id = self.encrypted.then(|| {
            objects.push(
                format!(
                    "<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <{}> /U <{}> >>",
                    "ab".repeat(32),
                    "cd".repeat(32)
                )
                .into_bytes(),
            );
            objects.len()
        });
        write_file(&objects, info_id, encrypt_id)
    }

    fn content(&self, lines: &[String]) -> Vec<u8> {
        if self.image_only {
            return b"q 400 0 0 500 100 150 cm /Im1 Do Q".to_vec();
        }
        shown("/F1 12 Tf 14 TL", lines)
    }

    fn info(&self) -> Option<String> {
        if self.title.is_none() && self.author.is_none() {
            return None;
        }
        let mut info = String::from("<<");
        if let Some(title) = &self.title {
            write!(info, " /Title {}", literal(title)).unwrap();
        }
        if let Some(author) = &self.author {
            write!(info, " /Author {}", literal(author)).unwrap();
        }
        info.push_str(" >>");
        Some(info)
    }
}

/// The font `/F2` of every page: Courier, one of the standard fonts.
const COURIER: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>";

/// Content that shows `lines` one under the other from the top left, in
/// the font, size and leading `setting` gives (`/F1 12 Tf 14 TL`).
fn shown(setting: &str, lines: &[String]) -> Vec<u8> {
    let mut content = format!("BT {setting} 72 720 Td\n");
    for line in lines {
        content.push_str(&literal(line));
        content.push_str(" Tj T*\n");
    }
    content.push_str("ET");
    content.into_bytes()
}

/// What a page holds.
#[derive(Debug, Clone)]
enum Page {
    /// Lines of text.
    Lines(Vec<String>),
    /// Lines of code, in Courier.
    Code(Vec<String>),
    /// A content stream of its own.
    Drawn(Vec<u8>),
    /// A content stream of its own, LZW-compressed.
    Lzw(Vec<u8>),
}

/// Content that shows `count` characters (`x`) in Helvetica at 1 pt, a
/// thousand to a string: a few kilobytes once compressed, whatever
/// `count`.
pub fn characters(count: usize) -> Vec<u8> {
    let mut content = b"BT /F1 1 Tf 10 10 Td\n".to_vec();
    let full = format!("({}) Tj\n", "x".repeat(1000));
    for _ in 0..count / 1000 {
        content.extend_from_slice(full.as_bytes());
    }
    content.extend_from_slice(format!("({}) Tj\nET", "x".repeat(count % 1000)).as_bytes());
    content
}

/// A PDF literal string of ASCII text, with `\`, `(` and `)` escaped.
fn literal(text: &str) -> String {
    let mut out = String::from("(");
    for c in text.chars() {
        if matches!(c, '\\' | '(' | ')') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(')');
    out
}

fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

fn compressed_stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    stream(&format!("{dict} /Filter /FlateDecode"), &encoder.finish().unwrap())
}

/// The objects (numbered from 1) with a cross-reference table and trailer.
fn write_file(objects: &[Vec<u8>], info: Option<usize>, encrypt: Option<usize>) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (index, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", index + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for offset in offsets {
        writeln!(table, "{offset:010} 00000 n ").unwrap();
    }
    write!(table, "trailer\n<< /Size {} /Root 1 0 R", objects.len() + 1).unwrap();
    if let Some(info) = info {
        write!(table, " /Info {info} 0 R").unwrap();
    }
    if let Some(encrypt) = encrypt {
        write!(table, " /Encrypt {encrypt} 0 R /ID [<{0}> <{0}>]", "12".repeat(16)).unwrap();
    }
    write!(table, " >>\nstartxref\n{xref}\n%%EOF\n").unwrap();
    out.extend_from_slice(table.as_bytes());
    out
}
