//! The snapshot in Parquet and in memory.

use std::sync::Arc;

use arrow::array::{Array, StringArray};
use webcanon_batch::snapshot::{Snapshot, SnapshotEntry, SnapshotStatus};
use webcanon_batch::verdict::VerdictPass;
use webcanon_core::policy::{RobotsAvailability, RobotsMode};

fn entry(origin: &str, status: SnapshotStatus, http: Option<u16>, body: Option<&str>) -> SnapshotEntry {
    SnapshotEntry {
        origin: origin.into(),
        status,
        http_status: http,
        body: body.map(|b| b.as_bytes().to_vec()),
        fetched_at: 1_700_000_000,
        error: None,
        last_good_at: None,
    }
}

fn sample() -> Vec<SnapshotEntry> {
    vec![
        entry("https://a.test", RobotsAvailability::Parsed.into(), Some(200), Some("User-agent: *\nDisallow: /x\n")),
        entry("https://b.test", RobotsAvailability::Unavailable.into(), Some(404), None),
        SnapshotEntry {
            error: Some("HTTP 503".into()),
            last_good_at: Some(1_699_000_000),
            ..entry(
                "https://c.test",
                RobotsAvailability::Unreachable.into(),
                Some(503),
                Some("User-agent: *\nDisallow: /\n"),
            )
        },
        SnapshotEntry {
            error: Some("`10.0.0.1` is a private address".into()),
            ..entry("https://d.test", SnapshotStatus::Refused, None, None)
        },
        entry("https://e.test", RobotsAvailability::NotRobots.into(), Some(200), Some("<html></html>")),
        // Made elsewhere: names a last good copy but carries none.
        SnapshotEntry {
            last_good_at: Some(1_699_000_000),
            ..entry("https://g.test", RobotsAvailability::Unreachable.into(), Some(503), None)
        },
    ]
}

#[test]
fn parquet_round_trip_keeps_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("robots.parquet");
    let snapshot = Snapshot::from_entries(sample());
    snapshot.write_parquet(&path).unwrap();
    let read = Snapshot::read_parquet(&path).unwrap();
    assert_eq!(read.entries().cloned().collect::<Vec<_>>(), sample());
    assert!(!dir.path().join("robots.parquet.tmp").exists());
}

#[test]
fn a_later_entry_for_an_origin_wins() {
    let mut entries = sample();
    entries.push(entry("https://a.test", RobotsAvailability::Unavailable.into(), Some(410), None));
    let snapshot = Snapshot::from_entries(entries);
    assert_eq!(snapshot.len(), 6);
    assert_eq!(snapshot.get("https://a.test").unwrap().http_status, Some(410));
}

#[test]
fn verdicts_from_a_snapshot() {
    let pass =
        VerdictPass::new(Arc::new(Snapshot::from_entries(sample())), "bot".parse().unwrap(), RobotsMode::Respect);
    // url, verdict, allowed, robots_status
    let rows = [
        ("https://a.test/x/1", "disallowed_explicit", false, Some("200")),
        ("https://a.test/y", "allowed_implicit", true, Some("200")),
        ("https://b.test/x", "allowed_implicit", true, Some("404")),
        ("https://c.test/any", "disallowed_explicit", false, Some("503")),
        ("https://d.test/", "unknown_unreachable", false, Some("refused")),
        ("https://e.test/", "unknown_parse_error", true, Some("200")),
        ("https://f.test/", "unknown_unreachable", false, Some("missing")),
        ("https://g.test/", "unknown_unreachable", false, Some("503")),
        ("ftp://a.test/", "invalid_url", false, None),
    ];
    let urls = StringArray::from(rows.iter().map(|r| r.0).collect::<Vec<_>>());
    let batch = pass.decide(&urls).unwrap();
    assert_eq!(batch.schema(), VerdictPass::output_schema());
    assert_eq!(batch.num_rows(), rows.len());
    for (i, (url, verdict, allowed, status)) in rows.into_iter().enumerate() {
        let one = pass.decide_one(url);
        assert_eq!(
            (one.verdict.as_str(), one.allowed, one.robots_status.as_deref()),
            (verdict, allowed, status),
            "{url}"
        );
        let column = |name: &str| batch.column_by_name(name).unwrap().clone();
        let verdicts = column("verdict");
        let verdicts = verdicts.as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(verdicts.value(i), verdict, "{url}");
    }
}

#[test]
fn a_batch_that_is_not_a_snapshot_is_refused_by_name() {
    let batch = arrow::record_batch::RecordBatch::try_from_iter([(
        "url",
        Arc::new(StringArray::from(vec!["https://a.test"])) as Arc<dyn Array>,
    )])
    .unwrap();
    let err = Snapshot::from_record_batch(&batch).unwrap_err().to_string();
    assert_eq!(err, "not a robots snapshot: no column `origin` (the columns are: url)");
}
