//! `Client.map`, `Client.crawl` and `Client.crawl_pass`: the site map and
//! the crawl of `webcanon map` and `webcanon crawl`.
//!
//! `map` and `crawl` return a [`Records`] iterator: the run goes on a
//! thread of its own, handing each record over a channel of
//! [`CHANNEL_RECORDS`] places, so records come as the run finds them,
//! memory stays bounded whatever the site, and a reader that stops
//! (breaks out of its loop, drops the iterator) stops the run at its next
//! record. `crawl_pass` runs a crawl to the end into a resumable file, as
//! `webcanon crawl -o` does, for one shard of the seeds' origins.

use std::io;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyStopIteration};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::Deserialize;
use url::Url;
use webcanon_batch::origin::{Shard, origin_of};
use webcanon_client::error::Error;
use webcanon_client::web_url::WebUrl;
use webcanon_client::{Client, FetchOptions, FetchOverrides, PacingConfig, PageRecord};
use webcanon_crawl::frontier::Frontier;
use webcanon_crawl::map::{MapConfig, MapError, MapRecord, MapSource, MapSources, map_site};
use webcanon_crawl::sink::ParquetFile;
use webcanon_crawl::{
    CrawlConfig, CrawlError, CrawlLimits, CrawlSummary, Crawler, JsonLinesFile, RecordSink, Scope, ScopeConfig,
    SeedSources, read_seed_file,
};

use crate::errors::{batch_error, client_error, usage_error};

/// Records waiting for the reader, at most.
pub const CHANNEL_RECORDS: usize = 16;

/// The keyword arguments of `crawl` and `crawl_pass` that say what the
/// crawl does (the page options are [`FetchOverrides`], as in `fetch`;
/// `seeds_file`, a path, is read apart).
#[derive(Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CrawlKeywords {
    scope: String,
    include: Vec<String>,
    exclude: Vec<String>,
    max_depth: Option<u32>,
    max_pages: Option<u64>,
    max_total_bytes: Option<u64>,
    max_pages_per_host: Option<u64>,
    concurrency: usize,
    /// Of `start`, `sitemap`, `llms`; default: all.
    seed: Option<Vec<String>>,
    probe_soft_404: bool,
}

impl Default for CrawlKeywords {
    fn default() -> Self {
        CrawlKeywords {
            scope: "origin".into(),
            include: Vec::new(),
            exclude: Vec::new(),
            max_depth: None,
            max_pages: None,
            max_total_bytes: None,
            max_pages_per_host: None,
            concurrency: CrawlConfig::default().concurrency,
            seed: None,
            probe_soft_404: CrawlConfig::default().probe_soft_404,
        }
    }
}

/// The names of [`FetchOverrides`]' fields: these keywords shape a page,
/// the others the crawl.
const PAGE_KEYWORDS: [&str; 8] =
    ["max_bytes", "alternatives", "format", "links", "images", "render", "purpose", "comments"];

/// A crawl as the keywords describe it.
struct CrawlPlan {
    starts: Vec<Url>,
    config: CrawlConfig,
    options: FetchOptions,
}

impl CrawlPlan {
    /// The plan of a crawl of `urls` (and the seed file, if named) by
    /// `client` under `keywords`.
    fn new(
        py: Python<'_>,
        client: &Client,
        pacing: PacingConfig,
        urls: Vec<String>,
        keywords: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<CrawlPlan> {
        let crawl = PyDict::new(py);
        let page = PyDict::new(py);
        let mut seeds_file: Option<PathBuf> = None;
        for (name, value) in keywords.into_iter().flat_map(|k| k.iter()) {
            if value.is_none() {
                continue;
            }
            let name: String = name.extract()?;
            if name == "seeds_file" {
                seeds_file = Some(value.extract()?);
                continue;
            }
            let target = if PAGE_KEYWORDS.contains(&name.as_str()) { &page } else { &crawl };
            target.set_item(name, value)?;
        }
        let keywords: CrawlKeywords =
            pythonize::depythonize(crawl.as_any()).map_err(|e| usage_error(py, e.to_string()))?;
        let overrides: FetchOverrides =
            pythonize::depythonize(page.as_any()).map_err(|e| usage_error(py, e.to_string()))?;
        let options = client.fetch_options().with(&overrides).map_err(|e| usage_error(py, e.message(e.option)))?;
        let mut starts = urls
            .iter()
            .map(|url| WebUrl::parse(url).map(|u| u.as_url().clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|invalid| client_error(py, &Error::from(invalid.clone()), &invalid.input))?;
        if let Some(file) = &seeds_file {
            starts.extend(read_seed_file(file).map_err(|e| usage_error(py, e.to_string()))?);
        }
        let scope = ScopeConfig {
            scope: keywords.scope.parse::<Scope>().map_err(|e| usage_error(py, e.to_string()))?,
            include: keywords.include,
            exclude: keywords.exclude,
            max_depth: keywords.max_depth,
        };
        scope.validate().map_err(|e| usage_error(py, e.to_string()))?;
        if keywords.concurrency == 0 {
            return Err(usage_error(py, "concurrency must be at least 1".into()));
        }
        let config = CrawlConfig {
            scope,
            seeds: match keywords.seed {
                None => SeedSources::default(),
                Some(names) => SeedSources::parse(&names.join(",")).map_err(|e| usage_error(py, e))?,
            },
            limits: CrawlLimits {
                max_pages: keywords.max_pages,
                max_bytes: keywords.max_total_bytes,
                max_pages_per_host: keywords.max_pages_per_host,
                ..CrawlLimits::default()
            },
            concurrency: keywords.concurrency,
            pacing,
            probe_soft_404: keywords.probe_soft_404,
        };
        Ok(CrawlPlan { starts, config, options })
    }
}

/// What the run's thread hands the reader.
enum Event {
    Page(Box<PageRecord>),
    Url(Box<MapRecord>),
    /// The run could not go on; nothing follows.
    Failed(Failure),
}

/// Why a run stopped early, as the exception the reader gets.
enum Failure {
    /// A client error about a URL (the site refused, robots.txt unreadable).
    Client { error: Error, url: String },
    /// A bad option.
    Usage(String),
    /// This machine failed (the frontier's file, the output).
    Os(String),
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Client { error, url } => client_error(py, &error, &url),
            Failure::Usage(message) => usage_error(py, message),
            Failure::Os(message) => PyOSError::new_err(message),
        }
    }
}

/// The records of a map or a crawl, as they come: a Python iterator of
/// dicts. Dropping it (or breaking out of the loop over it) stops the run.
#[pyclass(module = "webcanon")]
pub struct Records {
    /// Read by one `__next__` at a time (the lock is the class's `Sync`).
    receiver: Mutex<Receiver<Event>>,
}

#[pymethods]
impl Records {
    fn __iter__(this: PyRef<'_, Self>) -> PyRef<'_, Self> {
        this
    }

    /// The next record; waits for it with the GIL released, and raises
    /// the run's error (a `WebcanonError`, or `OSError`) if it failed.
    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        loop {
            let next = py.detach(|| {
                let receiver = self.receiver.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                receiver.recv_timeout(Duration::from_millis(100))
            });
            match next {
                Ok(Event::Page(record)) => return Ok(pythonize::pythonize(py, &*record)?.unbind()),
                Ok(Event::Url(record)) => return Ok(pythonize::pythonize(py, &*record)?.unbind()),
                Ok(Event::Failed(failure)) => return Err(failure.into_py(py)),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => return Err(PyStopIteration::new_err(())),
            }
        }
    }
}

/// Runs `work` on a thread of its own with a Tokio runtime, its events
/// going to the returned iterator.
fn spawn<F, W>(work: W) -> PyResult<Records>
where
    W: FnOnce(SyncSender<Event>) -> F + Send + 'static,
    F: Future<Output = Option<Failure>>,
{
    let (sender, receiver) = sync_channel(CHANNEL_RECORDS);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PyOSError::new_err(format!("cannot start the run's runtime: {e}")))?;
    std::thread::Builder::new()
        .name("webcanon-records".into())
        .spawn(move || {
            if let Some(failure) = runtime.block_on(work(sender.clone())) {
                // The reader may be gone: then nobody is told.
                let _ = sender.send(Event::Failed(failure));
            }
        })
        .map_err(|e| PyOSError::new_err(format!("cannot start the run's thread: {e}")))?;
    Ok(Records { receiver: Mutex::new(receiver) })
}

/// The keyword arguments of `Client.map`.
pub(crate) struct MapKeywords<'a> {
    pub scope: &'a str,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub sources: Vec<String>,
    pub limit: Option<usize>,
    pub max_links: usize,
}

/// `Client.map`: the URLs of the site of `url`, each with its verdict.
pub(crate) fn map(py: Python<'_>, client: Client, url: &str, keywords: MapKeywords<'_>) -> PyResult<Records> {
    let MapKeywords { scope, include, exclude, sources, limit, max_links } = keywords;
    let start = WebUrl::parse(url).map_err(|invalid| client_error(py, &Error::from(invalid), url))?.as_url().clone();
    let scope = ScopeConfig {
        scope: scope.parse::<Scope>().map_err(|e| usage_error(py, e.to_string()))?,
        include,
        exclude,
        max_depth: None,
    };
    scope.validate().map_err(|e| usage_error(py, e.to_string()))?;
    if let Some(unknown) = sources.iter().find(|s| !MapSource::ALL.iter().any(|m| m.as_str() == s.as_str())) {
        return Err(usage_error(py, format!("unknown source `{unknown}` (expected sitemap, llms_txt or link)")));
    }
    let named = |source: MapSource| sources.iter().any(|s| s == source.as_str());
    let mut config = MapConfig {
        scope,
        sources: MapSources {
            sitemaps: named(MapSource::Sitemap),
            llms_txt: named(MapSource::LlmsTxt),
            links: named(MapSource::Link),
        },
        max_links,
        ..MapConfig::default()
    };
    if let Some(limit) = limit {
        config.max_urls = limit;
    }
    spawn(move |sender| async move {
        let reported = map_site(&client, &start, &config, |record| match sender.send(Event::Url(Box::new(record))) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        })
        .await;
        match reported {
            Ok(_) => None,
            Err(MapError::Client(error)) => Some(Failure::Client { error, url: start.to_string() }),
            Err(other) => Some(Failure::Usage(other.to_string())),
        }
    })
}

/// A sink handing each record to the reader; a reader that is gone stops
/// the crawl.
struct Handover(SyncSender<Event>);

impl RecordSink for Handover {
    fn write(&mut self, record: &PageRecord) -> io::Result<()> {
        self.0.send(Event::Page(Box::new(record.clone()))).map_err(|_| io::Error::other("the reader stopped"))
    }

    fn commit(&mut self) -> io::Result<u64> {
        Ok(0)
    }

    fn resume_at(&mut self, _: u64) -> io::Result<()> {
        Ok(())
    }
}

/// `Client.crawl`: the records of a crawl from `urls` by `client` (built
/// with `pacing`), its frontier in memory.
pub(crate) fn crawl(
    py: Python<'_>,
    client: Client,
    pacing: PacingConfig,
    urls: Vec<String>,
    keywords: Option<&Bound<'_, PyDict>>,
) -> PyResult<Records> {
    let CrawlPlan { starts, config, options } = CrawlPlan::new(py, &client, pacing, urls, keywords)?;
    let mut frontier = Frontier::in_memory().map_err(|e| PyOSError::new_err(e.to_string()))?;
    spawn(move |sender| async move {
        let crawler = Crawler::new(client, options, config);
        match crawler.run(&starts, &mut frontier, &mut Handover(sender.clone()), &mut ()).await {
            Ok(_) => None,
            // The reader stopped: nothing to tell.
            Err(CrawlError::Output(_)) => None,
            Err(CrawlError::StartUrl { url, reason }) => {
                Some(Failure::Client { error: Error::InvalidUrl { url: url.clone(), reason }, url })
            }
            Err(other) => Some(Failure::Os(other.to_string())),
        }
    })
}

/// Where `Client.crawl_pass` writes, and which seeds it takes.
pub(crate) struct CrawlPass {
    /// The output file, `.jsonl` or `.parquet`.
    pub output: PathBuf,
    /// `(index, count)`: the seeds whose origin is in that shard.
    pub shard: Option<(u32, u32)>,
    /// The frontier's file (default: `output` plus `.frontier`).
    pub state: Option<PathBuf>,
}

/// `Client.crawl_pass`: a crawl of the seeds in the pass's shard by
/// `client` (built with `pacing`), written to its output, resumable from
/// its frontier; its summary.
pub(crate) fn crawl_pass<'py>(
    py: Python<'py>,
    client: Client,
    pacing: PacingConfig,
    urls: Vec<String>,
    run: CrawlPass,
    keywords: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let CrawlPass { output, shard, state } = run;
    let shard = match shard {
        None => Shard::ALL,
        Some((index, count)) => Shard::new(index, count).map_err(|e| batch_error(py, &e))?,
    };
    let CrawlPlan { starts, config, options } = CrawlPlan::new(py, &client, pacing, urls, keywords)?;
    let starts: Vec<Url> =
        starts.into_iter().filter(|url| origin_of(url.as_str()).is_ok_and(|o| shard.contains(&o.origin))).collect();
    let state = state.unwrap_or_else(|| PathBuf::from(format!("{}.frontier", output.display())));
    let extension = output.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !matches!(extension.as_deref(), Some("jsonl" | "parquet")) {
        return Err(usage_error(py, format!("{}: the output is FILE.jsonl or FILE.parquet", output.display())));
    }
    let seeds = starts.len();
    let summary = py.detach(move || -> Result<CrawlSummary, String> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
        let mut frontier = Frontier::open(&state).map_err(|e| e.to_string())?;
        let crawler = Crawler::new(client, options, config);
        let named = |e: io::Error| format!("{}: {e}", output.display());
        if extension.as_deref() == Some("parquet") {
            let mut file = ParquetFile::open(&output, &ParquetFile::state_dir_beside(&state)).map_err(named)?;
            let summary = runtime.block_on(crawler.run(&starts, &mut frontier, &mut file, &mut ()));
            let summary = summary.map_err(|e| e.to_string())?;
            file.finish().map_err(named)?;
            Ok(summary)
        } else {
            let mut file = JsonLinesFile::open(&output).map_err(named)?;
            runtime.block_on(crawler.run(&starts, &mut frontier, &mut file, &mut ())).map_err(|e| e.to_string())
        }
    });
    let summary = summary.map_err(PyOSError::new_err)?;
    let dict = PyDict::new(py);
    dict.set_item("records", summary.records)?;
    dict.set_item("requested", summary.requested)?;
    dict.set_item("fetched", summary.fetched)?;
    dict.set_item("bytes", summary.bytes)?;
    dict.set_item("not_fetched", summary.not_fetched)?;
    dict.set_item("seeds", seeds)?;
    Ok(dict)
}
