//! The registry over real files: paging, every limit, cancellation,
//! failure, the bounds on jobs, expiry.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::stream::{self, BoxStream, StreamExt};
use serde_json::{Value, json};
use webcanon_jobs::{
    JobFailure, JobId, JobLimits, JobSpec, JobState, JobStatus, Jobs, JobsConfig, JobsError, LimitKind,
};

type Records = BoxStream<'static, Result<Value, JobFailure>>;

fn registry(config: JobsConfig) -> Jobs {
    Jobs::new(config).unwrap()
}

fn spec(limits: JobLimits) -> JobSpec {
    JobSpec { kind: "test", limits, count_by: Some("kind") }
}

fn numbered(count: u64) -> Records {
    stream::iter((0..count).map(|n| Ok(json!({"n": n, "kind": if n % 2 == 0 { "even" } else { "odd" }})))).boxed()
}

/// Records that never end, one every millisecond, flagging when dropped.
fn endless(dropped: Arc<AtomicBool>) -> Records {
    struct Flag(Arc<AtomicBool>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let flag = Flag(dropped);
    stream::unfold((0u64, flag), |(n, flag)| async move {
        tokio::time::sleep(Duration::from_millis(1)).await;
        Some((Ok(json!({"n": n})), (n + 1, flag)))
    })
    .boxed()
}

async fn finished(jobs: &Jobs, id: &JobId) -> JobStatus {
    for _ in 0..500 {
        let status = jobs.status(id).unwrap();
        if status.state.is_finished() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("job {id} did not finish");
}

fn id_of(status: &JobStatus) -> JobId {
    status.id.parse().unwrap()
}

#[tokio::test]
async fn pages_from_cursors_join_to_every_record_in_order() {
    let jobs = registry(JobsConfig::default());
    let id = id_of(&jobs.start(spec(JobLimits::default()), numbered(2_500)).unwrap());
    let status = finished(&jobs, &id).await;
    assert_eq!((status.state, status.records), (JobState::Completed, 2_500));
    assert_eq!(status.counts.get("even"), Some(&1_250));
    let mut cursor = Some(0);
    let mut seen = Vec::new();
    while let Some(at) = cursor {
        let page = jobs.page(&id, at, 700).await.unwrap();
        assert!(page.records.len() <= 700);
        seen.extend(page.records.iter().map(|r| r["n"].as_u64().unwrap()));
        cursor = page.next_cursor;
    }
    assert_eq!(seen, (0..2_500).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_page_never_holds_more_than_the_page_ceiling() {
    let jobs = registry(JobsConfig::default());
    let id = id_of(&jobs.start(spec(JobLimits::default()), numbered(1_500)).unwrap());
    finished(&jobs, &id).await;
    let page = jobs.page(&id, 0, usize::MAX).await.unwrap();
    assert_eq!(page.records.len(), webcanon_jobs::MAX_PAGE_RECORDS);
}

#[tokio::test]
async fn records_can_be_read_while_the_job_runs() {
    let jobs = registry(JobsConfig::default());
    let dropped = Arc::new(AtomicBool::new(false));
    let id = id_of(&jobs.start(spec(JobLimits::default()), endless(dropped.clone())).unwrap());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let page = jobs.page(&id, 0, 10).await.unwrap();
    assert_eq!(page.state, JobState::Running);
    assert_eq!(page.records.len(), 10);
    let next = jobs.page(&id, page.next_cursor.unwrap(), 10).await.unwrap();
    assert_eq!(next.records[0]["n"], 10);
    jobs.cancel(&id).unwrap();
}

#[tokio::test]
async fn each_limit_stops_the_job_and_says_which() {
    let jobs = registry(JobsConfig::default());
    let rows: [(JobLimits, LimitKind, u64); 3] = [
        (JobLimits { max_records: 100, ..JobLimits::default() }, LimitKind::Records, 100),
        // `{"n":0}` and a newline: 8 bytes a record up to n = 9.
        (JobLimits { max_result_bytes: 8 * 5 + 3, ..JobLimits::default() }, LimitKind::ResultBytes, 5),
        (JobLimits { max_duration: Duration::from_millis(300), ..JobLimits::default() }, LimitKind::Duration, 0),
    ];
    for (limits, kind, records) in rows {
        let dropped = Arc::new(AtomicBool::new(false));
        let id = id_of(&jobs.start(spec(limits), endless(dropped.clone())).unwrap());
        let status = finished(&jobs, &id).await;
        assert_eq!((status.state, status.limit), (JobState::LimitReached, Some(kind)), "{status:?}");
        if kind != LimitKind::Duration {
            assert_eq!(status.records, records);
        }
        assert!(dropped.load(Ordering::SeqCst), "{kind:?}: the work is dropped");
        let page = jobs.page(&id, 0, 1_000).await.unwrap();
        assert_eq!(page.records.len() as u64, status.records, "every record counted is readable");
    }
}

#[tokio::test]
async fn work_that_ends_exactly_at_the_record_limit_is_complete() {
    let jobs = registry(JobsConfig::default());
    let limits = JobLimits { max_records: 10, ..JobLimits::default() };
    let id = id_of(&jobs.start(spec(limits), numbered(10)).unwrap());
    assert_eq!(finished(&jobs, &id).await.state, JobState::Completed);
}

#[tokio::test]
async fn a_job_asking_more_than_the_ceiling_gets_the_ceiling() {
    let ceiling = JobLimits { max_records: 7, ..JobLimits::default() };
    let jobs = registry(JobsConfig { ceiling, ..JobsConfig::default() });
    let asked = JobLimits { max_records: u64::MAX, max_result_bytes: u64::MAX, max_duration: Duration::MAX };
    let started = jobs.start(spec(asked), numbered(100)).unwrap();
    assert_eq!(started.limits.max_records, 7);
    let status = finished(&jobs, &id_of(&started)).await;
    assert_eq!((status.state, status.records), (JobState::LimitReached, 7));
}

#[tokio::test]
async fn cancelling_drops_the_work_and_keeps_what_was_written() {
    let jobs = registry(JobsConfig::default());
    let dropped = Arc::new(AtomicBool::new(false));
    let id = id_of(&jobs.start(spec(JobLimits::default()), endless(dropped.clone())).unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(jobs.cancel(&id).unwrap().state, JobState::Cancelled);
    let status = finished(&jobs, &id).await;
    assert_eq!(status.state, JobState::Cancelled);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(dropped.load(Ordering::SeqCst));
    let written = jobs.status(&id).unwrap().records;
    assert!(written > 0);
    let mut cursor = Some(0);
    let mut read = 0;
    while let Some(at) = cursor {
        let page = jobs.page(&id, at, 1_000).await.unwrap();
        read += page.records.len() as u64;
        cursor = page.next_cursor;
    }
    assert_eq!(read, written);
}

#[tokio::test]
async fn a_failure_ends_the_job_with_its_error_after_the_records_before() {
    let jobs = registry(JobsConfig::default());
    let records =
        stream::iter(vec![Ok(json!({"n": 0})), Err(JobFailure(json!({"kind": "ssrf"}))), Ok(json!({"n": 1}))]);
    let id = id_of(&jobs.start(spec(JobLimits::default()), records.boxed()).unwrap());
    let status = finished(&jobs, &id).await;
    assert_eq!((status.state, status.records), (JobState::Failed, 1));
    assert_eq!(status.error, Some(json!({"kind": "ssrf"})));
}

#[tokio::test]
async fn starts_past_the_running_or_kept_bounds_are_refused_and_leave_no_file() {
    let jobs = registry(JobsConfig { max_running: 2, max_kept: 3, ..JobsConfig::default() });
    let flag = || Arc::new(AtomicBool::new(false));
    let first = id_of(&jobs.start(spec(JobLimits::default()), endless(flag())).unwrap());
    let second = id_of(&jobs.start(spec(JobLimits::default()), endless(flag())).unwrap());
    for _ in 0..1_000 {
        let refused = jobs.start(spec(JobLimits::default()), endless(flag())).unwrap_err();
        assert!(matches!(refused, JobsError::TooManyRunning { limit: 2 }), "{refused}");
    }
    jobs.cancel(&first).unwrap();
    jobs.start(spec(JobLimits::default()), endless(flag())).unwrap();
    jobs.cancel(&second).unwrap();
    let refused = jobs.start(spec(JobLimits::default()), numbered(1)).unwrap_err();
    assert!(matches!(refused, JobsError::TooManyKept { limit: 3, .. }), "{refused}");
    assert_eq!(std::fs::read_dir(jobs.folder()).unwrap().count(), 3);
}

#[tokio::test]
async fn a_finished_job_is_forgotten_with_its_file_after_its_time_to_live() {
    let jobs = registry(JobsConfig { ttl: Duration::from_millis(300), ..JobsConfig::default() });
    let id = id_of(&jobs.start(spec(JobLimits::default()), numbered(5)).unwrap());
    let status = finished(&jobs, &id).await;
    assert!(status.expires_in_seconds.is_some());
    assert_eq!(std::fs::read_dir(jobs.folder()).unwrap().count(), 1);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(matches!(jobs.status(&id), Err(JobsError::NotFound)));
    assert_eq!(std::fs::read_dir(jobs.folder()).unwrap().count(), 0);
}

#[tokio::test]
async fn cursors_not_handed_out_are_refused() {
    let jobs = registry(JobsConfig::default());
    let id = id_of(&jobs.start(spec(JobLimits::default()), numbered(3)).unwrap());
    finished(&jobs, &id).await;
    let first = jobs.page(&id, 0, 1).await.unwrap().next_cursor.unwrap();
    for cursor in [first - 1, first + 1, 1 << 40] {
        let refused = jobs.page(&id, cursor, 1).await.unwrap_err();
        assert!(matches!(refused, JobsError::InvalidCursor { .. }), "{cursor}: {refused}");
    }
    let unknown: JobId = "0123456789abcdef0123456789abcdef".parse().unwrap();
    assert!(matches!(jobs.page(&unknown, 0, 1).await, Err(JobsError::NotFound)));
}

#[tokio::test]
async fn counted_values_are_bounded() {
    let jobs = registry(JobsConfig::default());
    let records = stream::iter((0..500).map(|n| Ok(json!({"kind": format!("v{n}")}))));
    let id = id_of(&jobs.start(spec(JobLimits::default()), records.boxed()).unwrap());
    let status = finished(&jobs, &id).await;
    assert!(status.counts.len() <= 65, "{}", status.counts.len());
    assert_eq!(status.counts.values().sum::<u64>(), 500);
}

#[tokio::test]
async fn a_new_registry_removes_the_results_left_in_its_folder_and_a_dropped_one_its_own_folder() {
    let jobs = registry(JobsConfig::default());
    let folder = jobs.folder().to_path_buf();
    let id = id_of(&jobs.start(spec(JobLimits::default()), numbered(2)).unwrap());
    finished(&jobs, &id).await;
    let root = folder.parent().unwrap().to_path_buf();
    let reopened = registry(JobsConfig { data_dir: Some(root.clone()), ..JobsConfig::default() });
    assert_eq!(std::fs::read_dir(reopened.folder()).unwrap().count(), 0);
    drop(reopened);
    assert!(root.exists(), "a folder the operator named is kept");
    drop(jobs);
    assert!(!root.exists(), "the registry's own temporary folder is removed");
}

#[tokio::test]
async fn a_jobs_work_folder_lives_while_it_runs_and_is_removed_when_it_stops() {
    let jobs = registry(JobsConfig::default());
    let dropped = Arc::new(AtomicBool::new(false));
    let mut given = None;
    let started = jobs
        .start_in(spec(JobLimits::default()), |folder| {
            std::fs::write(folder.join("frontier"), b"state").unwrap();
            given = Some(folder.to_path_buf());
            endless(dropped.clone())
        })
        .unwrap();
    let folder = given.unwrap();
    assert_eq!(folder.parent(), Some(jobs.folder()));
    assert!(folder.join("frontier").is_file());
    jobs.cancel(&id_of(&started)).unwrap();
    for _ in 0..100 {
        if !folder.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!folder.exists(), "the work folder is removed once the job stops");
    assert!(dropped.load(Ordering::SeqCst));
    assert_eq!(std::fs::read_dir(jobs.folder()).unwrap().count(), 1, "the results stay until the job expires");
}

#[tokio::test]
async fn a_new_registry_removes_work_folders_left_in_its_folder() {
    let jobs = registry(JobsConfig::default());
    let root = jobs.folder().parent().unwrap().to_path_buf();
    let left = jobs.folder().join("0123456789abcdef0123456789abcdef.work");
    std::fs::create_dir(&left).unwrap();
    std::fs::write(left.join("frontier"), b"state").unwrap();
    let kept = jobs.folder().join("notes.work");
    std::fs::create_dir(&kept).unwrap();
    let reopened = registry(JobsConfig { data_dir: Some(root), ..JobsConfig::default() });
    assert!(!left.exists());
    assert!(kept.exists(), "only folders named by a job id are removed");
    drop(reopened);
}

#[tokio::test]
async fn null_and_missing_counted_fields_count_apart() {
    let jobs = registry(JobsConfig::default());
    let records = stream::iter([json!({"kind": null}), json!({"kind": "a"}), json!({}), json!({"kind": null})].map(Ok));
    let id = id_of(&jobs.start(spec(JobLimits::default()), records.boxed()).unwrap());
    let status = finished(&jobs, &id).await;
    let counts: Vec<(&str, u64)> = status.counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(counts, [("a", 1), ("none", 2), ("other", 1)]);
}

#[tokio::test]
async fn a_page_holds_at_most_the_bytes_asked_but_at_least_one_record() {
    let jobs = registry(JobsConfig::default());
    let id = id_of(&jobs.start(spec(JobLimits::default()), numbered(100)).unwrap());
    finished(&jobs, &id).await;
    // `{"kind":"even","n":0}` and a newline: 22 bytes a record up to n = 9.
    let page = jobs.page_within(&id, 0, 100, 22 * 3 + 5).await.unwrap();
    assert_eq!(page.records.len(), 3);
    let tiny = jobs.page_within(&id, page.next_cursor.unwrap(), 100, 1).await.unwrap();
    assert_eq!(tiny.records.len(), 1);
    assert_eq!(tiny.records[0]["n"], 3);
}
