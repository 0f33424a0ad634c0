//! The content pass of `batch --content`: every URL of the dataset becomes
//! a [`PageRecord`], in input order; the URLs the verdict pass allows are
//! fetched and converted through [`Client::fetch_with`], the others are
//! recorded with their verdict and reason, never requested.
//!
//! The input is taken in chunks of at most [`CHUNK_ROWS`] rows. A chunk's
//! allowed URLs are grouped by host; up to `concurrency` hosts are fetched
//! from at once, the URLs of one host one after the other, each request
//! paced by the client (`Crawl-delay`, the minimum interval per host).
//! Chunks follow one another, so a host never sees two requests of the
//! pass at the same time, and memory holds one chunk's records, whatever
//! the dataset's size. The price of input order: a chunk ends with its
//! slowest host.
//!
//! Each fetched record is appended to the chunk's journal
//! ([`ContentJournal`]) before its host's task goes on, so a killed run
//! fetches again at most the `concurrency` pages in flight at the kill.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::JoinSet;
use webcanon_client::error::Error;
use webcanon_client::{Client, FetchOptions, NotFetchedReason, PageRecord};
use webcanon_core::policy::{RuleEvidence, Verdict};
use webcanon_core::robots::Directive;

use crate::BatchError;
use crate::verdict::{INVALID_URL, UrlVerdict};

/// The most input rows in one chunk of the content pass: its records (up
/// to the fetch's byte limit of content each) are what the pass holds in
/// memory, and its slowest host is what the other hosts wait for.
pub const CHUNK_ROWS: usize = 256;

/// The record of a URL the verdict pass does not allow: its verdict, rule
/// and reason; `None` for an allowed URL, which is to be fetched.
pub fn record_without_fetch(url: &str, verdict: &UrlVerdict) -> Option<PageRecord> {
    if verdict.allowed {
        return None;
    }
    if verdict.verdict == INVALID_URL {
        let mut record = PageRecord::not_fetched(url, NotFetchedReason::InvalidUrl);
        record.error = verdict.error.clone();
        return Some(record);
    }
    let named = verdict_named(&verdict.verdict);
    let reason = match (named, verdict.robots_status.as_deref()) {
        (_, Some("refused")) => NotFetchedReason::SsrfRefused,
        (Some(Verdict::DisallowedExplicit), _) => NotFetchedReason::Disallowed,
        _ => NotFetchedReason::RobotsUnreachable,
    };
    let record = PageRecord::not_fetched(url, reason);
    Some(match named {
        Some(named) => {
            // The verdict output names a rule by line and pattern; its
            // directive is the verdict's own.
            let directive = if named == Verdict::AllowedExplicit { Directive::Allow } else { Directive::Disallow };
            let rule = verdict.rule_line.zip(verdict.rule_pattern.clone()).map(|(line, pattern)| RuleEvidence {
                line,
                directive,
                pattern,
            });
            record.with_verdict(named, rule)
        }
        None => record,
    })
}

fn verdict_named(name: &str) -> Option<Verdict> {
    [
        Verdict::AllowedExplicit,
        Verdict::AllowedImplicit,
        Verdict::DisallowedExplicit,
        Verdict::UnknownUnreachable,
        Verdict::UnknownParseError,
        Verdict::SkippedByUserPolicy,
    ]
    .into_iter()
    .find(|v| v.as_str() == name)
}

/// One journaled record: the row of the output it belongs to.
#[derive(Debug, Serialize, Deserialize)]
struct JournalLine {
    row: u64,
    record: PageRecord,
}

/// The records fetched for the current chunk, as JSON lines, flushed after
/// each: what a killed run does not fetch again.
#[derive(Debug)]
pub struct ContentJournal {
    path: PathBuf,
    file: File,
}

impl ContentJournal {
    /// Opens the journal at `path` and returns the records it holds for
    /// rows from `first_row` on (earlier rows were written to the output
    /// before the kill). A torn last line is cut off.
    pub fn open(path: &Path, first_row: u64) -> Result<(ContentJournal, HashMap<u64, PageRecord>), BatchError> {
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)
            .map_err(|e| BatchError::io(path, e))?;
        let mut records = HashMap::new();
        let mut kept = 0u64;
        let mut reader = BufReader::new(&file);
        let mut line = String::new();
        loop {
            line.clear();
            let read = reader.read_line(&mut line).map_err(|e| BatchError::io(path, e))?;
            if read == 0 || !line.ends_with('\n') {
                break;
            }
            let Ok(JournalLine { row, record }) = serde_json::from_str(&line) else { break };
            kept += read as u64;
            if row >= first_row {
                records.insert(row, record);
            }
        }
        file.set_len(kept).map_err(|e| BatchError::io(path, e))?;
        file.seek(SeekFrom::End(0)).map_err(|e| BatchError::io(path, e))?;
        Ok((ContentJournal { path: path.to_path_buf(), file }, records))
    }

    fn append(&mut self, row: u64, record: &PageRecord) -> Result<(), BatchError> {
        let mut line = serde_json::to_vec(&JournalLine { row, record: record.clone() }).expect("records serialise");
        line.push(b'\n');
        self.file.write_all(&line).map_err(|e| BatchError::io(&self.path, e))?;
        self.file.flush().map_err(|e| BatchError::io(&self.path, e))
    }

    /// Empties the journal once its chunk is in the output's checkpoint.
    pub fn clear(&mut self) -> Result<(), BatchError> {
        self.file.set_len(0).map_err(|e| BatchError::io(&self.path, e))?;
        self.file.seek(SeekFrom::Start(0)).map_err(|e| BatchError::io(&self.path, e))?;
        Ok(())
    }
}

/// A URL of the chunk to fetch: its output row and the URL.
#[derive(Debug, Clone)]
pub struct Todo {
    /// The row of the output the record goes to.
    pub row: u64,
    /// The URL as the input gives it.
    pub url: String,
}

/// What fetching a chunk did.
#[derive(Debug, Default)]
pub struct ChunkOutcome {
    /// The records fetched, by output row.
    pub records: HashMap<u64, PageRecord>,
    /// Fetches this machine failed (out of descriptors, ports, memory):
    /// nothing recorded for them, they are fetched on the next run.
    pub local_failures: u64,
    /// What the first of them was.
    pub first_local_failure: Option<String>,
}

struct Fetched {
    row: u64,
    record: Result<PageRecord, String>,
    recorded: oneshot::Sender<()>,
}

/// Fetches `todo` through `client` under `options`, `concurrency` hosts at
/// once and one request at a time per host, journaling each record before
/// its host goes on; `advance` is told of every record.
pub async fn fetch_chunk(
    client: &Client,
    options: &FetchOptions,
    todo: Vec<Todo>,
    concurrency: usize,
    journal: &mut ContentJournal,
    advance: &dyn Fn(u64),
) -> Result<ChunkOutcome, BatchError> {
    let (tx, mut rx) = mpsc::channel::<Fetched>(concurrency.max(1));
    let producer = tokio::spawn(fetch_by_host(client.clone(), *options, by_host(todo), concurrency, tx));
    let mut outcome = ChunkOutcome::default();
    while let Some(Fetched { row, record, recorded }) = rx.recv().await {
        match record {
            Ok(record) => {
                journal.append(row, &record)?;
                outcome.records.insert(row, record);
            }
            Err(why) => {
                outcome.local_failures += 1;
                outcome.first_local_failure.get_or_insert(why);
            }
        }
        // Journaled: the host's task may go on. It may be gone already.
        let _ = recorded.send(());
        advance(1);
    }
    producer.await.map_err(|e| BatchError::Client(format!("the content pass failed: {e}")))?;
    Ok(outcome)
}

/// `todo` grouped by lower-cased host, in first-seen order.
fn by_host(todo: Vec<Todo>) -> Vec<Vec<Todo>> {
    crate::fetch::group_by_key(todo, |item| {
        url::Url::parse(&item.url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default()
    })
}

async fn fetch_by_host(
    client: Client,
    options: FetchOptions,
    groups: Vec<Vec<Todo>>,
    concurrency: usize,
    sink: mpsc::Sender<Fetched>,
) {
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for group in groups {
        let Ok(permit) = permits.clone().acquire_owned().await else { break };
        let client = client.clone();
        let sink = sink.clone();
        tasks.spawn(async move {
            for Todo { row, url } in group {
                let record = match client.fetch_with(url.as_str(), &options).await {
                    Ok(result) => Ok(PageRecord::from_result(result)),
                    Err(Error::Fetch(local)) if local.is_local() => Err(local.to_string()),
                    Err(error) => Ok(PageRecord::from_error(&url, &error)),
                };
                let (recorded, confirmed) = oneshot::channel();
                if sink.send(Fetched { row, record, recorded }).await.is_err() || confirmed.await.is_err() {
                    break;
                }
            }
            drop(permit);
        });
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(name: &str, allowed: bool, status: Option<&str>, rule: Option<(u32, &str)>) -> UrlVerdict {
        UrlVerdict {
            origin: Some("https://a.test".into()),
            allowed,
            verdict: name.into(),
            recommendation: None,
            rule_line: rule.map(|r| r.0),
            rule_pattern: rule.map(|r| r.1.to_string()),
            robots_status: status.map(str::to_string),
            error: None,
        }
    }

    #[test]
    fn refused_urls_are_recorded_with_their_reason() {
        let url = "https://a.test/x";
        let cases = [
            (verdict("disallowed_explicit", false, Some("200"), Some((2, "/x"))), NotFetchedReason::Disallowed),
            (verdict("unknown_unreachable", false, Some("503"), None), NotFetchedReason::RobotsUnreachable),
            (verdict("unknown_unreachable", false, Some("missing"), None), NotFetchedReason::RobotsUnreachable),
            (verdict("unknown_unreachable", false, Some("refused"), None), NotFetchedReason::SsrfRefused),
            (verdict(INVALID_URL, false, None, None), NotFetchedReason::InvalidUrl),
        ];
        for (verdict, reason) in cases {
            let record = record_without_fetch(url, &verdict).unwrap();
            assert_eq!(record.not_fetched, Some(reason), "{verdict:?}");
            assert!(record.fetched_at.is_none(), "never requested");
        }
        let record = record_without_fetch(url, &verdict("disallowed_explicit", false, None, Some((2, "/x")))).unwrap();
        assert_eq!(record.rule, Some(RuleEvidence { line: 2, directive: Directive::Disallow, pattern: "/x".into() }));
        assert_eq!(record.verdict, Some(Verdict::DisallowedExplicit));
        assert!(record_without_fetch(url, &verdict("allowed_implicit", true, Some("200"), None)).is_none());
    }

    #[test]
    fn the_journal_keeps_whole_lines_of_the_current_chunk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("content.journal");
        let (mut journal, held) = ContentJournal::open(&path, 0).unwrap();
        assert!(held.is_empty());
        for row in [3, 7, 8] {
            journal
                .append(row, &PageRecord::not_fetched(format!("https://a.test/{row}"), NotFetchedReason::Limit))
                .unwrap();
        }
        drop(journal);
        // A kill in the middle of a line.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"row":9,"record":{"requ"#).unwrap();
        drop(file);
        let (mut journal, held) = ContentJournal::open(&path, 5).unwrap();
        let mut rows: Vec<u64> = held.keys().copied().collect();
        rows.sort_unstable();
        assert_eq!(rows, [7, 8], "rows before the checkpoint and the torn line are dropped");
        assert_eq!(held[&7].requested_url, "https://a.test/7");
        journal.append(9, &PageRecord::not_fetched("https://a.test/9", NotFetchedReason::Limit)).unwrap();
        drop(journal);
        let (mut journal, held) = ContentJournal::open(&path, 5).unwrap();
        assert_eq!(held.len(), 3, "appends follow the last whole line");
        journal.clear().unwrap();
        drop(journal);
        assert!(ContentJournal::open(&path, 0).unwrap().1.is_empty());
    }
}
