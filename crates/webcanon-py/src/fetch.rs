//! `Client`: the policy-correct async fetch of `webcanon fetch` for asyncio,
//! on the Tokio runtime of `pyo3-async-runtimes`.

use std::path::PathBuf;
use webcanon_client::browser::RenderMode;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use webcanon_batch::origin::origin_of;
use webcanon_batch::snapshot;
use webcanon_client::markdown::ContentShape;
use webcanon_client::options::{CacheChoice, ClientOptions};
use webcanon_client::pdf::PdfWorker;
use webcanon_client::{DEFAULT_AGENT, DEFAULT_MAX_BYTES, FetchOptions, FetchOverrides};

use crate::batch::{Snapshot, parse_mode};
use crate::errors::{client_error, usage_error};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Client>()?;
    m.add_function(wrap_pyfunction!(run_pdf_worker, m)?)?;
    Ok(())
}

/// The module that runs this interpreter as a PDF worker
/// (`python -m webcanon._pdf_worker`).
const PDF_WORKER_MODULE: &str = "webcanon._pdf_worker";

/// Runs this process as the worker a client reads a PDF in (one request on
/// standard input, the pages on standard output); the exit status.
/// `python -m webcanon._pdf_worker` calls it.
#[pyfunction]
fn run_pdf_worker(py: Python<'_>) -> u8 {
    py.detach(webcanon_client::pdf::run_worker)
}

/// The worker PDFs are read in: this interpreter running
/// [`PDF_WORKER_MODULE`]; none (PDFs read in this process) for an
/// interpreter that does not know its own executable (an embedded one).
fn pdf_worker(py: Python<'_>) -> PyResult<Option<PdfWorker>> {
    let executable: Option<PathBuf> = py.import("sys")?.getattr("executable")?.extract()?;
    Ok(executable
        .filter(|path| !path.as_os_str().is_empty())
        .map(|python| PdfWorker::new(python).arg("-m").arg(PDF_WORKER_MODULE)))
}

/// A client that loads robots.txt before every fetch (llms.txt candidates
/// and redirects included), refuses private addresses unless allowed, and
/// keeps robots.txt outcomes in a cache. Its methods return awaitables
/// (asyncio futures, so they must be called with a running event loop);
/// the package's `webcanon.Client` subclass wraps them in coroutines. Share
/// one client for many fetches, since it holds the connections, the robots
/// cache and the per-host pacing.
#[pyclass(frozen, subclass, module = "webcanon")]
pub struct Client {
    inner: webcanon_client::Client,
    /// The settings that shape what a fetch pass records (as the CLI
    /// states them): a resumed pass under other ones is refused.
    fetch_settings: String,
    /// The pacing the client was built with, which a crawl schedules by.
    pacing: webcanon_client::PacingConfig,
}

#[pymethods]
impl Client {
    /// A client for the product token `agent`. The options are those of
    /// `webcanon fetch`: `cache` is `"memory"` (the default, or a SQLite
    /// file in `cache_dir` when that is given), `"none"`, or
    /// `redis://HOST:PORT` for a fleet (with `cache_dir` as the local
    /// fallback); `allow_private` takes networks (`127.0.0.0/8`), `resolve`
    /// curl-style `HOST:PORT:ADDR` entries; `format` (`"markdown"` or
    /// `"text"`), `links` (`"inline"`, `"references"`, `"drop"`) and
    /// `images` (`"keep"`, `"drop"`) shape the content; `proxy`
    /// (`http://HOST:PORT`) sends every request through that HTTP proxy
    /// (targets are still vetted here first; `HTTP_PROXY` is never read);
    /// `sign_key` (an Ed25519 key file) with `signature_agent` (the URL
    /// whose key directory lists it) signs every request (Web Bot Auth);
    /// `signature_agent_form` is `"dictionary"` (the default, the current
    /// draft's `sig1="…"`) or `"legacy"` (the bare string of earlier drafts).
    /// `render` (`True`, `False` or `"auto"`) renders HTML pages in headless
    /// Chromium, `chromium` being its path (default: found on `PATH`).
    /// `refresh_robots=True` reads again the robots.txt outcomes cached
    /// before the client started (each origin once, then cached as usual).
    /// `purpose` (`"search"`, `"ai-input"`, `"ai-index"`, `"ai-train"`,
    /// `"ai-all"`, `"all"`) is the use declared for fetched content, read
    /// against the site's RSL license into `rsl_*` warnings (default: the
    /// agent's registry category's use). `comments` (`"auto"`, `"include"`,
    /// `"exclude"`) says whether comments and a thread's replies are content.
    #[new]
    #[pyo3(signature = (
        agent = DEFAULT_AGENT,
        *,
        user_agent = None,
        mode = "respect",
        timeout = 20.0,
        cache = None,
        cache_dir = None,
        allow_private = Vec::new(),
        resolve = Vec::new(),
        max_bytes = DEFAULT_MAX_BYTES,
        alternatives = true,
        min_interval = 0.0,
        max_crawl_delay = webcanon_client::DEFAULT_MAX_CRAWL_DELAY.as_secs_f64(),
        auth_disallows = false,
        format = "markdown",
        links = "references",
        images = "drop",
        proxy = None,
        sign_key = None,
        signature_agent = None,
        signature_agent_form = "dictionary",
        render = None,
        chromium = None,
        refresh_robots = false,
        purpose = None,
        comments = "auto",
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        agent: &str,
        user_agent: Option<&str>,
        mode: &str,
        timeout: f64,
        cache: Option<&str>,
        cache_dir: Option<PathBuf>,
        allow_private: Vec<String>,
        resolve: Vec<String>,
        max_bytes: usize,
        alternatives: bool,
        min_interval: f64,
        max_crawl_delay: f64,
        auth_disallows: bool,
        format: &str,
        links: &str,
        images: &str,
        proxy: Option<String>,
        sign_key: Option<PathBuf>,
        signature_agent: Option<String>,
        signature_agent_form: &str,
        render: Option<Bound<'_, PyAny>>,
        chromium: Option<PathBuf>,
        refresh_robots: bool,
        purpose: Option<&str>,
        comments: &str,
    ) -> PyResult<Client> {
        let render = render_mode(py, render.as_ref())?.unwrap_or_default();
        let purpose = usage(py, purpose)?;
        let comments = comments.parse().map_err(|e| usage_error(py, format!("comments: {e}")))?;
        let shape = ContentShape {
            format: format.parse().map_err(|e| usage_error(py, format!("format: {e}")))?,
            links: links.parse().map_err(|e| usage_error(py, format!("links: {e}")))?,
            images: images.parse().map_err(|e| usage_error(py, format!("images: {e}")))?,
        };
        let cache = match cache {
            None | Some("memory") => CacheChoice::Memory,
            Some("none") => CacheChoice::None,
            Some(url) if url.contains("://") => CacheChoice::Redis(url.to_string()),
            Some(other) => {
                return Err(usage_error(
                    py,
                    format!("cache `{other}`: expected \"memory\", \"none\" or a redis:// URL"),
                ));
            }
        };
        let fetch_settings = webcanon_batch::run::fetch_fingerprint(user_agent, auth_disallows);
        let pacing = webcanon_client::PacingConfig {
            min_interval: std::time::Duration::from_secs_f64(min_interval.max(0.0)),
            max_crawl_delay: std::time::Duration::from_secs_f64(max_crawl_delay.max(0.0)),
        };
        let options = ClientOptions {
            agent: agent.to_string(),
            user_agent: user_agent.map(str::to_string),
            mode: parse_mode(py, mode)?,
            timeout,
            cache,
            cache_dir,
            allow_private,
            resolve,
            fetch: FetchOptions { max_bytes, alternatives, shape, render, purpose, comments },
            min_interval,
            max_crawl_delay,
            auth_disallows,
            proxy,
            sign_key,
            signature_agent,
            signature_agent_form: signature_agent_form
                .parse()
                .map_err(|e| usage_error(py, format!("signature_agent_form: {e}")))?,
            chromium,
            refresh_robots,
            pdf_worker: pdf_worker(py)?,
        };
        // The client's options type checks them all; Python names them as given.
        let builder = options.builder().map_err(|e| usage_error(py, e.message(e.option)))?;
        // The client's resolver and stores start tasks on the runtime.
        let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
        let inner = builder.build().map_err(|e| usage_error(py, e.to_string()))?;
        Ok(Client { inner, fetch_settings, pacing })
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

    /// Fetches `url` the way the site owner asked (an awaitable). Returns
    /// the result of `webcanon fetch --json` as a dict: `content` (Markdown),
    /// `robots` (verdict, recommendation, matched rule), `warnings`,
    /// `metadata` (author, dates, language, site name, …: a
    /// `webcanon.Metadata`), `alternative`, `redirects`, `timings`,
    /// `rendered`, `render`, …
    /// The keyword arguments override the client's fetch options for this
    /// call, by the names and values of the HTTP API's fields: `render`
    /// (`True`, `False`, `"auto"`), `format`, `links`, `images`,
    /// `max_bytes`, `alternatives`, `purpose` (an RSL use, `"ai-train"`),
    /// `comments` (`"auto"`, `"include"`, `"exclude"`); `None` keeps the client's. Raises
    /// `PolicyRefused`, `SsrfRefused`, `FetchFailed` or `InvalidUrlError`,
    /// and `ValueError` for an unknown or invalid override.
    #[pyo3(signature = (url, **overrides))]
    fn fetch<'py>(
        &self,
        py: Python<'py>,
        url: String,
        overrides: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let overrides: FetchOverrides = match overrides {
            None => FetchOverrides::default(),
            Some(given) => pythonize::depythonize(given.as_any()).map_err(|e| usage_error(py, e.to_string()))?,
        };
        let options = self.inner.fetch_options().with(&overrides).map_err(|e| usage_error(py, e.message(e.option)))?;
        let client = self.inner.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let outcome = client.fetch_with(&url, &options).await;
            Python::attach(|py| match outcome {
                Ok(result) => Ok(pythonize::pythonize(py, &result)?.unbind()),
                Err(err) => Err(client_error(py, &err, &url)),
            })
        })
    }

    /// The robots verdict for `url` without fetching the page (an
    /// awaitable): `{"url", "robots", "warnings"}`, `robots` being the
    /// same object as in `fetch`'s result.
    fn check<'py>(&self, py: Python<'py>, url: String) -> PyResult<Bound<'py, PyAny>> {
        let client = self.inner.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let outcome = client.check(&url).await;
            Python::attach(|py| match outcome {
                Ok(webcanon_client::RobotsCheck { robots, warnings, .. }) => {
                    let answer = pyo3::types::PyDict::new(py);
                    answer.set_item("url", &url)?;
                    answer.set_item("robots", pythonize::pythonize(py, &robots)?)?;
                    answer.set_item("warnings", pythonize::pythonize(py, &warnings)?)?;
                    Ok(answer.into_any().unbind())
                }
                Err(err) => Err(client_error(py, &err, &url)),
            })
        })
    }

    /// The robots snapshot of the origins of `urls` (an awaitable): the
    /// fetch pass of `webcanon batch`, `concurrency` hosts at once and one
    /// request at a time per host. URLs that are not http(s) URLs are
    /// skipped (the verdict pass reports them as `invalid_url`); failures
    /// are entries too.
    #[pyo3(signature = (urls, concurrency = webcanon_batch::fetch::DEFAULT_CONCURRENCY))]
    fn snapshot<'py>(&self, py: Python<'py>, urls: Vec<String>, concurrency: usize) -> PyResult<Bound<'py, PyAny>> {
        let mut seen = std::collections::HashSet::new();
        let origins: Vec<String> = urls
            .iter()
            .filter_map(|url| origin_of(url).ok().map(|parsed| parsed.origin))
            .filter(|origin| seen.insert(origin.clone()))
            .collect();
        let client = self.inner.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let groups = webcanon_batch::fetch::group_by_host(origins);
            let (sink, mut entries) = tokio::sync::mpsc::channel(256);
            // Not spawned: when the awaitable is cancelled, this future is
            // dropped, and with it the pass and every fetch under way.
            let fetching = webcanon_batch::fetch::fetch_all(client, groups, concurrency, sink);
            let collecting = async {
                let mut collected = Vec::new();
                let mut local_failure = None;
                while let Some(webcanon_batch::fetch::Fetched { entry, recorded }) = entries.recv().await {
                    match entry {
                        Ok(entry) => collected.push(entry),
                        Err(why) => local_failure = local_failure.or(Some(why)),
                    }
                    recorded.confirm();
                }
                (collected, local_failure)
            };
            let ((), (collected, local_failure)) = tokio::join!(fetching, collecting);
            // A failure of this machine is no fact about a site: no snapshot
            // that would record the origins it hit as unreachable.
            if let Some(why) = local_failure {
                return Err(pyo3::exceptions::PyOSError::new_err(why));
            }
            Ok(Snapshot::new(snapshot::Snapshot::from_entries(collected)))
        })
    }

    /// The fetch pass of `webcanon batch --fetch-only` over a file of URLs
    /// (text, CSV or Parquet, by extension; the URLs in `column`), run to
    /// the end on this thread (the GIL released): the robots snapshot of
    /// the origins of shard `shard = (index, count)` (default: all) is
    /// written to the Parquet file `snapshot_out`. Memory stays bounded
    /// whatever the number of origins (origins are partitioned on disk,
    /// `partition_bytes` of origin text each). Resumable: a run killed part
    /// way leaves its state in `snapshot_out + ".batch"`, and the same call
    /// fetches only what is missing. Returns the run's summary (`origins`,
    /// `fetched`, `already_fetched`, `partitions`, `fetch_seconds`, …).
    /// Raises `BatchError` subclasses (`OSError` when this machine failed
    /// requests: nothing was recorded for them, call again).
    #[pyo3(signature = (
        urls,
        snapshot_out,
        *,
        column = "url",
        shard = None,
        concurrency = webcanon_batch::fetch::DEFAULT_CONCURRENCY,
        partition_bytes = webcanon_batch::PARTITION_BYTES,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn fetch_pass<'py>(
        &self,
        py: Python<'py>,
        urls: PathBuf,
        snapshot_out: PathBuf,
        column: &str,
        shard: Option<(u32, u32)>,
        concurrency: usize,
        partition_bytes: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shard = match shard {
            None => webcanon_batch::origin::Shard::ALL,
            Some((index, count)) => {
                webcanon_batch::origin::Shard::new(index, count).map_err(|e| crate::errors::batch_error(py, &e))?
            }
        };
        if concurrency == 0 || partition_bytes == 0 {
            return Err(usage_error(py, "concurrency and partition_bytes must be at least 1".into()));
        }
        if !urls.is_file() {
            return Err(usage_error(py, format!("{}: no such file", urls.display())));
        }
        let config = webcanon_batch::run::BatchConfig {
            input: urls,
            column: column.to_string(),
            output: snapshot_out.clone(),
            agent: self.inner.product_token().clone(),
            mode: self.inner.mode(),
            shard,
            snapshot: None,
            snapshot_out,
            concurrency,
            batch_rows: webcanon_batch::input::DEFAULT_BATCH_ROWS,
            threads: 1,
            fetch_only: true,
            partition_bytes,
            fetch_settings: self.fetch_settings.clone(),
            content: None,
        };
        run_batch(py, config, self.inner.clone())
    }

    /// The content pass of `webcanon batch --content` over the file `urls`
    /// (text, CSV or Parquet, by extension; the URLs in `column`), run to
    /// the end on this thread (the GIL released): robots.txt of every
    /// origin is fetched (or read from the Parquet `snapshot` made
    /// earlier), every URL the verdict allows is fetched and converted under
    /// this client's options (`format`, `render`, `max_bytes`, …), and
    /// `output` (`.jsonl` or `.parquet`) gets one page record per URL, in
    /// input order: the content, its usage signals, the verdict and rule,
    /// or the reason it was not fetched. One request at a time per host,
    /// `concurrency` hosts at once. Resumable: a run killed part way leaves
    /// its state in `output + ".batch"`, and the same call fetches only
    /// what is missing. Returns the run's summary (`rows`, `allowed`,
    /// `pages`, `invalid`, …). Raises `BatchError` subclasses (`OSError`
    /// when this machine failed requests: call again).
    #[pyo3(signature = (
        urls,
        output,
        *,
        column = "url",
        shard = None,
        concurrency = webcanon_batch::fetch::DEFAULT_CONCURRENCY,
        snapshot = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn content_pass<'py>(
        &self,
        py: Python<'py>,
        urls: PathBuf,
        output: PathBuf,
        column: &str,
        shard: Option<(u32, u32)>,
        concurrency: usize,
        snapshot: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shard = match shard {
            None => webcanon_batch::origin::Shard::ALL,
            Some((index, count)) => {
                webcanon_batch::origin::Shard::new(index, count).map_err(|e| crate::errors::batch_error(py, &e))?
            }
        };
        if concurrency == 0 {
            return Err(usage_error(py, "concurrency must be at least 1".into()));
        }
        if !urls.is_file() {
            return Err(usage_error(py, format!("{}: no such file", urls.display())));
        }
        webcanon_batch::page_records::PageRecordWriter::format_of(&output)
            .map_err(|e| usage_error(py, e.to_string()))?;
        let config = webcanon_batch::run::BatchConfig {
            input: urls,
            column: column.to_string(),
            snapshot_out: webcanon_batch::run::BatchConfig::default_snapshot_out(&output),
            output,
            agent: self.inner.product_token().clone(),
            mode: self.inner.mode(),
            shard,
            snapshot,
            concurrency,
            batch_rows: webcanon_batch::input::DEFAULT_BATCH_ROWS,
            threads: 1,
            fetch_only: false,
            partition_bytes: webcanon_batch::PARTITION_BYTES,
            fetch_settings: self.fetch_settings.clone(),
            content: Some(*self.inner.fetch_options()),
        };
        run_batch(py, config, self.inner.clone())
    }

    /// The URLs of the site of `url` an agent may fetch, from its sitemaps,
    /// llms.txt and start page (`webcanon map`): an iterator of dicts
    /// (`url`, `allowed`, `verdict`, `recommendation`, `rule`, `lastmod`,
    /// `sources`), each as it is decided. `scope` is `"origin"`,
    /// `"domain"` or `"prefix"`; `include` and `exclude` take robots.txt
    /// patterns; `sources` names those read (`"sitemap"`, `"llms_txt"`,
    /// `"link"`); `limit` stops after that many URLs. Breaking out of the
    /// loop stops the run. Raises `InvalidUrlError` at once for a bad URL,
    /// and, from the iterator, `SsrfRefused` or `FetchFailed` when the
    /// site's robots.txt cannot be read.
    #[pyo3(signature = (
        url,
        *,
        scope = "origin",
        include = Vec::new(),
        exclude = Vec::new(),
        sources = vec!["sitemap".to_string(), "llms_txt".to_string(), "link".to_string()],
        limit = None,
        max_links = webcanon_crawl::map::DEFAULT_MAX_LINKS,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn map(
        &self,
        py: Python<'_>,
        url: &str,
        scope: &str,
        include: Vec<String>,
        exclude: Vec<String>,
        sources: Vec<String>,
        limit: Option<usize>,
        max_links: usize,
    ) -> PyResult<crate::crawl::Records> {
        let keywords = crate::crawl::MapKeywords { scope, include, exclude, sources, limit, max_links };
        crate::crawl::map(py, self.inner.clone(), url, keywords)
    }

    /// Crawls from `urls` (`webcanon crawl`): an iterator of page records
    /// (dicts, as `webcanon crawl` writes them), each as its page is
    /// done, every request through the same policy path as `fetch`.
    /// Keywords: `scope` (`"origin"`, `"domain"`, `"prefix"`), `include`,
    /// `exclude`, `max_depth`, `max_pages`, `max_total_bytes`,
    /// `max_pages_per_host`, `concurrency` (hosts at once), `seed` (of
    /// `"start"`, `"sitemap"`, `"llms"`), `probe_soft_404`, `seeds_file` (a
    /// file of start URLs, one a line), and the page options of `fetch`
    /// (`render`, `format`, `links`, `images`, `max_bytes`, `alternatives`,
    /// `purpose`, `comments`). Breaking out of the loop stops the crawl.
    /// Raises `InvalidUrlError` at once for a bad start URL, `WebcanonError`
    /// for a bad option, and `OSError` from the iterator when this machine
    /// fails.
    #[pyo3(signature = (urls, **options))]
    fn crawl(
        &self,
        py: Python<'_>,
        urls: Vec<String>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<crate::crawl::Records> {
        crate::crawl::crawl(py, self.inner.clone(), self.pacing, urls, options)
    }

    /// The crawl of `webcanon crawl -o output` (`.jsonl` or `.parquet`),
    /// run to the end on this thread (the GIL released), from the start
    /// URLs of `urls` (and `seeds_file`) whose origin is in shard `shard =
    /// (index, count)` (default: all; the stable origin hash of
    /// `fetch_pass`). Resumable: its frontier is the file `state` (default:
    /// `output + ".frontier"`; a Parquet output keeps its parts in `state +
    /// ".parts"`), and the same call after a kill goes on where it stopped,
    /// no record lost or repeated. The keywords are those of `crawl`.
    /// Returns the summary (`records`, `requested`, `fetched`, `bytes`,
    /// `not_fetched` by reason, `seeds`). Raises `OSError` when this
    /// machine fails (call again to resume).
    #[pyo3(signature = (urls, output, *, shard = None, state = None, **options))]
    fn crawl_pass<'py>(
        &self,
        py: Python<'py>,
        urls: Vec<String>,
        output: PathBuf,
        shard: Option<(u32, u32)>,
        state: Option<PathBuf>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let run = crate::crawl::CrawlPass { output, shard, state };
        crate::crawl::crawl_pass(py, self.inner.clone(), self.pacing, urls, run, options)
    }

    fn __repr__(&self) -> String {
        format!("<Client agent={} mode={}>", self.inner.agent(), self.inner.mode())
    }
}

/// Runs a batch to the end with the GIL released; its summary as a dict.
fn run_batch<'py>(
    py: Python<'py>,
    config: webcanon_batch::run::BatchConfig,
    client: webcanon_client::Client,
) -> PyResult<Bound<'py, PyAny>> {
    let summary = py.detach(move || webcanon_batch::run::run(&config, Some(client), &webcanon_batch::run::NoProgress));
    match summary {
        Ok(summary) => Ok(pythonize::pythonize(py, &summary)?),
        Err(err @ (webcanon_batch::BatchError::Client(_) | webcanon_batch::BatchError::Io { .. })) => {
            Err(pyo3::exceptions::PyOSError::new_err(err.to_string()))
        }
        Err(err) => Err(crate::errors::batch_error(py, &err)),
    }
}

/// `purpose` as Python gives it: an RSL 1.0 usage token, or `None`.
fn usage(py: Python<'_>, value: Option<&str>) -> PyResult<Option<webcanon_core::rsl::Usage>> {
    value
        .map(|v| v.parse().map_err(|e: webcanon_core::rsl::UnknownUsage| usage_error(py, format!("purpose: {e}"))))
        .transpose()
}

/// `render` as Python gives it: `True`, `False`, `"on"`, `"off"`,
/// `"auto"`, or `None` (not given).
fn render_mode(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<RenderMode>> {
    let Some(value) = value.filter(|v| !v.is_none()) else { return Ok(None) };
    if let Ok(yes) = value.cast::<pyo3::types::PyBool>() {
        return Ok(Some(yes.is_true().into()));
    }
    if let Ok(text) = value.extract::<String>() {
        return text
            .parse()
            .map(Some)
            .map_err(|e: webcanon_client::browser::UnknownRenderMode| usage_error(py, format!("render: {e}")));
    }
    Err(usage_error(py, "render: expected True, False or \"auto\"".to_string()))
}
