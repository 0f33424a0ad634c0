//! The fetch pass's journal: snapshot entries appended as they complete,
//! as an Arrow IPC stream, flushed after every append, so a killed run
//! loses only the fetches in flight.
//!
//! A kill can leave a torn last message; [`Journal::open`] keeps every
//! complete message before it and rewrites the file without the tail.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use arrow::ipc::reader::StreamReader;
use arrow::ipc::writer::StreamWriter;

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
    /// Opens the journal at `path`, returning the entries it already holds
    /// (none when it does not exist) and a journal ready for appends.
    pub fn open(path: &Path) -> Result<(Journal, Vec<SnapshotEntry>), BatchError> {
        let entries = if path.exists() { read(path)? } else { Vec::new() };
        // Rewrite what survived, so appends follow a clean stream.
        let tmp = tmp_path(path);
        let mut journal = Journal::create_at(&tmp)?;
        // In chunks: one Arrow batch holds at most 2 GiB of bodies.
        for chunk in entries.chunks(crate::snapshot::ENTRIES_PER_BATCH) {
            journal.append(chunk)?;
        }
        std::fs::rename(&tmp, path).map_err(|e| BatchError::io(path, e))?;
        journal.path = path.to_path_buf();
        Ok((journal, entries))
    }

    fn create_at(path: &Path) -> Result<Journal, BatchError> {
        let file = File::create(path).map_err(|e| BatchError::io(path, e))?;
        let writer = StreamWriter::try_new(BufWriter::new(file), &Snapshot::schema())
            .map_err(|e| BatchError::arrow(path.display().to_string(), e))?;
        Ok(Journal { path: path.to_path_buf(), writer })
    }

    /// Appends entries and flushes them to the file.
    pub fn append(&mut self, entries: &[SnapshotEntry]) -> Result<(), BatchError> {
        let batch = to_record_batch(entries.iter())?;
        self.writer.write(&batch).map_err(|e| BatchError::arrow(self.path.display().to_string(), e))?;
        self.writer.flush().map_err(|e| BatchError::arrow(self.path.display().to_string(), e))?;
        self.writer.get_mut().flush().map_err(|e| BatchError::io(&self.path, e))
    }
}

/// Every complete entry of the journal at `path`; a torn tail is ignored.
pub fn read(path: &Path) -> Result<Vec<SnapshotEntry>, BatchError> {
    let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
    let reader = match StreamReader::try_new(BufReader::new(file), None) {
        Ok(reader) => reader,
        // Killed before the schema was written: nothing in it.
        Err(_) => return Ok(Vec::new()),
    };
    let mut entries = Vec::new();
    for batch in reader {
        match batch {
            Ok(batch) => entries.extend(entries_of(&batch)?),
            Err(_) => break,
        }
    }
    Ok(entries)
}
