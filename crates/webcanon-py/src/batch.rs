//! `Snapshot`, `VerdictPass` and `verdicts`: the batch verdict pass of
//! `webcanon batch` over Arrow data, exchanged with pyarrow through the
//! Arrow C data interface (a `string` URL column is read in place; other
//! string types are cast first).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch, StringArray, make_array};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Schema};
use arrow_pyarrow::{PyArrowType, Table};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use webcanon_batch::snapshot::{self, SnapshotEntry, SnapshotStatus};
use webcanon_batch::verdict;
use webcanon_core::policy::{RobotsAvailability, RobotsMode};

use crate::errors::{batch_error, usage_error};
use crate::robots::body_bytes;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Snapshot>()?;
    m.add_class::<VerdictPass>()?;
    m.add_function(wrap_pyfunction!(verdicts, m)?)?;
    Ok(())
}

/// Parses a robots mode name.
pub(crate) fn parse_mode(py: Python<'_>, mode: &str) -> PyResult<RobotsMode> {
    mode.parse().map_err(|message| usage_error(py, message))
}

/// The robots.txt outcome of many origins (`origin, status, http_status,
/// body, fetched_at, error, last_good_at`): what `webcanon batch` writes
/// with `--snapshot-out` and reads with `--snapshot`. Immutable and shared
/// by any number of verdict passes.
#[pyclass(frozen, module = "webcanon")]
pub struct Snapshot {
    pub(crate) inner: Arc<snapshot::Snapshot>,
}

impl Snapshot {
    pub(crate) fn new(inner: snapshot::Snapshot) -> Snapshot {
        Snapshot { inner: Arc::new(inner) }
    }
}

#[pymethods]
impl Snapshot {
    /// Reads a snapshot Parquet file.
    #[staticmethod]
    fn read_parquet(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Snapshot> {
        let read = py.detach(|| snapshot::Snapshot::read_parquet(&path));
        read.map(Snapshot::new).map_err(|e| batch_error(py, &e))
    }

    /// A snapshot from a pyarrow Table or RecordBatch in the snapshot schema
    /// (columns found by name; `error` and `last_good_at` may be absent).
    #[staticmethod]
    fn from_arrow(py: Python<'_>, data: PyArrowType<Table>) -> PyResult<Snapshot> {
        let (batches, _) = data.0.into_inner();
        let read = py.detach(|| snapshot::Snapshot::from_record_batches(&batches));
        read.map(Snapshot::new).map_err(|e| batch_error(py, &e))
    }

    /// A snapshot of robots.txt bodies fetched with HTTP 200, keyed by
    /// origin (`https://example.com`): for tests, and for files fetched by
    /// other means. `fetched_at` is Unix seconds (default: now).
    #[staticmethod]
    #[pyo3(signature = (bodies, fetched_at = None))]
    fn from_bodies(py: Python<'_>, bodies: &Bound<'_, PyDict>, fetched_at: Option<i64>) -> PyResult<Snapshot> {
        let fetched_at =
            fetched_at.unwrap_or_else(|| i64::try_from(webcanon_client::store::unix_now()).unwrap_or(i64::MAX));
        let mut entries = Vec::with_capacity(bodies.len());
        for (origin, body) in bodies.iter() {
            let origin: String = origin.extract()?;
            let canonical = webcanon_batch::origin::origin_of(&origin)
                .map_err(|reason| usage_error(py, format!("`{origin}` is not an origin: {reason}")))?
                .origin;
            if canonical != origin.trim_end_matches('/') {
                return Err(usage_error(
                    py,
                    format!("`{origin}` is not an origin (scheme://host[:port]); did you mean `{canonical}`?"),
                ));
            }
            entries.push(SnapshotEntry {
                origin: canonical,
                status: SnapshotStatus::Robots(RobotsAvailability::Parsed),
                http_status: Some(200),
                body: Some(body_bytes(&body)?.into_owned()),
                fetched_at,
                error: None,
                last_good_at: None,
            });
        }
        Ok(Snapshot::new(snapshot::Snapshot::from_entries(entries)))
    }

    /// Writes the snapshot to a Parquet file (zstd), atomically.
    fn write_parquet(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let inner = self.inner.clone();
        py.detach(move || inner.write_parquet(&path)).map_err(|e| batch_error(py, &e))
    }

    /// The snapshot as a pyarrow Table in the snapshot schema (one record
    /// batch per 2,048 origins, so that no batch outgrows Arrow's offsets).
    fn to_arrow(&self, py: Python<'_>) -> PyResult<PyArrowType<Table>> {
        let entries: Vec<&SnapshotEntry> = self.inner.entries().collect();
        let batches = entries
            .chunks(snapshot::ENTRIES_PER_BATCH)
            .map(|chunk| snapshot::to_record_batch(chunk.iter().copied()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| batch_error(py, &e))?;
        Table::try_new(batches, snapshot::Snapshot::schema())
            .map(PyArrowType)
            .map_err(|e| batch_error(py, &webcanon_batch::BatchError::arrow("building the snapshot table", e)))
    }

    /// The origins, in the order they first appeared.
    #[getter]
    fn origins(&self) -> Vec<String> {
        self.inner.entries().map(|e| e.origin.clone()).collect()
    }

    /// One origin's entry as a dict, or `None` when the origin is absent.
    fn get<'py>(&self, py: Python<'py>, origin: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(entry) = self.inner.get(origin) else { return Ok(None) };
        let dict = PyDict::new(py);
        dict.set_item("origin", &entry.origin)?;
        dict.set_item("status", entry.status.as_str())?;
        dict.set_item("http_status", entry.http_status)?;
        dict.set_item("body", entry.body.as_deref().map(|b| pyo3::types::PyBytes::new(py, b)))?;
        dict.set_item("fetched_at", entry.fetched_at)?;
        dict.set_item("error", entry.error.as_deref())?;
        dict.set_item("last_good_at", entry.last_good_at)?;
        dict.set_item("robots_status", entry.robots_status())?;
        Ok(Some(dict))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, origin: &str) -> bool {
        self.inner.contains(origin)
    }

    fn __repr__(&self) -> String {
        format!("<Snapshot {} origins>", self.inner.len())
    }
}

/// Decides URLs for one agent and mode from a snapshot: one output row per
/// input URL, in order (`url, origin, allowed, verdict, recommendation,
/// rule_line, rule_pattern, robots_status, error`). Each origin's rules are
/// compiled once per pass; the GIL is released while deciding.
#[pyclass(frozen, module = "webcanon")]
pub struct VerdictPass {
    inner: Arc<verdict::VerdictPass>,
}

#[pymethods]
impl VerdictPass {
    /// A pass for the product token `agent` under `mode` (`respect`,
    /// `report_only` or `ignore`): `allowed` is whether the URL may be
    /// fetched under that mode.
    #[new]
    #[pyo3(signature = (snapshot, agent, mode = "respect"))]
    fn new(py: Python<'_>, snapshot: &Snapshot, agent: &str, mode: &str) -> PyResult<VerdictPass> {
        let mode = parse_mode(py, mode)?;
        let agent = webcanon_client::agent::ProductToken::new(agent).map_err(|e| usage_error(py, e.to_string()))?;
        Ok(VerdictPass { inner: Arc::new(verdict::VerdictPass::new(snapshot.inner.clone(), agent, mode)) })
    }

    /// The agent's product token.
    #[getter]
    fn agent(&self) -> &str {
        self.inner.agent()
    }

    /// The robots mode.
    #[getter]
    fn mode(&self) -> &'static str {
        self.inner.mode().as_str()
    }

    /// The schema of `decide`'s record batches.
    #[staticmethod]
    fn schema() -> PyArrowType<Schema> {
        PyArrowType(verdict::VerdictPass::output_schema().as_ref().clone())
    }

    /// The verdict rows of `urls` (a pyarrow string array, or a list of
    /// `str`; `None` is an invalid URL) as a pyarrow RecordBatch.
    fn decide(&self, py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<PyArrowType<RecordBatch>> {
        let urls = url_array(py, urls)?;
        let pass = self.inner.clone();
        let rows = py.detach(move || pass.decide(&urls)).map_err(|e| batch_error(py, &e))?;
        Ok(PyArrowType(rows))
    }

    /// `table` (a pyarrow Table or RecordBatch) with the verdict columns
    /// appended (`origin, allowed, verdict, recommendation, rule_line,
    /// rule_pattern, robots_status, error`), deciding the URLs of `column`.
    /// Made for `map_batches(..., batch_format="pyarrow")` in Ray Data.
    #[pyo3(signature = (table, column = "url"))]
    fn annotate(&self, py: Python<'_>, table: PyArrowType<Table>, column: &str) -> PyResult<PyArrowType<Table>> {
        let (batches, schema) = table.0.into_inner();
        let index = schema.index_of(column).map_err(|_| {
            let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            PyValueError::new_err(format!("no column `{column}`; the table has {}", names.join(", ")))
        })?;
        let added: Vec<_> = verdict::VerdictPass::output_schema().fields().iter().skip(1).cloned().collect();
        if let Some(clash) = added.iter().find(|f| schema.field_with_name(f.name()).is_ok()) {
            return Err(PyValueError::new_err(format!(
                "the table already has a column `{}`, which the verdict columns would repeat",
                clash.name()
            )));
        }
        let mut fields: Vec<_> = schema.fields().iter().cloned().collect();
        fields.extend(added);
        let out_schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
        let pass = self.inner.clone();
        let annotated = py.detach(|| -> Result<Vec<RecordBatch>, AnnotateError> {
            let mut out = Vec::with_capacity(batches.len());
            for batch in &batches {
                let urls = strings(batch.column(index))
                    .map_err(|e| AnnotateError::Column(format!("column `{column}`: {e}")))?;
                let rows = pass.decide(&urls).map_err(AnnotateError::Batch)?;
                let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
                columns.extend(rows.columns().iter().skip(1).cloned());
                let joined = RecordBatch::try_new(out_schema.clone(), columns).map_err(|e| {
                    AnnotateError::Batch(webcanon_batch::BatchError::arrow("appending the verdict columns", e))
                })?;
                out.push(joined);
            }
            Ok(out)
        });
        let batches = match annotated {
            Ok(batches) => batches,
            Err(AnnotateError::Column(message)) => return Err(PyTypeError::new_err(message)),
            Err(AnnotateError::Batch(err)) => return Err(batch_error(py, &err)),
        };
        Table::try_new(batches, out_schema).map(PyArrowType).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The verdict of one URL as a dict (the columns of `decide`).
    fn decide_one<'py>(&self, py: Python<'py>, url: &str) -> PyResult<Bound<'py, PyDict>> {
        let row = self.inner.decide_one(url);
        let dict = PyDict::new(py);
        dict.set_item("url", url)?;
        dict.set_item("origin", row.origin)?;
        dict.set_item("allowed", row.allowed)?;
        dict.set_item("verdict", row.verdict)?;
        dict.set_item("recommendation", row.recommendation.map(|r| r.as_str()))?;
        dict.set_item("rule_line", row.rule_line)?;
        dict.set_item("rule_pattern", row.rule_pattern)?;
        dict.set_item("robots_status", row.robots_status)?;
        dict.set_item("error", row.error)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "<VerdictPass agent={} mode={} over {} origins>",
            self.inner.agent(),
            self.inner.mode(),
            self.inner.snapshot().len()
        )
    }
}

/// The verdict rows of `urls` for `agent` under `mode`, from `snapshot`:
/// `VerdictPass(snapshot, agent, mode).decide(urls)`.
#[pyfunction]
#[pyo3(signature = (snapshot, urls, agent, mode = "respect"))]
fn verdicts(
    py: Python<'_>,
    snapshot: &Snapshot,
    urls: &Bound<'_, PyAny>,
    agent: &str,
    mode: &str,
) -> PyResult<PyArrowType<RecordBatch>> {
    VerdictPass::new(py, snapshot, agent, mode)?.decide(py, urls)
}

/// A URL argument as a string array: a pyarrow array of strings (any
/// string type, or a dictionary of strings), or a list of `str`/`None`.
fn url_array(py: Python<'_>, urls: &Bound<'_, PyAny>) -> PyResult<StringArray> {
    if let Ok(list) = urls.extract::<Vec<Option<String>>>() {
        return Ok(StringArray::from(list));
    }
    let data: PyArrowType<arrow::array::ArrayData> = urls.extract().map_err(|_| {
        let type_name = urls.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!(
            "urls must be a pyarrow string array or a list of str, not {type_name} (for a ChunkedArray, use \
             annotate() on its table or combine_chunks())"
        ))
    })?;
    let array = make_array(data.0);
    py.detach(|| strings(&array)).map_err(PyTypeError::new_err)
}

/// Why `annotate` failed: a URL column that is not strings (a `TypeError`),
/// or the pass itself.
enum AnnotateError {
    Column(String),
    Batch(webcanon_batch::BatchError),
}

/// Whether a column of this type holds text.
fn is_string_type(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => true,
        DataType::Dictionary(_, values) => is_string_type(values),
        _ => false,
    }
}

/// `array` as UTF-8 strings, cast when it holds another string type.
fn strings(array: &ArrayRef) -> Result<StringArray, String> {
    let utf8 = match array.data_type() {
        DataType::Utf8 => array.clone(),
        other if is_string_type(other) => {
            cast(array, &DataType::Utf8).map_err(|e| format!("cannot read {other} as strings: {e}"))?
        }
        other => return Err(format!("URLs must be strings, not {other}")),
    };
    utf8.as_any()
        .downcast_ref::<StringArray>()
        .cloned()
        .ok_or_else(|| format!("cannot read {} as strings", array.data_type()))
}
