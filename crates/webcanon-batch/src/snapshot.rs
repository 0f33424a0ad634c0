//! The robots snapshot: one row per origin, what its robots.txt fetch
//! produced, in Parquet.
//!
//! Columns ([`Snapshot::schema`]):
//!
//! | column | type | meaning |
//! |---|---|---|
//! | `origin` | utf8 | `scheme://host[:port]` |
//! | `status` | utf8 | how robots.txt was obtained: `parsed`, `not_robots`, `unavailable`, `auth_disallow_all`, `unreachable` (the core's `RobotsAvailability` names), or `refused` (the SSRF guard refused the origin) |
//! | `http_status` | int32, null | the final HTTP status, null when no answer came |
//! | `body` | binary, null | the robots.txt body in force (at most 500 KiB): the fetched file for `parsed`/`not_robots`, the last good copy for an `unreachable` origin that has one |
//! | `fetched_at` | int64 | when the fetch finished, Unix seconds |
//! | `error` | utf8, null | what went wrong (unreachable, refused) |
//! | `last_good_at` | int64, null | set when `body` is the last good copy standing in for an unreachable file (RFC 9309 §2.4): that copy's fetch time; its rules then apply, exactly as the live client applies them |
//!
//! A [`Snapshot`] indexes the rows by origin for the verdict pass. Bodies
//! are kept as bytes and parsed on first use by each verdict pass, so a
//! snapshot of millions of origins costs little more than its bodies.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, LazyLock};

use arrow::array::{
    Array, ArrayRef, BinaryArray, BinaryBuilder, Int32Array, Int32Builder, Int64Array, Int64Builder, StringArray,
    StringBuilder,
};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use webcanon_core::policy::RobotsAvailability;

use crate::BatchError;

/// How robots.txt for an origin was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SnapshotStatus {
    /// An answer came (or none could): the core's availability class.
    Robots(RobotsAvailability),
    /// The SSRF guard refused the origin (a private address, a metadata
    /// name): nothing was requested, and the client would fetch nothing there.
    Refused,
}

impl SnapshotStatus {
    /// The name stored in the `status` column.
    pub fn as_str(self) -> &'static str {
        match self {
            SnapshotStatus::Robots(RobotsAvailability::Parsed) => "parsed",
            SnapshotStatus::Robots(RobotsAvailability::NotRobots) => "not_robots",
            SnapshotStatus::Robots(RobotsAvailability::Unavailable) => "unavailable",
            SnapshotStatus::Robots(RobotsAvailability::AuthDisallowAll) => "auth_disallow_all",
            SnapshotStatus::Robots(RobotsAvailability::Unreachable) => "unreachable",
            SnapshotStatus::Refused => "refused",
        }
    }
}

impl From<RobotsAvailability> for SnapshotStatus {
    fn from(a: RobotsAvailability) -> SnapshotStatus {
        SnapshotStatus::Robots(a)
    }
}

impl FromStr for SnapshotStatus {
    type Err = BatchError;

    fn from_str(s: &str) -> Result<SnapshotStatus, BatchError> {
        Ok(match s {
            "parsed" => RobotsAvailability::Parsed.into(),
            "not_robots" => RobotsAvailability::NotRobots.into(),
            "unavailable" => RobotsAvailability::Unavailable.into(),
            "auth_disallow_all" => RobotsAvailability::AuthDisallowAll.into(),
            "unreachable" => RobotsAvailability::Unreachable.into(),
            "refused" => SnapshotStatus::Refused,
            other => {
                return Err(BatchError::SnapshotSchema(format!(
                    "unknown status `{other}`; expected parsed, not_robots, unavailable, auth_disallow_all, \
                     unreachable or refused"
                )));
            }
        })
    }
}

impl fmt::Display for SnapshotStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One origin's robots.txt outcome: a row of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotEntry {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// How robots.txt was obtained.
    pub status: SnapshotStatus,
    /// The final HTTP status, when an answer came.
    pub http_status: Option<u16>,
    /// The body in force (see the module documentation).
    pub body: Option<Vec<u8>>,
    /// When the fetch finished, Unix seconds.
    pub fetched_at: i64,
    /// What went wrong, if anything.
    pub error: Option<String>,
    /// When `body` is the last good copy standing in for an unreachable
    /// robots.txt: that copy's fetch time, Unix seconds.
    pub last_good_at: Option<i64>,
}

impl SnapshotEntry {
    /// The availability class whose verdict applies: a last good copy
    /// standing in for an unreachable file counts as parsed (its rules
    /// apply), as in the live client. `None` for [`SnapshotStatus::Refused`].
    pub fn effective_availability(&self) -> Option<RobotsAvailability> {
        match self.status {
            // Only with the copy itself: a row naming a last good copy but
            // carrying no body (a snapshot made elsewhere) stays unreachable.
            SnapshotStatus::Robots(RobotsAvailability::Unreachable)
                if self.last_good_at.is_some() && self.body.is_some() =>
            {
                Some(RobotsAvailability::Parsed)
            }
            SnapshotStatus::Robots(a) => Some(a),
            SnapshotStatus::Refused => None,
        }
    }

    /// The text of the output's `robots_status` column: the HTTP status
    /// when an answer came (`200`, `404`, `503`), else the status class
    /// (`unreachable`, `refused`).
    pub fn robots_status(&self) -> String {
        match self.http_status {
            Some(code) => code.to_string(),
            None => self.status.as_str().to_string(),
        }
    }
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        Field::new("origin", DataType::Utf8, false),
        Field::new("status", DataType::Utf8, false),
        Field::new("http_status", DataType::Int32, true),
        Field::new("body", DataType::Binary, true),
        Field::new("fetched_at", DataType::Int64, false),
        Field::new("error", DataType::Utf8, true),
        Field::new("last_good_at", DataType::Int64, true),
    ]))
});

/// One origin as the verdict pass sees it.
#[derive(Debug)]
pub(crate) struct Indexed {
    pub(crate) entry: SnapshotEntry,
    /// The effective availability (`None`: refused).
    pub(crate) availability: Option<RobotsAvailability>,
    /// `robots_status`, computed once.
    pub(crate) robots_status: Box<str>,
}

/// The robots snapshot indexed by origin: built once, shared (behind an
/// `Arc`) by any number of verdict passes and threads.
#[derive(Debug, Default)]
pub struct Snapshot {
    index: HashMap<Box<str>, u32>,
    origins: Vec<Indexed>,
}

impl Snapshot {
    /// A snapshot of `entries`; when an origin appears twice, the later
    /// entry wins.
    pub fn from_entries(entries: impl IntoIterator<Item = SnapshotEntry>) -> Snapshot {
        let mut snapshot = Snapshot::default();
        snapshot.extend(entries);
        snapshot
    }

    fn extend(&mut self, entries: impl IntoIterator<Item = SnapshotEntry>) {
        for entry in entries {
            let indexed = Indexed {
                availability: entry.effective_availability(),
                robots_status: entry.robots_status().into_boxed_str(),
                entry,
            };
            match self.index.get(indexed.entry.origin.as_str()) {
                Some(&i) => self.origins[i as usize] = indexed,
                None => {
                    let i = u32::try_from(self.origins.len()).expect("fewer than 4 billion origins");
                    self.index.insert(indexed.entry.origin.clone().into_boxed_str(), i);
                    self.origins.push(indexed);
                }
            }
        }
    }

    /// A snapshot of one record batch in the snapshot schema (columns found
    /// by name; `error` and `last_good_at` may be absent; compatible types
    /// such as large strings are cast).
    pub fn from_record_batch(batch: &RecordBatch) -> Result<Snapshot, BatchError> {
        Ok(Snapshot::from_entries(entries_of(batch)?))
    }

    /// A snapshot of record batches in the snapshot schema, as
    /// [`Snapshot::from_record_batch`] reads each; a later entry for an
    /// origin wins.
    pub fn from_record_batches<'a>(batches: impl IntoIterator<Item = &'a RecordBatch>) -> Result<Snapshot, BatchError> {
        let mut snapshot = Snapshot::default();
        for batch in batches {
            snapshot.extend(entries_of(batch)?);
        }
        Ok(snapshot)
    }

    /// Reads a snapshot: one Parquet file, or a directory of them (a
    /// dataset, as the sharded fetch pass and Spark write it: every
    /// `*.parquet` file in it, in name order, files whose name starts with
    /// `.` or `_` left out).
    pub fn read_parquet(path: &Path) -> Result<Snapshot, BatchError> {
        let mut snapshot = Snapshot::default();
        for file in dataset_files(path)? {
            for batch in parquet_batches(&file)? {
                snapshot.extend(entries_of(&batch?).map_err(|e| in_file(&file, e))?);
            }
        }
        Ok(snapshot)
    }

    /// The snapshot schema (see the module documentation).
    pub fn schema() -> SchemaRef {
        SCHEMA.clone()
    }

    /// How many origins the snapshot holds.
    pub fn len(&self) -> usize {
        self.origins.len()
    }

    /// Whether the snapshot holds no origin.
    pub fn is_empty(&self) -> bool {
        self.origins.is_empty()
    }

    /// The entry for `origin`, if the snapshot has one.
    pub fn get(&self, origin: &str) -> Option<&SnapshotEntry> {
        self.position(origin).map(|i| &self.origins[i as usize].entry)
    }

    /// Whether the snapshot has an entry for `origin`.
    pub fn contains(&self, origin: &str) -> bool {
        self.index.contains_key(origin)
    }

    /// The entries, in the order their origins first appeared.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &SnapshotEntry> {
        self.origins.iter().map(|o| &o.entry)
    }

    #[inline]
    pub(crate) fn position(&self, origin: &str) -> Option<u32> {
        self.index.get(origin).copied()
    }

    #[inline]
    pub(crate) fn indexed(&self, position: u32) -> &Indexed {
        &self.origins[position as usize]
    }

    /// Writes the snapshot to a Parquet file (zstd), atomically: to a
    /// temporary file next to `path`, then renamed.
    pub fn write_parquet(&self, path: &Path) -> Result<(), BatchError> {
        write_parquet(path, self.entries())
    }
}

fn in_file(path: &Path, err: BatchError) -> BatchError {
    match err {
        BatchError::SnapshotSchema(reason) => BatchError::SnapshotSchema(format!("{}: {reason}", path.display())),
        other => other,
    }
}

/// The record batches of a Parquet file.
pub(crate) fn parquet_batches(
    path: &Path,
) -> Result<impl Iterator<Item = Result<RecordBatch, BatchError>> + use<>, BatchError> {
    let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| BatchError::parquet(path, e))?
        .build()
        .map_err(|e| BatchError::parquet(path, e))?;
    let context = path.display().to_string();
    Ok(reader.map(move |b| b.map_err(|e| BatchError::arrow(context.clone(), e))))
}

/// The most entries in one record batch: the bodies of a batch share one
/// 32-bit offset buffer (2 GiB), and a stored robots.txt body is at most
/// 500 KiB (the parse limit), so 2,048 of them always fit.
pub const ENTRIES_PER_BATCH: usize = 2048;

/// Writes `entries` as a snapshot Parquet file, atomically.
pub fn write_parquet<'a>(path: &Path, entries: impl Iterator<Item = &'a SnapshotEntry>) -> Result<(), BatchError> {
    let mut writer = SnapshotWriter::create(path)?;
    let mut chunk: Vec<&SnapshotEntry> = Vec::with_capacity(ENTRIES_PER_BATCH);
    let mut entries = entries.peekable();
    while entries.peek().is_some() {
        chunk.clear();
        chunk.extend(entries.by_ref().take(ENTRIES_PER_BATCH));
        writer.write(&to_record_batch(chunk.iter().copied())?)?;
    }
    writer.finish()
}

/// The bytes of a row group a [`SnapshotWriter`] buffers before it writes
/// it out: bodies make rows large, so row groups end by size (or at 64 K
/// rows), and writing a snapshot of any size takes about this much memory.
pub const ROW_GROUP_BYTES: usize = 32 << 20;

/// A snapshot Parquet file written batch by batch, in bounded memory (row
/// groups of at most [`ROW_GROUP_BYTES`]), to a temporary file renamed into
/// place by [`SnapshotWriter::finish`].
pub struct SnapshotWriter {
    path: std::path::PathBuf,
    tmp: std::path::PathBuf,
    writer: ArrowWriter<File>,
    rows: u64,
}

impl fmt::Debug for SnapshotWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnapshotWriter").field("path", &self.path).field("rows", &self.rows).finish_non_exhaustive()
    }
}

impl SnapshotWriter {
    /// Starts writing the snapshot file `path` (zstd).
    pub fn create(path: &Path) -> Result<SnapshotWriter, BatchError> {
        let tmp = tmp_path(path);
        let file = File::create(&tmp).map_err(|e| BatchError::io(&tmp, e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(64 * 1024))
            .build();
        let writer =
            ArrowWriter::try_new(file, Snapshot::schema(), Some(props)).map_err(|e| BatchError::parquet(&tmp, e))?;
        Ok(SnapshotWriter { path: path.to_path_buf(), tmp, writer, rows: 0 })
    }

    /// Appends a batch in the snapshot schema.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), BatchError> {
        self.writer.write(batch).map_err(|e| BatchError::parquet(&self.tmp, e))?;
        self.rows += batch.num_rows() as u64;
        if self.writer.in_progress_size() >= ROW_GROUP_BYTES {
            self.writer.flush().map_err(|e| BatchError::parquet(&self.tmp, e))?;
        }
        Ok(())
    }

    /// The rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Ends the file and moves it into place.
    pub fn finish(self) -> Result<(), BatchError> {
        self.writer.close().map_err(|e| BatchError::parquet(&self.tmp, e))?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| BatchError::io(&self.path, e))
    }
}

/// The Parquet files of a snapshot at `path`: `path` itself when it is a
/// file; when it is a directory, its `*.parquet` files in name order (a
/// dataset), leaving out names starting with `.` or `_` (Spark's and Ray's
/// markers, work files).
pub fn dataset_files(path: &Path) -> Result<Vec<std::path::PathBuf>, BatchError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| BatchError::io(path, e))? {
        let entry = entry.map_err(|e| BatchError::io(path, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let hidden = name.starts_with('.') || name.starts_with('_');
        if !hidden && name.ends_with(".parquet") && entry.file_type().map_err(|e| BatchError::io(path, e))?.is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(BatchError::SnapshotSchema(format!("{}: a directory without `*.parquet` files", path.display())));
    }
    Ok(files)
}

/// The rows of a snapshot Parquet file, from its metadata.
pub fn parquet_rows(path: &Path) -> Result<u64, BatchError> {
    let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| BatchError::parquet(path, e))?;
    Ok(builder.metadata().file_metadata().num_rows().max(0) as u64)
}

/// `path` with `.tmp` appended: where atomic writes go first.
pub(crate) fn tmp_path(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    name.into()
}

/// Entries as a record batch in the snapshot schema.
pub fn to_record_batch<'a>(entries: impl Iterator<Item = &'a SnapshotEntry>) -> Result<RecordBatch, BatchError> {
    let mut origin = StringBuilder::new();
    let mut status = StringBuilder::new();
    let mut http_status = Int32Builder::new();
    let mut body = BinaryBuilder::new();
    let mut fetched_at = Int64Builder::new();
    let mut error = StringBuilder::new();
    let mut last_good_at = Int64Builder::new();
    for e in entries {
        origin.append_value(&e.origin);
        status.append_value(e.status.as_str());
        http_status.append_option(e.http_status.map(i32::from));
        body.append_option(e.body.as_deref());
        fetched_at.append_value(e.fetched_at);
        error.append_option(e.error.as_deref());
        last_good_at.append_option(e.last_good_at);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(origin.finish()),
        Arc::new(status.finish()),
        Arc::new(http_status.finish()),
        Arc::new(body.finish()),
        Arc::new(fetched_at.finish()),
        Arc::new(error.finish()),
        Arc::new(last_good_at.finish()),
    ];
    RecordBatch::try_new(Snapshot::schema(), columns).map_err(|e| BatchError::arrow("building a snapshot batch", e))
}

/// The column `name` of `batch` as `target`, cast when compatible; `None`
/// when absent and `optional`.
fn column(batch: &RecordBatch, name: &str, target: &DataType, optional: bool) -> Result<Option<ArrayRef>, BatchError> {
    let Some(array) = batch.column_by_name(name) else {
        if optional {
            return Ok(None);
        }
        let have: Vec<&str> = batch.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        return Err(BatchError::SnapshotSchema(format!("no column `{name}` (the columns are: {})", have.join(", "))));
    };
    if array.data_type() == target {
        return Ok(Some(array.clone()));
    }
    arrow::compute::cast(array, target).map(Some).map_err(|_| {
        BatchError::SnapshotSchema(format!("column `{name}` holds {}, expected {target}", array.data_type()))
    })
}

/// The entries of a batch in the snapshot schema.
pub(crate) fn entries_of(batch: &RecordBatch) -> Result<Vec<SnapshotEntry>, BatchError> {
    let required = |name, ty| column(batch, name, &ty, false).map(|c| c.expect("required column"));
    let origin = required("origin", DataType::Utf8)?;
    let status = required("status", DataType::Utf8)?;
    let fetched_at = required("fetched_at", DataType::Int64)?;
    let http_status = column(batch, "http_status", &DataType::Int32, true)?;
    let body = column(batch, "body", &DataType::Binary, true)?;
    let error = column(batch, "error", &DataType::Utf8, true)?;
    let last_good_at = column(batch, "last_good_at", &DataType::Int64, true)?;

    let origin = origin.as_any().downcast_ref::<StringArray>().expect("cast to utf8");
    let status = status.as_any().downcast_ref::<StringArray>().expect("cast to utf8");
    let fetched_at = fetched_at.as_any().downcast_ref::<Int64Array>().expect("cast to int64");
    let http_status = http_status.as_ref().map(|a| a.as_any().downcast_ref::<Int32Array>().expect("cast to int32"));
    let body = body.as_ref().map(|a| a.as_any().downcast_ref::<BinaryArray>().expect("cast to binary"));
    let error = error.as_ref().map(|a| a.as_any().downcast_ref::<StringArray>().expect("cast to utf8"));
    let last_good_at = last_good_at.as_ref().map(|a| a.as_any().downcast_ref::<Int64Array>().expect("cast to int64"));

    let mut entries = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        if origin.is_null(row) || status.is_null(row) || fetched_at.is_null(row) {
            return Err(BatchError::SnapshotSchema(format!(
                "row {row}: `origin`, `status` and `fetched_at` must not be null"
            )));
        }
        let http_status = match http_status.filter(|a| a.is_valid(row)).map(|a| a.value(row)) {
            None => None,
            Some(code) => Some(u16::try_from(code).ok().filter(|c| (100..=999).contains(c)).ok_or_else(|| {
                BatchError::SnapshotSchema(format!("row {row}: `http_status` {code} is not an HTTP status"))
            })?),
        };
        entries.push(SnapshotEntry {
            origin: origin.value(row).to_string(),
            status: status.value(row).parse().map_err(|e| match e {
                BatchError::SnapshotSchema(reason) => BatchError::SnapshotSchema(format!("row {row}: {reason}")),
                other => other,
            })?,
            http_status,
            body: body.filter(|a| a.is_valid(row)).map(|a| a.value(row).to_vec()),
            fetched_at: fetched_at.value(row),
            error: error.filter(|a| a.is_valid(row)).map(|a| a.value(row).to_string()),
            last_good_at: last_good_at.filter(|a| a.is_valid(row)).map(|a| a.value(row)),
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_are_the_core_serde_names() {
        for a in [
            RobotsAvailability::Parsed,
            RobotsAvailability::NotRobots,
            RobotsAvailability::Unavailable,
            RobotsAvailability::AuthDisallowAll,
            RobotsAvailability::Unreachable,
        ] {
            let serde_name = serde_json::to_value(a).unwrap();
            assert_eq!(serde_name.as_str().unwrap(), SnapshotStatus::from(a).as_str());
            assert_eq!(SnapshotStatus::from(a).as_str().parse::<SnapshotStatus>().unwrap(), a.into());
        }
        assert_eq!("refused".parse::<SnapshotStatus>().unwrap(), SnapshotStatus::Refused);
        let err = "fine".parse::<SnapshotStatus>().unwrap_err().to_string();
        assert!(err.contains("unknown status `fine`"), "{err}");
    }
}
