//! The fetch pass's journal: snapshot entries appended as they complete,
//! as an Arrow IPC stream, flushed after every append, so a killed run
//! loses only the fetches in flight.
//!
//! A kill can leave a torn last message; [`Journal::open`] keeps every
//! complete message before it and rewrites the file without the tail,
//! streaming it (the fetch pass keeps one journal per partition of
//! origins, see [`crate::partition`]).

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::array::{Array, StringArray};
use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;
use arrow::record_batch::RecordBatch;

use crate::BatchError;
use crate::snapshot::{Snapshot, SnapshotEntry, entries_of, tmp_path, to_record_batch};

/// An append-only file of snapshot entries.
pub struct Journal {
    path: PathBuf,
    writer: StreamWriter<BufWriter<File>>,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Journal {
    /// Opens the journal at `path`, returning the origins it already holds
    /// (none when it does not exist) and a journal ready for appends. The
    /// file is streamed, one record batch at a time: opening it takes the
    /// memory of its origins, not of its bodies.
    pub fn open(path: &Path) -> Result<(Journal, Vec<String>), BatchError> {
        // Rewrite what survived, so appends follow a clean stream.
        let tmp = tmp_path(path);
        let mut journal = Journal::create_at(&tmp)?;
        let mut origins = Vec::new();
        if path.exists() {
            for batch in batches(path)? {
                let batch = batch?;
                let column = batch.column(0).as_any().downcast_ref::<StringArray>().ok_or_else(|| {
                    BatchError::SnapshotSchema(format!(
                        "{}: the journal's first column is not `origin`",
                        path.display()
                    ))
                })?;
                origins.extend(column.iter().flatten().map(str::to_string));
                journal.write_batch(&batch)?;
            }
        }
        std::fs::rename(&tmp, path).map_err(|e| BatchError::io(path, e))?;
        journal.path = path.to_path_buf();
        Ok((journal, origins))
    }

    fn create_at(path: &Path) -> Result<Journal, BatchError> {
        let file = File::create(path).map_err(|e| BatchError::io(path, e))?;
        let writer = StreamWriter::try_new(BufWriter::new(file), &Snapshot::schema())
            .map_err(|e| BatchError::arrow(path.display().to_string(), e))?;
        Ok(Journal { path: path.to_path_buf(), writer })
    }

    /// Appends entries and flushes them to the file.
    pub fn append(&mut self, entries: &[SnapshotEntry]) -> Result<(), BatchError> {
        self.write_batch(&to_record_batch(entries.iter())?)
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<(), BatchError> {
        self.writer.write(batch).map_err(|e| BatchError::arrow(self.path.display().to_string(), e))?;
        self.writer.flush().map_err(|e| BatchError::arrow(self.path.display().to_string(), e))?;
        self.writer.get_mut().flush().map_err(|e| BatchError::io(&self.path, e))
    }
}

/// Every complete entry of the journal at `path`; a torn tail is ignored.
pub fn read(path: &Path) -> Result<Vec<SnapshotEntry>, BatchError> {
    let mut entries = Vec::new();
    for batch in batches(path)? {
        entries.extend(entries_of(&batch?)?);
    }
    Ok(entries)
}

/// The complete record batches of the journal at `path`, one at a time; a
/// torn tail ends them.
pub fn batches(path: &Path) -> Result<impl Iterator<Item = Result<RecordBatch, BatchError>> + use<>, BatchError> {
    let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
    // Killed before the schema was written: nothing in it.
    let reader = StreamReader::try_new(BufReader::new(file), None).ok();
    Ok(reader.into_iter().flatten().map_while(|batch| batch.ok()).map(Ok))
}
