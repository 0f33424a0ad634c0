//! [`ParquetFile`]: a crawl's records in one Parquet file, through the
//! page record writer of `batch --content`, resumable exactly.
//!
//! Parquet cannot be appended to a record at a time, so the records of a
//! part go first to a journal (JSON lines, flushed at every commit); once
//! it holds [`PART_RECORDS`] records (or [`PART_BYTES`]), they become the
//! next numbered part file of [`PageRecordWriter`], and the next part's
//! journal starts. The position the frontier stores with each finished
//! page is the pair (parts written, bytes of the current journal), so it
//! names exactly the records that are on disk: a resumed crawl drops the
//! parts past it, cuts the journal back to it, and writes on. A part is
//! made from its journal, which stays until a later commit has been
//! recorded, so a kill between the two loses nothing either.
//! [`ParquetFile::finish`] turns the last journal into a part and merges
//! the parts into the output file.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use webcanon_batch::BatchError;
use webcanon_batch::output::OutputProgress;
use webcanon_batch::page_records::PageRecordWriter;
use webcanon_client::PageRecord;

use super::{RecordSink, write_line};

/// The most records in one part file.
pub const PART_RECORDS: usize = 1_000;
/// The most journal bytes in one part file (pages of up to 10 MiB each).
pub const PART_BYTES: u64 = 64 << 20;
/// The bits of a position that hold the journal's length: the parts
/// written are the bits above. A journal never reaches 2^40 bytes (a
/// part is cut at [`PART_BYTES`] plus one transaction's records).
const JOURNAL_BITS: u32 = 40;

/// A crawl's records in a Parquet file (the columns of
/// `webcanon_batch::page_records`), its work in a state directory.
#[derive(Debug)]
pub struct ParquetFile {
    target: PathBuf,
    state_dir: PathBuf,
    /// Open once [`RecordSink::resume_at`] has said where to go on from.
    open: Option<Open>,
}

#[derive(Debug)]
struct Open {
    writer: PageRecordWriter,
    parts: u32,
    journal: File,
    journal_bytes: u64,
    journal_records: usize,
    /// The journal of the part written at the last commit: kept until the
    /// next commit, when the frontier has recorded the part.
    written_journal: Option<PathBuf>,
}

impl ParquetFile {
    /// A Parquet output `target` keeping its parts and journals in
    /// `state_dir` (created when missing); call [`RecordSink::resume_at`]
    /// before writing.
    pub fn open(target: &Path, state_dir: &Path) -> io::Result<ParquetFile> {
        if !target.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet")) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a .parquet file", target.display()),
            ));
        }
        std::fs::create_dir_all(state_dir)?;
        Ok(ParquetFile { target: target.to_path_buf(), state_dir: state_dir.to_path_buf(), open: None })
    }

    /// The state directory of a Parquet output whose crawl keeps its
    /// frontier in the file `frontier`: beside it, `FRONTIER.parts`.
    pub fn state_dir_beside(frontier: &Path) -> PathBuf {
        let mut name = frontier.as_os_str().to_owned();
        name.push(".parts");
        PathBuf::from(name)
    }

    /// Turns the current journal into the next part and starts the next
    /// journal.
    fn cut_part(&mut self) -> io::Result<()> {
        let open = self.open.as_mut().ok_or_else(not_resumed)?;
        let path = journal_path(&self.state_dir, open.parts);
        open.writer.write(&read_journal(&path)?).map_err(batch_io)?;
        open.parts += 1;
        open.journal = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(journal_path(&self.state_dir, open.parts))?;
        open.journal_bytes = 0;
        open.journal_records = 0;
        open.written_journal = Some(path);
        Ok(())
    }

    /// Makes the last journal a part and merges the parts, in order, into
    /// the output file (written atomically). The state directory stays:
    /// running the finished crawl again writes the same file.
    pub fn finish(mut self) -> io::Result<()> {
        if self.open.as_ref().ok_or_else(not_resumed)?.journal_records > 0 {
            self.cut_part()?;
        }
        let open = self.open.take().ok_or_else(not_resumed)?;
        open.writer.finish().map_err(batch_io)?;
        Ok(())
    }
}

impl RecordSink for ParquetFile {
    fn write(&mut self, record: &PageRecord) -> io::Result<()> {
        let open = self.open.as_mut().ok_or_else(not_resumed)?;
        let mut line = Vec::with_capacity(1024);
        open.journal_bytes += write_line(&mut line, record)?;
        open.journal.write_all(&line)?;
        open.journal_records += 1;
        Ok(())
    }

    fn commit(&mut self) -> io::Result<u64> {
        let open = self.open.as_mut().ok_or_else(not_resumed)?;
        // The part this journal became is recorded by now: the commit
        // before this one stored the position after it.
        if let Some(done) = open.written_journal.take() {
            std::fs::remove_file(done)?;
        }
        open.journal.flush()?;
        if open.journal_records >= PART_RECORDS || open.journal_bytes >= PART_BYTES {
            self.cut_part()?;
        }
        let open = self.open.as_mut().ok_or_else(not_resumed)?;
        Ok((u64::from(open.parts) << JOURNAL_BITS) | open.journal_bytes)
    }

    fn resume_at(&mut self, position: u64) -> io::Result<()> {
        let parts = u32::try_from(position >> JOURNAL_BITS).map_err(io::Error::other)?;
        let journal_bytes = position & ((1 << JOURNAL_BITS) - 1);
        // The writer drops the parts past `parts`; their rows are counted
        // by the frontier, not here.
        let progress = OutputProgress { parts, ..OutputProgress::default() };
        let writer = PageRecordWriter::open(&self.target, &self.state_dir, progress).map_err(batch_io)?;
        for entry in std::fs::read_dir(&self.state_dir)? {
            let path = entry?.path();
            let number = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_prefix("journal-"));
            let number = number.and_then(|n| n.strip_suffix(".jsonl")).and_then(|n| n.parse::<u32>().ok());
            if number.is_some_and(|n| n != parts) {
                std::fs::remove_file(&path)?;
            }
        }
        let path = journal_path(&self.state_dir, parts);
        let mut journal = OpenOptions::new().create(true).write(true).truncate(false).open(&path)?;
        let length = journal.metadata()?.len();
        if length < journal_bytes {
            return Err(io::Error::other(format!(
                "{}: {length} bytes, but the crawl's state recorded {journal_bytes}; remove the state to start over",
                path.display()
            )));
        }
        journal.set_len(journal_bytes)?;
        journal.seek(SeekFrom::End(0))?;
        let journal_records = BufReader::new(File::open(&path)?).split(b'\n').count();
        self.open = Some(Open { writer, parts, journal, journal_bytes, journal_records, written_journal: None });
        Ok(())
    }
}

/// The journal of part `part`.
fn journal_path(state_dir: &Path, part: u32) -> PathBuf {
    state_dir.join(format!("journal-{part:06}.jsonl"))
}

fn not_resumed() -> io::Error {
    io::Error::other("the Parquet output is written before its resume position is set")
}

/// The records of a journal.
fn read_journal(path: &Path) -> io::Result<Vec<PageRecord>> {
    BufReader::new(File::open(path)?)
        .lines()
        .map(|line| serde_json::from_str(&line?).map_err(io::Error::other))
        .collect()
}

fn batch_io(error: BatchError) -> io::Error {
    io::Error::other(error.to_string())
}

#[cfg(test)]
mod tests {
    use webcanon_client::NotFetchedReason;

    use super::*;

    fn record(n: usize) -> PageRecord {
        PageRecord::not_fetched(format!("https://a.test/{n}"), NotFetchedReason::Limit).with_crawl_position(1, None)
    }

    fn urls(path: &Path) -> Vec<String> {
        let file = File::open(path).unwrap();
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
        let mut urls = Vec::new();
        for batch in reader {
            let batch = batch.unwrap();
            let column = batch.column_by_name("requested_url").unwrap();
            let strings = column.as_any().downcast_ref::<arrow::array::StringArray>().unwrap();
            urls.extend(strings.iter().map(|s| s.unwrap().to_string()));
        }
        urls
    }

    /// Writes records `range` a commit each, returning the position after
    /// each commit.
    fn write(sink: &mut ParquetFile, range: std::ops::Range<usize>) -> Vec<u64> {
        range
            .map(|n| {
                sink.write(&record(n)).unwrap();
                sink.commit().unwrap()
            })
            .collect()
    }

    #[test]
    fn a_resume_at_any_committed_position_gives_every_record_once() {
        let total = PART_RECORDS * 2 + 17;
        let dir = tempfile::tempdir().unwrap();
        let expected: Vec<String> = (0..total).map(|n| record(n).requested_url).collect();
        // A kill after the frontier recorded record `kill_after`'s
        // position: inside a journal, just before a part is cut, just
        // after, and in the next journal.
        for kill_after in [0, PART_RECORDS - 2, PART_RECORDS - 1, PART_RECORDS, PART_RECORDS + 5] {
            let target = dir.path().join(format!("out-{kill_after}.parquet"));
            let state = dir.path().join(format!("state-{kill_after}"));
            let mut sink = ParquetFile::open(&target, &state).unwrap();
            sink.resume_at(0).unwrap();
            let positions = write(&mut sink, 0..kill_after + 1);
            // The next page's commit, which the frontier did not record,
            // and records written after it.
            write(&mut sink, kill_after + 1..kill_after + 2);
            for n in kill_after + 2..kill_after + 40 {
                sink.write(&record(n)).unwrap();
            }
            drop(sink);
            let mut sink = ParquetFile::open(&target, &state).unwrap();
            sink.resume_at(positions[kill_after]).unwrap();
            write(&mut sink, kill_after + 1..total);
            sink.finish().unwrap();
            assert_eq!(urls(&target), expected, "killed after record {kill_after}");
        }
    }

    #[test]
    fn a_journal_shorter_than_its_position_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.parquet");
        let mut sink = ParquetFile::open(&target, dir.path()).unwrap();
        sink.resume_at(0).unwrap();
        let position = write(&mut sink, 0..3)[2];
        drop(sink);
        std::fs::write(dir.path().join("journal-000000.jsonl"), b"").unwrap();
        let mut sink = ParquetFile::open(&target, dir.path()).unwrap();
        assert!(sink.resume_at(position).unwrap_err().to_string().contains("remove the state to start over"));
    }

    #[test]
    fn only_parquet_files() {
        let dir = tempfile::tempdir().unwrap();
        assert!(ParquetFile::open(&dir.path().join("out.csv"), dir.path()).is_err());
    }
}
