//! Reading URLs: a text file (one URL a line), CSV or Parquet (a named
//! column), streamed as Arrow string arrays.
//!
//! The format follows the file name: `.csv` is CSV with a header row,
//! `.parquet` (or `.pq`) is Parquet, `.txt` or no extension is text. In a
//! text file each line is one URL, trimmed; blank lines are skipped (they
//! are not rows). In CSV and Parquet every row of the column is a row,
//! empty or null cells included (they become `invalid_url` rows).
//!
//! Text and CSV are read through a reader that repairs UTF-8: a line with
//! bytes that are not UTF-8 is one `invalid_url` row, and
//! [`UrlReader::undecodable`] names the lines, instead of the whole input
//! being refused.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, StringArray, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::BatchError;
use crate::undecodable::{SharedLines, UndecodableLines, Utf8Repair};

/// The rows per batch read by default.
pub const DEFAULT_BATCH_ROWS: usize = 64 * 1024;

/// The formats of an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// One URL a line.
    Text,
    /// CSV with a header row; the URLs in a named column.
    Csv,
    /// Parquet; the URLs in a named column.
    Parquet,
}

impl InputFormat {
    /// The format a file name says.
    pub fn from_path(path: &Path) -> Result<InputFormat, BatchError> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            None | Some("txt") | Some("text") | Some("urls") => Ok(InputFormat::Text),
            Some("csv") => Ok(InputFormat::Csv),
            Some("parquet") | Some("pq") => Ok(InputFormat::Parquet),
            Some(_) => Err(BatchError::UnknownFormat {
                path: path.to_path_buf(),
                role: "input",
                expected: "`.txt` (or no extension), `.csv` or `.parquet`",
            }),
        }
    }
}

/// A stream of URL batches from one input file.
pub struct UrlReader {
    path: PathBuf,
    inner: Inner,
    undecodable: SharedLines,
}

enum Inner {
    Text { lines: std::io::Lines<BufReader<Utf8Repair<File>>>, batch_rows: usize },
    Batches(Box<dyn Iterator<Item = Result<ArrayRef, BatchError>> + Send>),
}

impl std::fmt::Debug for UrlReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlReader").field("path", &self.path).finish_non_exhaustive()
    }
}

impl UrlReader {
    /// Opens `path` (format from its name), reading URLs from `column` for
    /// CSV and Parquet, `batch_rows` rows at a time.
    pub fn open(path: &Path, column: &str, batch_rows: usize) -> Result<UrlReader, BatchError> {
        let batch_rows = batch_rows.max(1);
        let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
        let undecodable = SharedLines::default();
        let inner = match InputFormat::from_path(path)? {
            InputFormat::Text => {
                let repaired = Utf8Repair::new(file, undecodable.clone());
                Inner::Text { lines: BufReader::with_capacity(1 << 20, repaired).lines(), batch_rows }
            }
            InputFormat::Csv => Inner::Batches(csv_batches(path, file, column, batch_rows, &undecodable)?),
            InputFormat::Parquet => Inner::Batches(parquet_batches(path, file, column, batch_rows)?),
        };
        Ok(UrlReader { path: path.to_path_buf(), inner, undecodable })
    }

    /// The lines read so far that held bytes that are not UTF-8 (each is an
    /// `invalid_url` row).
    pub fn undecodable(&self) -> UndecodableLines {
        self.undecodable.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Counts the rows of `path` (a pass over the file; Parquet from its
    /// metadata), for progress bars.
    pub fn count_rows(path: &Path, column: &str) -> Result<u64, BatchError> {
        if InputFormat::from_path(path)? == InputFormat::Parquet {
            let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| BatchError::parquet(path, e))?;
            column_index(path, builder.schema(), column)?;
            return Ok(builder.metadata().file_metadata().num_rows().max(0) as u64);
        }
        let mut rows = 0u64;
        for batch in UrlReader::open(path, column, DEFAULT_BATCH_ROWS)? {
            rows += batch?.len() as u64;
        }
        Ok(rows)
    }
}

impl Iterator for UrlReader {
    type Item = Result<StringArray, BatchError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            Inner::Text { lines, batch_rows } => {
                let mut builder = StringBuilder::with_capacity(*batch_rows, *batch_rows * 48);
                let mut rows = 0;
                while rows < *batch_rows {
                    match lines.next() {
                        None => break,
                        Some(Err(e)) => return Some(Err(BatchError::io(&self.path, e))),
                        Some(Ok(line)) => {
                            let url = line.trim();
                            if !url.is_empty() {
                                builder.append_value(url);
                                rows += 1;
                            }
                        }
                    }
                }
                (rows > 0).then(|| Ok(builder.finish()))
            }
            Inner::Batches(batches) => batches.next().map(|array| array.and_then(|a| as_utf8(&self.path, &a))),
        }
    }
}

/// `array` as a plain UTF-8 string array (large and view strings cast).
fn as_utf8(path: &Path, array: &ArrayRef) -> Result<StringArray, BatchError> {
    let utf8 = if array.data_type() == &DataType::Utf8 {
        array.clone()
    } else {
        arrow::compute::cast(array, &DataType::Utf8).map_err(|e| BatchError::arrow(path.display().to_string(), e))?
    };
    Ok(utf8.as_any().downcast_ref::<StringArray>().expect("cast to utf8").clone())
}

fn column_index(path: &Path, schema: &Schema, column: &str) -> Result<usize, BatchError> {
    let index = schema.index_of(column).map_err(|_| BatchError::MissingColumn {
        path: path.to_path_buf(),
        column: column.to_string(),
        available: schema.fields().iter().map(|f| f.name().clone()).collect(),
    })?;
    let ty = schema.field(index).data_type();
    if !matches!(ty, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) {
        return Err(BatchError::ColumnType {
            path: path.to_path_buf(),
            column: column.to_string(),
            found: ty.to_string(),
        });
    }
    Ok(index)
}

type Batches = Box<dyn Iterator<Item = Result<ArrayRef, BatchError>> + Send>;

fn csv_batches(
    path: &Path,
    file: File,
    column: &str,
    batch_rows: usize,
    undecodable: &SharedLines,
) -> Result<Batches, BatchError> {
    let context = path.display().to_string();
    let mut header = String::new();
    BufReader::new(Utf8Repair::new(&file, SharedLines::default()))
        .read_line(&mut header)
        .map_err(|e| BatchError::io(path, e))?;
    let (inferred, _) = arrow::csv::reader::Format::default()
        .with_header(true)
        .infer_schema(header.as_bytes(), Some(0))
        .map_err(|e| BatchError::arrow(context.clone(), e))?;
    // Every column read as text: only the URL column is kept.
    let schema =
        Schema::new(inferred.fields().iter().map(|f| Field::new(f.name(), DataType::Utf8, true)).collect::<Vec<_>>());
    let index = column_index(path, &schema, column)?;
    let file = File::open(path).map_err(|e| BatchError::io(path, e))?;
    let reader = arrow::csv::ReaderBuilder::new(Arc::new(schema))
        .with_header(true)
        .with_batch_size(batch_rows)
        .with_projection(vec![index])
        .build(BufReader::with_capacity(1 << 20, Utf8Repair::new(file, undecodable.clone())))
        .map_err(|e| BatchError::arrow(context.clone(), e))?;
    Ok(Box::new(reader.map(move |batch| {
        let batch = batch.map_err(|e| BatchError::arrow(context.clone(), e))?;
        Ok(batch.column(0).clone())
    })))
}

fn parquet_batches(path: &Path, file: File, column: &str, batch_rows: usize) -> Result<Batches, BatchError> {
    let context = path.display().to_string();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| BatchError::parquet(path, e))?;
    let index = column_index(path, builder.schema(), column)?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), [index]);
    let reader =
        builder.with_projection(mask).with_batch_size(batch_rows).build().map_err(|e| BatchError::parquet(path, e))?;
    Ok(Box::new(reader.map(move |batch| {
        let batch = batch.map_err(|e| BatchError::arrow(context.clone(), e))?;
        Ok(batch.column(0).clone())
    })))
}
