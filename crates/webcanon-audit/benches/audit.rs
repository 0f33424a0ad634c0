//! One whole audit of a live origin: a 100-page site on loopback
//! (`tests/support/site.rs`: robots.txt, sitemap, llms.txt and its Markdown
//! copies, llms-full.txt, ai.txt, tdmrep.json, HTML pages), audited with
//! `webcanon_audit::audit` and a fresh `Client` per iteration (its robots.txt
//! cache starts empty, as in one run of `webcanon audit`). Target: under 2 s
//! per audit.
//!
//! Before timing, one audit is run to count the requests the server sees
//! per audit and to check that no resource is requested twice (by `Host`
//! and path); the benchmark stops with the repeated requests if one is.

#[path = "../tests/support/site.rs"]
mod site;

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use site::{AGENT, LoopbackSite, repeated};
use webcanon_audit::{Site, audit};

/// Pages on the site.
const PAGES: usize = 100;

fn benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let site = runtime.block_on(LoopbackSite::start(PAGES));

    // One audit outside the timed loop: requests per audit, read once.
    let started = Instant::now();
    let report =
        runtime.block_on(audit(Site::origin(site.origin.clone(), site.client()), AGENT)).expect("the site answers");
    let elapsed = started.elapsed();
    let requests = site.server.requests();
    let twice = repeated(&requests);
    if !twice.is_empty() {
        eprintln!("error: one audit requested these resources more than once (requests by Host and path):");
        for line in &twice {
            eprintln!("  {line}");
        }
        panic!("{} resources were requested more than once in one audit", twice.len());
    }
    let checks: Vec<String> = report.checks.iter().map(|c| format!("{} {}", c.id, c.status.as_str())).collect();
    eprintln!(
        "audit of {} ({} pages, {} linked from llms.txt): {} requests, none repeated; {} resources read; \
         score {}; first audit {elapsed:.2?}\nchecks: {}",
        report.target,
        site.pages,
        site.linked,
        requests.len(),
        report.resources_read,
        report.score,
        checks.join(", "),
    );

    let mut group = c.benchmark_group("audit");
    group.sample_size(20).measurement_time(Duration::from_secs(10));
    group.bench_function(format!("origin, {PAGES} pages, fresh client"), |b| {
        b.to_async(&runtime).iter_batched(
            || site.client(),
            |client| audit(Site::origin(site.origin.clone(), client), AGENT),
            BatchSize::PerIteration,
        )
    });
    group.finish();
    let total = site.server.requests().len();
    eprintln!("server saw {total} requests in all ({} per audit)", requests.len());
    drop(site);
}

criterion_group! {
    name = audit_bench;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(audit_bench);
