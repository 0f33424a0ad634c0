//! Text sitemaps: one absolute URL per line
//! (<https://www.sitemaps.org/protocol.html#otherformats>).

use super::codes::SitemapCode;
use super::model::{Entry, SitemapKind};
use super::sink::{Sink, check_loc};

pub(super) fn parse(text: &str, sink: &mut Sink<'_>) {
    sink.kind = SitemapKind::Text;
    for (index, line) in text.lines().enumerate() {
        let line_number = index as u32 + 1;
        let url = line.trim();
        if url.is_empty() {
            continue;
        }
        match check_loc(url) {
            Ok(()) => sink.entry(Entry { loc: url.to_string(), line: line_number, ..Entry::default() }),
            Err(why) => {
                sink.diag(SitemapCode::InvalidTextLine, Some(line_number), format!("the line is {why}; skipped"))
            }
        }
    }
}
