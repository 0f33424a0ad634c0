//! The PDFs that the extraction's tests and the client's tests both read:
//! the conversion is tested on them in webcanon-extract, and the same
//! files are fetched through the client's policy path.
//!
//! ```
//! let pdf = webcanon_test::pdf::samples::report();
//! assert!(pdf.starts_with(b"%PDF-1.4"));
//! ```

use super::{PdfSpec, characters};

/// A two-page report with a title and an author, a word hyphenated across
/// two lines, and a Markdown character (`*`) to escape.
pub fn report() -> Vec<u8> {
    PdfSpec::text(&[
        &[
            "Quarterly report on the state of the robots.txt files seen by",
            "the crawler, with a word that is hyphen-",
            "ated across two lines.",
        ],
        &["The second page has its own text and a *star*."],
    ])
    .title("Quarterly Report")
    .author("Ada Lovelace")
    .build()
}

/// Pages 1 and 6 of text around four that could each draw millions of
/// characters: three from compressed content streams of a few kilobytes,
/// one by drawing a form of 2,000 characters a thousand times.
pub fn bombed() -> Vec<u8> {
    let draws: String = (0..1_000).map(|i| format!("q 1 0 0 1 0 {i} cm /Fm1 Do Q\n")).collect();
    let bomb = characters(2_000_000);
    PdfSpec::text(&[&["The first page is an ordinary one."]])
        .form(&characters(2_000))
        .drawn_page(&bomb)
        .drawn_page(&bomb)
        .drawn_page(&bomb)
        .drawn_page(draws.as_bytes())
        .lines_page(&["The last page is ordinary too."])
        .build()
}
