//! Page records ([`PageRecord`]) on disk: JSON lines or Parquet, by the
//! file's extension, resumable as the verdict output is.
//!
//! JSON lines are the records as serde writes them, one a line. Parquet
//! has one column per field ([`schema`]), with the matched rule flattened
//! (`rule_line`, `rule_directive`, `rule_pattern`, as the verdict output
//! has them) and the warnings a list of structs (`code`, `source`,
//! `detail`). A list column rather than a JSON string: readers filter on
//! it without parsing text (DuckDB `list_contains(warnings.code, 'noai')`,
//! Polars `list.eval`), the codes compress as the dictionary they are, and
//! the schema states the warning's fields instead of leaving them to each
//! reader. The page's metadata is one JSON text column: its fields are the
//! extractor's and grow with it, and a JSON column keeps the Parquet
//! schema of existing datasets as it is when they do.
//!
//! | column | type |
//! |---|---|
//! | `requested_url` | utf8 |
//! | `final_url`, `canonical_url`, `content_type` | utf8, null |
//! | `status` | uint16, null |
//! | `verdict`, `recommendation` | utf8, null (the core's snake_case names) |
//! | `rule_line` | uint32, null |
//! | `rule_directive`, `rule_pattern` | utf8, null |
//! | `warnings` | list of struct { `code`: utf8, `source`: utf8, `detail`: utf8 } |
//! | `title` | utf8, null |
//! | `metadata` | utf8, null (the page's metadata object as JSON) |
//! | `content` | large utf8, null (pages of up to the byte limit each) |
//! | `content_hash` | utf8, null (16 hexadecimal digits) |
//! | `fetched_at` | timestamp (ms, UTC), null |
//! | `bytes` | uint64, null |
//! | `not_fetched`, `error` | utf8, null |
//! | `depth` | uint32, null |
//! | `parent` | utf8, null |

use std::path::Path;
use std::sync::{Arc, LazyLock};

use arrow::array::{
    ArrayRef, LargeStringBuilder, ListBuilder, StringBuilder, StructBuilder, TimestampMillisecondBuilder,
    UInt16Builder, UInt32Builder, UInt64Builder,
};
use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use arrow::record_batch::RecordBatch;
use webcanon_client::PageRecord;

use crate::BatchError;
use crate::output::{OutputFormat, OutputProgress, OutputWriter};

fn warning_fields() -> Fields {
    Fields::from(vec![
        Field::new("code", DataType::Utf8, false),
        Field::new("source", DataType::Utf8, false),
        Field::new("detail", DataType::Utf8, false),
    ])
}

static SCHEMA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let utf8 = |name: &str| Field::new(name, DataType::Utf8, true);
    Arc::new(Schema::new(vec![
        Field::new("requested_url", DataType::Utf8, false),
        utf8("final_url"),
        utf8("canonical_url"),
        Field::new("status", DataType::UInt16, true),
        utf8("content_type"),
        utf8("verdict"),
        utf8("recommendation"),
        Field::new("rule_line", DataType::UInt32, true),
        utf8("rule_directive"),
        utf8("rule_pattern"),
        Field::new(
            "warnings",
            DataType::List(Arc::new(Field::new("item", DataType::Struct(warning_fields()), true))),
            false,
        ),
        utf8("title"),
        utf8("metadata"),
        Field::new("content", DataType::LargeUtf8, true),
        utf8("content_hash"),
        Field::new("fetched_at", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
        Field::new("bytes", DataType::UInt64, true),
        utf8("not_fetched"),
        utf8("error"),
        Field::new("depth", DataType::UInt32, true),
        utf8("parent"),
    ]))
});

/// The Arrow schema of page records in Parquet (the module's table).
pub fn schema() -> SchemaRef {
    SCHEMA.clone()
}

/// `records` as one record batch in [`schema`].
pub fn to_record_batch(records: &[PageRecord]) -> Result<RecordBatch, BatchError> {
    let n = records.len();
    let strings = || StringBuilder::with_capacity(n, n * 32);
    let (mut requested, mut final_url, mut canonical, mut content_type) = (strings(), strings(), strings(), strings());
    let (mut verdict, mut recommendation, mut directive, mut pattern) = (strings(), strings(), strings(), strings());
    let (mut title, mut hash, mut not_fetched, mut error, mut parent) =
        (strings(), strings(), strings(), strings(), strings());
    let mut metadata = strings();
    let mut status = UInt16Builder::with_capacity(n);
    let (mut rule_line, mut depth) = (UInt32Builder::with_capacity(n), UInt32Builder::with_capacity(n));
    let mut content = LargeStringBuilder::new();
    let mut fetched_at = TimestampMillisecondBuilder::with_capacity(n).with_timezone("UTC");
    let mut bytes = UInt64Builder::with_capacity(n);
    let mut warnings = ListBuilder::new(StructBuilder::from_fields(warning_fields(), n))
        .with_field(Arc::new(Field::new("item", DataType::Struct(warning_fields()), true)));
    for record in records {
        requested.append_value(&record.requested_url);
        final_url.append_option(record.final_url.as_deref());
        canonical.append_option(record.canonical_url.as_deref());
        status.append_option(record.status);
        content_type.append_option(record.content_type.as_deref());
        verdict.append_option(record.verdict.map(|v| v.as_str()));
        recommendation.append_option(record.recommendation.map(|r| r.as_str()));
        rule_line.append_option(record.rule.as_ref().map(|r| r.line));
        directive.append_option(record.rule.as_ref().map(|r| r.directive.as_str()));
        pattern.append_option(record.rule.as_ref().map(|r| r.pattern.as_str()));
        let items = warnings.values();
        for warning in &record.warnings {
            field(items, 0).append_value(warning.code.as_str());
            field(items, 1).append_value(warning.source.as_str());
            field(items, 2).append_value(&warning.detail);
            items.append(true);
        }
        warnings.append(true);
        title.append_option(record.title.as_deref());
        metadata
            .append_option(record.metadata.as_ref().map(|m| serde_json::to_string(m).expect("metadata serialises")));
        content.append_option(record.content.as_deref());
        hash.append_option(record.content_hash.map(|h| h.to_string()));
        fetched_at.append_option(record.fetched_at.map(|t| t.timestamp_millis()));
        bytes.append_option(record.bytes);
        not_fetched.append_option(record.not_fetched.map(|r| r.as_str()));
        error.append_option(record.error.as_deref());
        depth.append_option(record.depth);
        parent.append_option(record.parent.as_deref());
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(requested.finish()),
        Arc::new(final_url.finish()),
        Arc::new(canonical.finish()),
        Arc::new(status.finish()),
        Arc::new(content_type.finish()),
        Arc::new(verdict.finish()),
        Arc::new(recommendation.finish()),
        Arc::new(rule_line.finish()),
        Arc::new(directive.finish()),
        Arc::new(pattern.finish()),
        Arc::new(warnings.finish()),
        Arc::new(title.finish()),
        Arc::new(metadata.finish()),
        Arc::new(content.finish()),
        Arc::new(hash.finish()),
        Arc::new(fetched_at.finish()),
        Arc::new(bytes.finish()),
        Arc::new(not_fetched.finish()),
        Arc::new(error.finish()),
        Arc::new(depth.finish()),
        Arc::new(parent.finish()),
    ];
    RecordBatch::try_new(schema(), columns).map_err(|e| BatchError::arrow("building page records", e))
}

/// The string builder of field `index` of a warning item.
fn field(items: &mut StructBuilder, index: usize) -> &mut StringBuilder {
    items.field_builder::<StringBuilder>(index).expect("warning fields are strings")
}

/// A resumable writer of page records to `.jsonl` or `.parquet`: the
/// records go to a work file or to part files in a state directory, and
/// [`PageRecordWriter::finish`] moves the finished output to its name (see
/// [`OutputWriter`], which it writes through).
#[derive(Debug)]
pub struct PageRecordWriter {
    format: OutputFormat,
    output: OutputWriter,
}

impl PageRecordWriter {
    /// A writer of `target` (`.jsonl` or `.parquet`) keeping its work in
    /// `state_dir`, continuing from `progress` (zero for a fresh start).
    pub fn open(target: &Path, state_dir: &Path, progress: OutputProgress) -> Result<PageRecordWriter, BatchError> {
        let format = PageRecordWriter::format_of(target)?;
        Ok(PageRecordWriter { format, output: OutputWriter::open_with_schema(target, state_dir, progress, schema())? })
    }

    /// The format of a page record file named `target`: JSON lines or
    /// Parquet (a CSV file cannot hold a page's warnings and content).
    pub fn format_of(target: &Path) -> Result<OutputFormat, BatchError> {
        match OutputFormat::from_path(target) {
            Ok(format @ (OutputFormat::JsonLines | OutputFormat::Parquet)) => Ok(format),
            _ => Err(BatchError::UnknownFormat {
                path: target.to_path_buf(),
                role: "page record output",
                expected: "`.jsonl` or `.parquet`",
            }),
        }
    }

    /// Writes `records` and says how far the output got: record that in
    /// the checkpoint.
    pub fn write(&mut self, records: &[PageRecord]) -> Result<OutputProgress, BatchError> {
        match self.format {
            OutputFormat::Parquet => self.output.write(&to_record_batch(records)?),
            _ => {
                let mut lines = Vec::with_capacity(records.len() * 1024);
                for record in records {
                    serde_json::to_writer(&mut lines, record).expect("page records serialise");
                    lines.push(b'\n');
                }
                self.output.write_lines(&lines, records.len() as u64)
            }
        }
    }

    /// Moves the finished output to its name.
    pub fn finish(self) -> Result<OutputProgress, BatchError> {
        self.output.finish()
    }
}

#[cfg(test)]
mod tests {
    use arrow::array::{Array, AsArray};
    use webcanon_client::{NotFetchedReason, PageRecord};
    use webcanon_core::policy::{RuleEvidence, Verdict};
    use webcanon_core::robots::Directive;
    use webcanon_core::signals::{UsageWarning, WarningCode, WarningSource};

    use super::*;

    fn records() -> Vec<PageRecord> {
        let rule = RuleEvidence { line: 2, directive: Directive::Disallow, pattern: "/private".into() };
        let mut noai = PageRecord::not_fetched("https://a.test/page", NotFetchedReason::HttpStatus);
        noai.warnings = vec![
            UsageWarning::new(WarningCode::Noai, WarningSource::XRobotsTag, "X-Robots-Tag: noai".into()),
            UsageWarning::new(WarningCode::Noai, WarningSource::MetaRobots, "meta robots noai".into()),
        ];
        noai.status = Some(410);
        vec![
            PageRecord::not_fetched("https://a.test/private", NotFetchedReason::Disallowed)
                .with_verdict(Verdict::DisallowedExplicit, Some(rule)),
            noai,
            PageRecord::not_fetched("https://a.test/deep", NotFetchedReason::Limit)
                .with_crawl_position(3, Some("https://a.test/".into())),
        ]
    }

    #[test]
    fn every_field_has_its_column() {
        let batch = to_record_batch(&records()).unwrap();
        assert_eq!(batch.num_rows(), 3);
        let text = |name: &str, row: usize| {
            let column = batch.column_by_name(name).unwrap().as_string::<i32>();
            column.is_valid(row).then(|| column.value(row).to_string())
        };
        assert_eq!(text("verdict", 0).as_deref(), Some("disallowed_explicit"));
        assert_eq!(text("recommendation", 0).as_deref(), Some("not_recommended"));
        assert_eq!(text("rule_directive", 0).as_deref(), Some("disallow"));
        assert_eq!(text("rule_pattern", 0).as_deref(), Some("/private"));
        assert_eq!(text("not_fetched", 1).as_deref(), Some("http_status"));
        assert_eq!(text("parent", 2).as_deref(), Some("https://a.test/"));
        assert_eq!(text("verdict", 1), None);
        let status = batch.column_by_name("status").unwrap().as_primitive::<arrow::datatypes::UInt16Type>();
        assert_eq!((status.is_null(0), status.value(1)), (true, 410));
        let warnings = batch.column_by_name("warnings").unwrap().as_list::<i32>();
        assert_eq!((warnings.value(0).len(), warnings.value(1).len(), warnings.value(2).len()), (0, 2, 0));
        let second = warnings.value(1);
        let codes = second.as_struct().column_by_name("code").unwrap().as_string::<i32>();
        let sources = second.as_struct().column_by_name("source").unwrap().as_string::<i32>();
        assert_eq!((codes.value(0), sources.value(0)), ("noai", "x_robots_tag"));
        assert_eq!((codes.value(1), sources.value(1)), ("noai", "meta_robots"));
    }

    #[test]
    fn records_written_in_two_runs_read_back_whole_in_both_formats() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["out.jsonl", "out.parquet"] {
            let target = dir.path().join(name);
            let state = dir.path().join(format!("{name}.state"));
            std::fs::create_dir(&state).unwrap();
            let records = records();
            let mut writer = PageRecordWriter::open(&target, &state, OutputProgress::default()).unwrap();
            let progress = writer.write(&records[..2]).unwrap();
            // A run killed after its checkpoint, having written more.
            writer.write(&records[2..]).unwrap();
            drop(writer);
            let mut writer = PageRecordWriter::open(&target, &state, progress).unwrap();
            writer.write(&records[2..]).unwrap();
            assert_eq!(writer.finish().unwrap().rows, 3);
            if name.ends_with(".jsonl") {
                let text = std::fs::read_to_string(&target).unwrap();
                let read: Vec<PageRecord> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
                assert_eq!(read, records);
            } else {
                let batches: Vec<RecordBatch> =
                    crate::snapshot::parquet_batches(&target).unwrap().collect::<Result<_, _>>().unwrap();
                let batch = arrow::compute::concat_batches(&schema(), &batches).unwrap();
                assert_eq!(batch, to_record_batch(&records).unwrap());
            }
        }
    }

    #[test]
    fn a_csv_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let error = PageRecordWriter::open(&dir.path().join("out.csv"), dir.path(), OutputProgress::default());
        assert!(error.unwrap_err().to_string().contains("`.jsonl` or `.parquet`"));
    }
}
