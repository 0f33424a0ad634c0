//! PDFs that attack the reader rather than the page budget: objects nested
//! thousands deep, page trees that are deep or are graphs, fonts sharing
//! one stream that inflates to hundreds of megabytes, and `bfrange` lines
//! that each expand to thousands of codes. Each is a few kilobytes to a
//! few megabytes; each has one page (or leaf) that shows text in a font.
//!
//! ```
//! let pdf = webcanon_test::pdf::bombs::page_graph(4);
//! assert!(pdf.starts_with(b"%PDF-1.4"));
//! ```

use std::fmt::Write as _;
use std::io::Write as _;

use super::{compressed_stream, stream, write_file};

/// The standard font every page here shows its text in.
const HELVETICA: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// An array nested `depth` deep: `[[[…]]]`.
fn nested_array(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// A page (object 3, under the page tree 2) with `resources` and the
/// content `Bombed.` (object 4), the catalog first: the first four
/// objects of a one-page file.
fn one_page(resources: &str) -> Vec<Vec<u8>> {
    vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {resources} /Contents 4 0 R >>")
            .into_bytes(),
        stream("", b"BT /F1 12 Tf 72 720 Td (Bombed.) Tj ET"),
    ]
}

/// A page whose `/Resources` holds an array nested `depth` deep.
pub fn nested_resources(depth: usize) -> Vec<u8> {
    let objects = one_page(&format!("<< /Font << /F1 {HELVETICA} >> /Deep {} >>", nested_array(depth)));
    write_file(&objects, None, None)
}

/// A document information dictionary that holds an array nested `depth`
/// deep (beside its `/Title`).
pub fn nested_info(depth: usize) -> Vec<u8> {
    let mut objects = one_page(&format!("<< /Font << /F1 {HELVETICA} >> >>"));
    objects.push(format!("<< /Title (Deep) /Deep {} >>", nested_array(depth)).into_bytes());
    let info = objects.len();
    write_file(&objects, Some(info), None)
}

/// A page tree of `levels` `/Pages` nodes, each the only kid of the one
/// before, over one page.
pub fn nested_page_tree(levels: usize) -> Vec<u8> {
    // 1 catalog, 2 content, 3 the page, nodes from 4 (the root).
    let first = 4;
    let mut objects = vec![
        format!("<< /Type /Catalog /Pages {first} 0 R >>").into_bytes(),
        stream("", b"BT /F1 12 Tf 72 720 Td (Deep.) Tj ET"),
        format!(
            "<< /Type /Page /Parent {} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {HELVETICA} >> >> /Contents 2 0 R >>",
            first + levels - 1
        )
        .into_bytes(),
    ];
    for level in 0..levels {
        let id = first + level;
        let kid = if level + 1 == levels { 3 } else { id + 1 };
        let parent = if level == 0 { String::new() } else { format!(" /Parent {} 0 R", id - 1) };
        objects.push(format!("<< /Type /Pages /Kids [{kid} 0 R] /Count 1{parent} >>").into_bytes());
    }
    write_file(&objects, None, None)
}

/// A page tree that is a graph: `levels` `/Pages` nodes, each listing the
/// next twice, so that a walk finds 2^`levels` leaves (all one page) in a
/// file of a few kilobytes.
pub fn page_graph(levels: u32) -> Vec<u8> {
    let first = 4;
    let last = first + levels as usize - 1;
    let mut objects = vec![
        format!("<< /Type /Catalog /Pages {first} 0 R >>").into_bytes(),
        stream("", b"BT /F1 12 Tf 72 720 Td (Again.) Tj ET"),
        format!(
            "<< /Type /Page /Parent {last} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {HELVETICA} >> >> /Contents 2 0 R >>"
        )
        .into_bytes(),
    ];
    for level in 0..levels {
        let id = first + level as usize;
        let kid = if id == last { 3 } else { id + 1 };
        let count = 1u64 << (levels - level);
        objects.push(format!("<< /Type /Pages /Kids [{kid} 0 R {kid} 0 R] /Count {count} >>").into_bytes());
    }
    write_file(&objects, None, None)
}

/// `fonts` non-subset Type1 fonts whose `/ToUnicode` is one FlateDecode
/// stream of `mib` MiB of zeros (about a kilobyte a MiB once
/// compressed), all shown on one page.
pub fn shared_to_unicode(fonts: usize, mib: usize) -> Vec<u8> {
    let mut names = String::new();
    let mut content = String::from("BT 72 720 Td\n");
    for n in 1..=fonts {
        // Fonts from object 6; the shared stream is object 5.
        write!(names, " /F{n} {} 0 R", n + 5).unwrap();
        writeln!(content, "/F{n} 12 Tf (Shared {n}.) Tj").unwrap();
    }
    content.push_str("ET");
    let mut objects = one_page(&format!("<< /Font <<{names} >> >>"));
    objects[3] = stream("", content.as_bytes());
    let zeros = zeros_zlib(mib);
    let mut to_unicode = format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", zeros.len()).into_bytes();
    to_unicode.extend_from_slice(&zeros);
    to_unicode.extend_from_slice(b"\nendstream");
    objects.push(to_unicode);
    for n in 1..=fonts {
        objects.push(
            format!("<< /Type /Font /Subtype /Type1 /BaseFont /Font{n} /Encoding /WinAnsiEncoding /ToUnicode 5 0 R >>")
                .into_bytes(),
        );
    }
    write_file(&objects, None, None)
}

/// One font whose `/ToUnicode` CMap (compressed) has `lines` `bfrange`
/// lines, each from code 0 to 10,000: 10,001 codes a line.
pub fn bfrange_expansion(lines: usize) -> Vec<u8> {
    let mut cmap = String::from(
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n/CMapName /Bomb def\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n",
    );
    for block in 0..lines.div_ceil(100) {
        let count = (lines - block * 100).min(100);
        writeln!(cmap, "{count} beginbfrange").unwrap();
        for line in 0..count {
            writeln!(cmap, "<0000> <2710> <{:04X}>", 0x41 + (block * 100 + line) % 26).unwrap();
        }
        cmap.push_str("endbfrange\n");
    }
    cmap.push_str("endcmap CMapName currentdict /CMap defineresource pop end end\n");
    let mut objects = one_page("<< /Font << /F1 5 0 R >> >>");
    objects.push(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Ranged /Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>".to_vec(),
    );
    objects.push(compressed_stream("", cmap.as_bytes()));
    write_file(&objects, None, None)
}

/// A zlib stream of `mib` MiB of zeros, made from one compressed MiB
/// repeated (each MiB compressed alone, ending at a byte boundary), so
/// that hundreds of MiB cost a few milliseconds to write.
pub fn zeros_zlib(mib: usize) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    let chunk = vec![0u8; 1 << 20];
    let mut compress = Compress::new(Compression::best(), true);
    let mut piece = |input: &[u8], flush| {
        let mut out = Vec::with_capacity(64 << 10);
        compress.compress_vec(input, &mut out, flush).expect("compresses");
        out
    };
    // The first piece carries the zlib header; a full flush resets the
    // compressor, so every later MiB compresses to the same bytes.
    let head = piece(&chunk, FlushCompress::Full);
    let body = piece(&chunk, FlushCompress::Full);
    let mut tail = piece(&[], FlushCompress::Finish);
    // The compressor's checksum covers two MiB: this one covers them all
    // (Adler-32 of n zeros: a = 1, b = n mod 65521).
    tail.truncate(tail.len() - 4);
    let checksum = (((mib as u64) << 20) % 65_521) << 16 | 1;
    let mut out = head;
    for _ in 1..mib {
        out.extend_from_slice(&body);
    }
    out.extend_from_slice(&tail);
    out.write_all(&(checksum as u32).to_be_bytes()).expect("writes to a vector");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn many_mib_of_zeros_inflate_to_zeros() {
        let mut decoded = Vec::new();
        flate2::read::ZlibDecoder::new(zeros_zlib(5).as_slice()).read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded.len(), 5 << 20);
        assert!(decoded.iter().all(|&b| b == 0));
    }

    #[test]
    fn the_bombs_are_small_files() {
        assert!(page_graph(30).len() < 4_000);
        assert!(nested_resources(4_000).len() < 10_000);
        assert!(shared_to_unicode(8, 255).len() < 300_000);
        assert!(bfrange_expansion(600).len() < 20_000);
    }
}
