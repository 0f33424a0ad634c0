//! Writing verdict rows: Parquet, CSV or JSON lines by the output's
//! extension, resumable.
//!
//! Rows go to a work file (CSV, JSON lines) or to numbered part files
//! (Parquet) in the run's state directory; after each batch the caller
//! records the [`OutputProgress`] in its checkpoint. A resumed writer cuts
//! the work file back to the recorded length (or drops parts past the
//! recorded count), so rows written after the last checkpoint are written
//! again exactly once. [`OutputWriter::finish`] moves the finished file to
//! its name (Parquet parts are merged), so the output name only ever holds
//! a complete file.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};

use crate::BatchError;
use crate::snapshot::{parquet_batches, tmp_path};
use crate::verdict::VerdictPass;

/// The formats of an output file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputFormat {
    /// Parquet (zstd), `.parquet`.
    Parquet,
    /// CSV with a header row, `.csv`.
    Csv,
    /// One JSON object a line, nulls written out, `.jsonl`.
    JsonLines,
}

impl OutputFormat {
    /// The format a file name says.
    pub fn from_path(path: &Path) -> Result<OutputFormat, BatchError> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("parquet") => Ok(OutputFormat::Parquet),
            Some("csv") => Ok(OutputFormat::Csv),
            Some("jsonl") => Ok(OutputFormat::JsonLines),
            _ => Err(BatchError::UnknownFormat {
                path: path.to_path_buf(),
                role: "output",
                expected: "`.parquet`, `.csv` or `.jsonl`",
            }),
        }
    }
}

/// How far the output got: what a checkpoint records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputProgress {
    /// Rows written.
    pub rows: u64,
    /// Bytes of the work file (CSV, JSON lines).
    pub bytes: u64,
    /// Part files written (Parquet).
    pub parts: u32,
}

/// A resumable writer of verdict rows.
#[derive(Debug)]
pub struct OutputWriter {
    format: OutputFormat,
    target: PathBuf,
    work: PathBuf,
    file: Option<File>,
    progress: OutputProgress,
    schema: SchemaRef,
}

impl OutputWriter {
    /// A writer of verdict rows to `target` keeping its work in
    /// `state_dir`, continuing from `progress` (zero for a fresh start).
    pub fn open(target: &Path, state_dir: &Path, progress: OutputProgress) -> Result<OutputWriter, BatchError> {
        OutputWriter::open_with_schema(target, state_dir, progress, VerdictPass::output_schema())
    }

    /// A writer of rows in `schema` to `target`, as [`OutputWriter::open`].
    pub fn open_with_schema(
        target: &Path,
        state_dir: &Path,
        progress: OutputProgress,
        schema: SchemaRef,
    ) -> Result<OutputWriter, BatchError> {
        let format = OutputFormat::from_path(target)?;
        let (work, file) = match format {
            OutputFormat::Parquet => {
                let parts = state_dir.join("parts");
                std::fs::create_dir_all(&parts).map_err(|e| BatchError::io(&parts, e))?;
                // Parts past the checkpoint were written after it: drop them.
                for entry in std::fs::read_dir(&parts).map_err(|e| BatchError::io(&parts, e))? {
                    let path = entry.map_err(|e| BatchError::io(&parts, e))?.path();
                    let number = path.file_stem().and_then(|s| s.to_str()).and_then(|s| s.strip_prefix("part-"));
                    if number.and_then(|n| n.parse::<u32>().ok()).is_none_or(|n| n >= progress.parts) {
                        std::fs::remove_file(&path).map_err(|e| BatchError::io(&path, e))?;
                    }
                }
                (parts, None)
            }
            OutputFormat::Csv | OutputFormat::JsonLines => {
                let work = state_dir.join("output.partial");
                let mut file = OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(false)
                    .open(&work)
                    .map_err(|e| BatchError::io(&work, e))?;
                let len = file.metadata().map_err(|e| BatchError::io(&work, e))?.len();
                if len < progress.bytes {
                    return Err(BatchError::Resume {
                        path: work,
                        reason: format!(
                            "the work file has {len} bytes, but the checkpoint recorded {}; remove {} to start over",
                            progress.bytes,
                            state_dir.display()
                        ),
                    });
                }
                file.set_len(progress.bytes).map_err(|e| BatchError::io(&work, e))?;
                file.seek(SeekFrom::End(0)).map_err(|e| BatchError::io(&work, e))?;
                (work, Some(file))
            }
        };
        Ok(OutputWriter { format, target: target.to_path_buf(), work, file, progress, schema })
    }

    /// Whether a text output (CSV, JSON lines) was already moved from
    /// `state_dir` to `target` by [`OutputWriter::finish`]: the work file
    /// is gone and the target is there. Parquet parts stay until the state
    /// directory is removed, so a Parquet output is merged again instead.
    pub fn moved_into_place(target: &Path, state_dir: &Path) -> bool {
        matches!(OutputFormat::from_path(target), Ok(OutputFormat::Csv | OutputFormat::JsonLines))
            && !state_dir.join("output.partial").exists()
            && target.is_file()
    }

    /// What has been written so far.
    pub fn progress(&self) -> OutputProgress {
        self.progress
    }

    /// Writes one batch of rows and says how far the output got; record
    /// that in the checkpoint.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<OutputProgress, BatchError> {
        if batch.num_rows() == 0 {
            return Ok(self.progress);
        }
        match self.format {
            OutputFormat::Parquet => {
                let part = self.work.join(format!("part-{:06}.parquet", self.progress.parts));
                write_parquet_file(&part, &self.schema, std::iter::once(Ok(batch.clone())))?;
                self.progress.parts += 1;
            }
            OutputFormat::Csv | OutputFormat::JsonLines => {
                let mut bytes = Vec::with_capacity(batch.num_rows() * 128);
                let context = || self.target.display().to_string();
                if self.format == OutputFormat::Csv {
                    let mut writer =
                        arrow::csv::WriterBuilder::new().with_header(self.progress.bytes == 0).build(&mut bytes);
                    writer.write(batch).map_err(|e| BatchError::arrow(context(), e))?;
                } else {
                    let mut writer = arrow::json::WriterBuilder::new()
                        .with_explicit_nulls(true)
                        .build::<_, arrow::json::writer::LineDelimited>(&mut bytes);
                    writer.write(batch).map_err(|e| BatchError::arrow(context(), e))?;
                    writer.finish().map_err(|e| BatchError::arrow(context(), e))?;
                }
                self.append_text(&bytes)?;
            }
        }
        self.progress.rows += batch.num_rows() as u64;
        Ok(self.progress)
    }

    /// Writes `rows` rows already serialised as JSON lines (a JSON lines
    /// output only) and says how far the output got.
    pub fn write_lines(&mut self, lines: &[u8], rows: u64) -> Result<OutputProgress, BatchError> {
        assert_eq!(self.format, OutputFormat::JsonLines, "serialised lines go to a JSON lines output");
        self.append_text(lines)?;
        self.progress.rows += rows;
        Ok(self.progress)
    }

    fn append_text(&mut self, bytes: &[u8]) -> Result<(), BatchError> {
        let file = self.file.as_mut().expect("text outputs keep their file open");
        file.write_all(bytes).map_err(|e| BatchError::io(&self.work, e))?;
        file.flush().map_err(|e| BatchError::io(&self.work, e))?;
        self.progress.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Moves the finished output to its name (Parquet parts merged into one
    /// file, in order). An empty output is still a valid file with the
    /// header or schema.
    pub fn finish(mut self) -> Result<OutputProgress, BatchError> {
        match self.format {
            OutputFormat::Parquet => {
                // One part open at a time: a long run has thousands of them,
                // more than a process may have files open.
                let work = self.work.clone();
                let batches = (0..self.progress.parts).flat_map(move |i| {
                    let part = work.join(format!("part-{i:06}.parquet"));
                    let batches: Box<dyn Iterator<Item = Result<RecordBatch, BatchError>>> =
                        match parquet_batches(&part) {
                            Ok(reader) => Box::new(reader),
                            Err(err) => Box::new(std::iter::once(Err(err))),
                        };
                    batches
                });
                write_parquet_file(&self.target, &self.schema, batches)?;
            }
            OutputFormat::Csv | OutputFormat::JsonLines => {
                if self.progress.rows == 0 && self.format == OutputFormat::Csv {
                    let empty = RecordBatch::new_empty(self.schema.clone());
                    let mut bytes = Vec::new();
                    arrow::csv::WriterBuilder::new()
                        .with_header(true)
                        .build(&mut bytes)
                        .write(&empty)
                        .map_err(|e| BatchError::arrow(self.target.display().to_string(), e))?;
                    let file = self.file.as_mut().expect("text outputs keep their file open");
                    file.write_all(&bytes).map_err(|e| BatchError::io(&self.work, e))?;
                }
                drop(self.file.take());
                std::fs::rename(&self.work, &self.target).map_err(|e| BatchError::io(&self.target, e))?;
            }
        }
        Ok(self.progress)
    }
}

/// Writes batches in `schema` to a Parquet file, atomically.
fn write_parquet_file(
    path: &Path,
    schema: &SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, BatchError>>,
) -> Result<(), BatchError> {
    let tmp = tmp_path(path);
    let file = File::create(&tmp).map_err(|e| BatchError::io(&tmp, e))?;
    let props = WriterProperties::builder().set_compression(Compression::ZSTD(ZstdLevel::default())).build();
    let mut writer =
        ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| BatchError::parquet(&tmp, e))?;
    for batch in batches {
        writer.write(&batch?).map_err(|e| BatchError::parquet(&tmp, e))?;
    }
    writer.close().map_err(|e| BatchError::parquet(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| BatchError::io(path, e))
}
