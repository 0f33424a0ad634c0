//! Where a crawl's records go, streamed as they come: JSON lines (a file
//! or any writer), a folder of Markdown files with an index, or (feature
//! `parquet`) a Parquet file (`ParquetFile`).
//!
//! A sink has a position: how many bytes of its resumable file are
//! written. The crawl stores it with each finished page in the frontier's
//! transaction; a resumed crawl cuts the file back to it
//! ([`RecordSink::resume_at`]), so a record written just before a kill,
//! whose page the frontier does not count as finished, is written once,
//! by the resumed run.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use url::Url;
use webcanon_client::PageRecord;

#[cfg(feature = "parquet")]
mod parquet;
#[cfg(feature = "parquet")]
pub use parquet::{PART_BYTES, PART_RECORDS, ParquetFile};

/// What receives the crawl's records.
pub trait RecordSink: Send {
    /// Writes one record.
    fn write(&mut self, record: &PageRecord) -> io::Result<()>;
    /// Flushes what was written and returns the position after it.
    fn commit(&mut self) -> io::Result<u64>;
    /// Cuts the output back to `position` (a value [`RecordSink::commit`]
    /// returned) before a resumed crawl writes on.
    fn resume_at(&mut self, position: u64) -> io::Result<()>;
}

/// Records as JSON lines on a writer that cannot be cut back (standard
/// output): a crawl to it cannot resume.
#[derive(Debug)]
pub struct JsonLines<W: Write + Send> {
    writer: W,
    position: u64,
}

impl<W: Write + Send> JsonLines<W> {
    /// JSON lines on `writer`.
    pub fn new(writer: W) -> JsonLines<W> {
        JsonLines { writer, position: 0 }
    }
}

impl<W: Write + Send> RecordSink for JsonLines<W> {
    fn write(&mut self, record: &PageRecord) -> io::Result<()> {
        self.position += write_line(&mut self.writer, record)?;
        Ok(())
    }

    fn commit(&mut self) -> io::Result<u64> {
        self.writer.flush()?;
        Ok(self.position)
    }

    fn resume_at(&mut self, position: u64) -> io::Result<()> {
        if position == 0 {
            return Ok(());
        }
        Err(io::Error::other("a crawl written to standard output cannot resume: write it to a file with -o"))
    }
}

/// Writes `value` as one JSON line; returns the bytes written.
fn write_line(writer: &mut impl Write, value: &impl Serialize) -> io::Result<u64> {
    let mut line = serde_json::to_vec(value).map_err(io::Error::other)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    Ok(line.len() as u64)
}

/// Records as JSON lines in a file, resumable.
#[derive(Debug)]
pub struct JsonLinesFile {
    file: BufWriter<File>,
    position: u64,
}

impl JsonLinesFile {
    /// Opens (or creates) `path` for appending records; call
    /// [`RecordSink::resume_at`] before writing.
    pub fn open(path: &Path) -> io::Result<JsonLinesFile> {
        let file = OpenOptions::new().create(true).write(true).truncate(false).open(path)?;
        Ok(JsonLinesFile { file: BufWriter::new(file), position: 0 })
    }
}

impl RecordSink for JsonLinesFile {
    fn write(&mut self, record: &PageRecord) -> io::Result<()> {
        self.position += write_line(&mut self.file, record)?;
        Ok(())
    }

    fn commit(&mut self) -> io::Result<u64> {
        self.file.flush()?;
        Ok(self.position)
    }

    fn resume_at(&mut self, position: u64) -> io::Result<()> {
        self.file.flush()?;
        let file = self.file.get_mut();
        file.set_len(position)?;
        file.seek(SeekFrom::Start(position))?;
        self.position = position;
        Ok(())
    }
}

/// A folder of Markdown files mirroring the sites' paths
/// (`DIR/example.com/docs/intro.md`, a folder's own page as `index.md`),
/// and `DIR/index.jsonl`: every record without its content, with the
/// path of its file (`file`) when it has one.
#[derive(Debug)]
pub struct MarkdownFolder {
    root: PathBuf,
    index: JsonLinesFile,
}

/// A record in the folder's index.
#[derive(Serialize)]
struct IndexEntry<'a> {
    /// The page's file, relative to the folder.
    file: Option<String>,
    #[serde(flatten)]
    record: &'a PageRecord,
}

impl MarkdownFolder {
    /// The folder `root` (created when missing).
    pub fn open(root: &Path) -> io::Result<MarkdownFolder> {
        std::fs::create_dir_all(root)?;
        Ok(MarkdownFolder { root: root.to_path_buf(), index: JsonLinesFile::open(&root.join("index.jsonl"))? })
    }
}

impl RecordSink for MarkdownFolder {
    fn write(&mut self, record: &PageRecord) -> io::Result<()> {
        let mut file = None;
        if let Some(content) = &record.content {
            let url = record.final_url.as_deref().unwrap_or(&record.requested_url);
            if let Some(relative) = Url::parse(url).ok().as_ref().and_then(mirror_path) {
                let path = self.root.join(&relative);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(&path, content)?;
                file = Some(relative.to_string_lossy().into_owned());
            }
        }
        let mut bare = record.clone();
        bare.content = None;
        self.index.position += write_line(&mut self.index.file, &IndexEntry { file, record: &bare })?;
        Ok(())
    }

    fn commit(&mut self) -> io::Result<u64> {
        self.index.commit()
    }

    fn resume_at(&mut self, position: u64) -> io::Result<()> {
        self.index.resume_at(position)
    }
}

/// The longest file or folder name written (most file systems allow 255
/// bytes).
const MAX_NAME_BYTES: usize = 200;

/// Where the page at `url` goes in the folder: its host, then its path's
/// segments (each made safe as a file name), the last one ending in `.md`;
/// a path ending in `/` is that folder's `index.md`; a query is part of
/// the name. `None` for a URL with no host.
pub fn mirror_path(url: &Url) -> Option<PathBuf> {
    let host = url.host_str()?;
    let mut path = PathBuf::from(safe_name(&match url.port() {
        Some(port) => format!("{host}_{port}"),
        None => host.to_string(),
    }));
    let mut segments: Vec<&str> = url.path().split('/').skip(1).collect();
    let last = segments.pop().unwrap_or_default();
    for segment in segments.iter().filter(|s| !s.is_empty()) {
        path.push(safe_name(segment));
    }
    let mut name = if last.is_empty() { "index".to_string() } else { last.trim_end_matches(".md").to_string() };
    if let Some(query) = url.query() {
        name = format!("{name}_{query}");
    }
    path.push(format!("{}.md", safe_name(&name)));
    Some(path)
}

/// `segment` as a file name: percent-escapes decoded where they give
/// plain characters, anything but letters, digits, `-`, `_` and `.`
/// replaced by `_`, no leading dot, at most [`MAX_NAME_BYTES`].
fn safe_name(segment: &str) -> String {
    let mut name: String =
        segment.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    if name.starts_with('.') {
        name.replace_range(..1, "_");
    }
    let mut end = name.len().min(MAX_NAME_BYTES);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name.truncate(end);
    if name.is_empty() { "_".into() } else { name }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_paths() {
        let path = |u: &str| mirror_path(&Url::parse(u).unwrap()).unwrap().to_string_lossy().into_owned();
        assert_eq!(path("https://example.com/"), "example.com/index.md");
        assert_eq!(path("https://example.com/docs/"), "example.com/docs/index.md");
        assert_eq!(path("https://example.com/docs/intro"), "example.com/docs/intro.md");
        assert_eq!(path("https://example.com/docs/intro.md"), "example.com/docs/intro.md");
        assert_eq!(path("http://127.0.0.1:8080/a/../b?page=2"), "127.0.0.1_8080/b_page_2.md");
        assert_eq!(path("https://example.com/.hidden/..%2F..%2Fetc"), "example.com/_hidden/_._2F.._2Fetc.md");
        assert_eq!(path(&format!("https://example.com/{}", "x".repeat(500))).len(), "example.com/".len() + 200 + 3);
    }
}
