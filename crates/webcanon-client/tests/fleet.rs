//! A fleet of four processes on one `redis-server`, fetching 1,000 URLs
//! over 50 origins from one loopback server.
//!
//! This test binary runs itself four times (`--exact fleet_worker
//! --ignored`, its share of the URLs named by an environment variable);
//! each worker fetches its 250 URLs through a client with
//! `CacheSetting::Redis` and writes what happened to a file. From the
//! server's log and the workers' files:
//!
//! 1. With Redis up: every robots.txt is requested exactly once by the
//!    whole fleet; on every host, consecutive requests from all the
//!    processes are at least the pacing interval apart (the `Crawl-delay`
//!    of the agent's group where it is larger); every verdict equals the one
//!    the core computes from the same robots.txt; only the admitted pages
//!    are requested, each once; no store error.
//! 2. Redis killed (SIGKILL) once half of the requests are in, on 50 other
//!    origins: every worker finishes, every verdict is still right, no
//!    refused page is requested, each robots.txt is fetched at most once
//!    per process, and the results after the kill carry the
//!    `shared_cache_unavailable` warning.
//!
//! Without `redis-server` the test prints a note and passes, unless
//! `WEBCANON_REQUIRE_REDIS` is set (as `scripts/test.sh` does).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use webcanon_client::error::Error;
use webcanon_client::ssrf::{ResolveOverride, SsrfPolicy};
use webcanon_client::{CacheSetting, Client};
use webcanon_core::policy::{RobotsAvailability, Verdict};
use webcanon_core::robots::Robots;
use webcanon_test::{Logged, RedisServer, Route, TestServer};

const WORKERS: usize = 4;
const ORIGINS: usize = 50;
const PATHS: [&str; 20] = [
    "/",
    "/public/a",
    "/public/b.pdf",
    "/public/",
    "/private/x",
    "/private/open",
    "/private/opener",
    "/private",
    "/docs/a",
    "/docs/draft-1",
    "/docs/public/p",
    "/docs/public.pdf",
    "/docs/",
    "/blog/1",
    "/blog/2.pdf",
    "/img/x.png",
    "/search?q=1",
    "/a%20b",
    "/tmp/file.pdf?x=1",
    "/tmp/",
];
const AGENT: &str = "fleetbot";
/// The pacing interval of every worker: long beside how long a starved
/// process on a loaded 2-core machine may hold a request it has sent.
const MIN_INTERVAL: Duration = Duration::from_millis(250);
/// How much shorter than the sum of its intervals the span of a host's
/// requests may look from the server (its first request late, its last
/// early: scheduling on a busy machine).
const TOLERANCE: Duration = Duration::from_millis(250);
/// The least gap between two requests to a host, as a share of the
/// interval: one request may reach the server late, but never do two
/// processes' requests come together.
const PAIR_SHARE: f64 = 0.05;
/// Requests in flight per worker.
const CONCURRENCY: usize = 16;
/// How long a whole phase may take before the test gives up on it.
const PHASE_LIMIT: Duration = Duration::from_secs(60);

/// How long the processes have to start before they begin together.
const START_DELAY: Duration = Duration::from_millis(1500);

const SPEC_ENV: &str = "WEBCANON_FLEET_WORKER";

/// The robots.txt of origin `k`: its status and body.
fn robots_of(k: usize) -> (u16, &'static str) {
    match k % 6 {
        0 => (200, "User-agent: *\nDisallow: /private/\nAllow: /private/open\n"),
        1 => {
            (200, "User-agent: fleetbot\nCrawl-delay: 0.15\nDisallow: /\nAllow: /public/\n\nUser-agent: *\nAllow: /\n")
        }
        2 => (404, "not found"),
        3 => (200, "User-agent: *\nCrawl-delay: 0.12\nDisallow: /*.pdf$\nDisallow: /docs/draft\n"),
        4 => {
            (200, "User-agent: otherbot\nDisallow: /\n\nUser-agent: fleetbot\nDisallow: /docs/\nAllow: /docs/public\n")
        }
        _ => (503, "busy"),
    }
}

fn host(phase: u8, k: usize) -> String {
    format!("{}{k:02}.fleet.test", if phase == 1 { 'o' } else { 'p' })
}

/// One URL of the fleet's work.
#[derive(Debug, Clone)]
struct Job {
    origin: usize,
    path: &'static str,
    url: String,
}

/// Worker `w`'s share of phase `phase`, in the order it fetches them: every
/// origin, paths interleaved across origins. In phase 2 the first half of
/// the origins come first, then the second half, so the second half is
/// loaded after Redis is gone.
fn share(phase: u8, worker: usize, port: u16) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (p, path) in PATHS.iter().enumerate() {
        for origin in 0..ORIGINS {
            if (p + origin) % WORKERS == worker {
                jobs.push(Job { origin, path, url: format!("http://{}:{port}{path}", host(phase, origin)) });
            }
        }
    }
    if phase == 2 {
        jobs.sort_by_key(|job| job.origin >= ORIGINS / 2);
    }
    jobs
}

/// What the core says about `path` on origin `k` for the agent.
fn expected_verdict(k: usize, path: &str) -> Verdict {
    let (status, body) = robots_of(k);
    match RobotsAvailability::from_status(status, false).fixed_verdict() {
        Some(verdict) => verdict,
        None => Verdict::from(Robots::parse(body.as_bytes()).decide(AGENT, path).verdict),
    }
}

/// Whether a client in mode `respect` requests a URL with this verdict.
fn admitted(verdict: Verdict) -> bool {
    !matches!(verdict, Verdict::DisallowedExplicit | Verdict::UnknownUnreachable)
}

/// The `Crawl-delay` origin `k` gives the agent, in seconds.
fn crawl_delay(k: usize) -> Option<f64> {
    let (status, body) = robots_of(k);
    (status == 200).then(|| Robots::parse(body.as_bytes()).crawl_delay(AGENT)).flatten()
}

/// What a worker is told.
#[derive(Debug, Serialize, Deserialize)]
struct Spec {
    phase: u8,
    worker: usize,
    redis: String,
    port: u16,
    out: PathBuf,
    /// When to begin, in milliseconds since the Unix epoch: all the workers
    /// start together, once the processes are up.
    start_at_ms: u64,
}

/// What a worker reports about one URL.
#[derive(Debug, Serialize, Deserialize)]
struct Outcome {
    url: String,
    verdict: Option<String>,
    fetched: bool,
    error: Option<String>,
    warnings: Vec<String>,
}

/// What a worker reports at the end.
#[derive(Debug, Serialize, Deserialize)]
struct Report {
    outcomes: Vec<Outcome>,
    store_errors: u64,
    robots_fetches: u64,
    seconds: f64,
}

fn client(spec: &Spec) -> Client {
    let mut policy = SsrfPolicy::default().allow_private("127.0.0.0/8".parse().unwrap());
    for phase in [1, 2] {
        for k in 0..ORIGINS {
            let addr = IpAddr::V4(Ipv4Addr::LOCALHOST);
            policy = policy.resolve(ResolveOverride { host: host(phase, k), port: spec.port, addr });
        }
    }
    Client::builder()
        .agent(AGENT)
        .timeout(Duration::from_secs(10))
        .min_interval(MIN_INTERVAL)
        .alternatives(false)
        .ssrf_policy(policy)
        .cache(CacheSetting::Redis { url: spec.redis.clone(), local_dir: None })
        .build()
        .unwrap()
}

async fn fetch_one(client: Client, url: String) -> Outcome {
    match client.fetch(&url).await {
        Ok(result) => Outcome {
            url,
            verdict: Some(result.robots.verdict.as_str().into()),
            fetched: true,
            error: None,
            warnings: result.warnings.iter().map(|w| w.code.to_string()).collect(),
        },
        Err(Error::Policy(refusal)) => Outcome {
            url,
            verdict: Some(refusal.evidence.verdict.as_str().into()),
            fetched: false,
            error: None,
            // A refusal carries no warnings; the client's state says
            // whether it was decided while degraded.
            warnings: client
                .cache_health()
                .degraded
                .map(|_| "shared_cache_unavailable".to_string())
                .into_iter()
                .collect(),
        },
        Err(err) => Outcome { url, verdict: None, fetched: false, error: Some(err.to_string()), warnings: Vec::new() },
    }
}

/// One process of the fleet: run by `fleet_of_four_processes`.
#[test]
#[ignore = "a worker process of fleet_of_four_processes"]
fn fleet_worker() {
    let Ok(spec) = std::env::var(SPEC_ENV) else { return };
    let spec: Spec = serde_json::from_str(&spec).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let report = runtime.block_on(async {
        let client = client(&spec);
        let jobs = share(spec.phase, spec.worker, spec.port);
        tokio::time::sleep(Duration::from_millis(spec.start_at_ms.saturating_sub(epoch_ms()))).await;
        let started = Instant::now();
        let mut outcomes: Vec<Option<Outcome>> = (0..jobs.len()).map(|_| None).collect();
        let mut running = tokio::task::JoinSet::new();
        let mut next = jobs.into_iter().enumerate();
        loop {
            while running.len() < CONCURRENCY {
                let Some((i, job)) = next.next() else { break };
                let client = client.clone();
                running.spawn(async move { (i, fetch_one(client, job.url).await) });
            }
            let Some(done) = running.join_next().await else { break };
            let (i, outcome) = done.unwrap();
            outcomes[i] = Some(outcome);
        }
        let stats = client.cache_stats();
        Report {
            outcomes: outcomes.into_iter().map(Option::unwrap).collect(),
            store_errors: stats.store_errors,
            robots_fetches: stats.fetches,
            seconds: started.elapsed().as_secs_f64(),
        }
    });
    let mut file = std::fs::File::create(&spec.out).unwrap();
    serde_json::to_writer(&mut file, &report).unwrap();
    file.flush().unwrap();
}

fn epoch_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

fn start_worker(spec: &Spec) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "fleet_worker", "--ignored", "--nocapture", "--test-threads=1"])
        .env(SPEC_ENV, serde_json::to_string(spec).unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn out_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("webcanon-fleet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs one phase: four workers, and `during` called every few
/// milliseconds with the server while they run. Returns their reports.
async fn run_phase(
    phase: u8,
    redis: &str,
    site: &TestServer,
    dir: &Path,
    mut during: impl FnMut(&TestServer),
) -> Vec<Report> {
    let start_at_ms = epoch_ms() + START_DELAY.as_millis() as u64;
    let specs: Vec<Spec> = (0..WORKERS)
        .map(|worker| Spec {
            phase,
            worker,
            redis: redis.to_string(),
            port: site.port(),
            out: dir.join(format!("phase{phase}-worker{worker}.json")),
            start_at_ms,
        })
        .collect();
    let mut children: Vec<Child> = specs.iter().map(start_worker).collect();
    let started = Instant::now();
    let mut statuses = vec![None; WORKERS];
    while statuses.iter().any(Option::is_none) {
        for (child, status) in children.iter_mut().zip(statuses.iter_mut()) {
            if status.is_none() {
                *status = child.try_wait().unwrap();
            }
        }
        during(site);
        if started.elapsed() > PHASE_LIMIT {
            for child in &mut children {
                let _ = child.kill();
            }
            panic!("phase {phase} did not finish in {PHASE_LIMIT:?}");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for (worker, status) in statuses.into_iter().enumerate() {
        assert!(status.unwrap().success(), "phase {phase}: worker {worker} failed");
    }
    specs.iter().map(|spec| serde_json::from_slice(&std::fs::read(&spec.out).unwrap()).unwrap()).collect()
}

/// The host name (without port) of a logged request.
fn host_of(request: &Logged) -> String {
    let host = request.host.clone().unwrap_or_default();
    host.rsplit_once(':').map_or(host.clone(), |(name, _)| name.to_string())
}

/// Every worker's verdicts equal the core's, and a URL was fetched exactly
/// when its verdict admits it.
fn assert_verdicts(phase: u8, reports: &[Report], port: u16) {
    for (worker, report) in reports.iter().enumerate() {
        let jobs = share(phase, worker, port);
        assert_eq!(report.outcomes.len(), jobs.len());
        for (job, outcome) in jobs.iter().zip(&report.outcomes) {
            assert_eq!(job.url, outcome.url);
            let expected = expected_verdict(job.origin, job.path);
            assert_eq!(
                outcome.verdict.as_deref(),
                Some(expected.as_str()),
                "phase {phase}, worker {worker}: {} ({:?})",
                job.url,
                outcome.error
            );
            assert_eq!(outcome.fetched, admitted(expected), "phase {phase}: {}", job.url);
        }
    }
}

/// The server received each admitted page exactly once and no other page.
fn assert_pages_requested(phase: u8, requests: &[(Instant, Logged)]) {
    let mut pages: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (_, request) in requests {
        if request.path_and_query != "/robots.txt" {
            *pages.entry((host_of(request), request.path_and_query.clone())).or_default() += 1;
        }
    }
    let mut expected = BTreeMap::new();
    for k in 0..ORIGINS {
        for path in PATHS {
            if admitted(expected_verdict(k, path)) {
                expected.insert((host(phase, k), path.to_string()), 1);
            }
        }
    }
    assert_eq!(pages, expected, "phase {phase}: page requests");
}

fn robots_hits(requests: &[(Instant, Logged)]) -> HashMap<String, usize> {
    let mut hits = HashMap::new();
    for (_, request) in requests.iter().filter(|(_, r)| r.path_and_query == "/robots.txt") {
        *hits.entry(host_of(request)).or_default() += 1;
    }
    hits
}

/// Per host, consecutive page requests from all the processes keep the
/// larger of the minimum interval and the agent's `Crawl-delay` (robots.txt
/// itself is not paced, so it is left out). The server sees a request some milliseconds after its slot, more
/// when the machine is busy, so: the span from a host's first request to
/// its last is at least the sum of the intervals, less [`TOLERANCE`] (noise
/// cannot add up along a host: only its first and last request count); and
/// each gap is at least [`PAIR_SHARE`] of its interval (without shared
/// pacing the four processes' requests come at once). Returns the tightest
/// span margin and the tightest gap, as a share of its interval.
fn assert_paced(requests: &[(Instant, Logged)]) -> (Duration, f64) {
    let mut by_host: BTreeMap<String, Vec<(Instant, &Logged)>> = BTreeMap::new();
    for (at, request) in requests.iter().filter(|(_, r)| r.path_and_query != "/robots.txt") {
        by_host.entry(host_of(request)).or_default().push((*at, request));
    }
    let mut tightest_span = Duration::MAX;
    let mut tightest_share = f64::MAX;
    let mut pairs = 0;
    for (host_name, mut seen) in by_host {
        seen.sort_by_key(|(at, _)| *at);
        let k: usize = host_name[1..3].parse().unwrap();
        let mut owed = Duration::ZERO;
        for pair in seen.windows(2) {
            let ((before, _), (after, request)) = (pair[0], pair[1]);
            let interval = MIN_INTERVAL.max(Duration::from_secs_f64(crawl_delay(k).unwrap_or(0.0)));
            owed += interval;
            let share = (after - before).as_secs_f64() / interval.as_secs_f64();
            assert!(
                share >= PAIR_SHARE,
                "{host_name}: {} came {:?} after the request before it; the interval is {interval:?}",
                request.path_and_query,
                after - before
            );
            tightest_share = tightest_share.min(share);
            pairs += 1;
        }
        if let (Some((first, _)), Some((last, _))) = (seen.first(), seen.last()) {
            let span = *last - *first;
            assert!(
                span + TOLERANCE >= owed,
                "{host_name}: {} requests over {span:?}, but their intervals add up to {owed:?}",
                seen.len()
            );
            tightest_span = tightest_span.min((span + TOLERANCE).saturating_sub(owed));
        }
    }
    assert!(pairs > 500, "enough consecutive requests to judge the pacing: {pairs}");
    (tightest_span, tightest_share)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fleet_of_four_processes() {
    let Some(mut redis) = RedisServer::start_or_skip("fleet_of_four_processes") else { return };
    let site = TestServer::start().await;
    for phase in [1, 2] {
        for k in 0..ORIGINS {
            let (status, body) = robots_of(k);
            site.route_host(&host(phase, k), "/robots.txt", Route::text(status, body));
        }
    }
    for path in PATHS {
        site.route(path.split('?').next().unwrap(), Route::text(200, "A page."));
    }
    let dir = out_dir();

    // Phase 1: Redis up all along.
    let started = Instant::now();
    let reports = run_phase(1, &redis.url(), &site, &dir, |_| {}).await;
    let phase1 = started.elapsed();
    let requests = site.requests_with_times();
    assert_verdicts(1, &reports, site.port());
    assert_pages_requested(1, &requests);
    let hits = robots_hits(&requests);
    for k in 0..ORIGINS {
        assert_eq!(hits.get(&host(1, k)), Some(&1), "robots.txt of {} requested once by the fleet", host(1, k));
    }
    let fetches: u64 = reports.iter().map(|r| r.robots_fetches).sum();
    assert_eq!(fetches, ORIGINS as u64, "the workers' own count of robots.txt fetches");
    for report in &reports {
        assert_eq!(report.store_errors, 0);
        assert!(report.outcomes.iter().all(|o| !o.warnings.iter().any(|w| w == "shared_cache_unavailable")));
    }
    let (span_margin, tightest_gap) = assert_paced(&requests);
    eprintln!(
        "fleet phase 1: {} requests in {phase1:.2?} (workers {:.2?} s); pacing: tightest span margin \
         {span_margin:?}, tightest gap {:.0}% of its interval",
        requests.len(),
        reports.iter().map(|r| r.seconds).fold(0.0, f64::max),
        tightest_gap * 100.0
    );

    // Phase 2: Redis killed once half of the requests are in.
    let before = requests.len();
    let expected_requests = ORIGINS
        + (0..ORIGINS).map(|k| PATHS.iter().filter(|p| admitted(expected_verdict(k, p))).count()).sum::<usize>();
    let mut killed_at = None;
    let started = Instant::now();
    let url = redis.url();
    let reports = run_phase(2, &url, &site, &dir, |site| {
        if killed_at.is_none() && site.requests().len() - before >= expected_requests / 2 {
            redis.kill();
            killed_at = Some(site.requests().len() - before);
        }
    })
    .await;
    let phase2 = started.elapsed();
    let killed_at = killed_at.expect("Redis was killed during the run");
    let requests: Vec<_> = site.requests_with_times().into_iter().skip(before).collect();
    assert_verdicts(2, &reports, site.port());
    assert_pages_requested(2, &requests);
    let hits = robots_hits(&requests);
    for k in 0..ORIGINS {
        let n = hits.get(&host(2, k)).copied().unwrap_or(0);
        assert!((1..=WORKERS).contains(&n), "robots.txt of {}: {n} requests, at most one per process", host(2, k));
    }
    for (worker, report) in reports.iter().enumerate() {
        assert!(report.store_errors > 0, "worker {worker} counted the lost server");
        let warned = report.outcomes.iter().filter(|o| o.warnings.iter().any(|w| w == "shared_cache_unavailable"));
        assert!(warned.count() > 0, "worker {worker} warned about the lost server");
    }
    eprintln!(
        "fleet phase 2: {} requests in {phase2:.2?}, Redis killed after {killed_at}; robots.txt requests {} for {ORIGINS} origins",
        requests.len(),
        hits.values().sum::<usize>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
