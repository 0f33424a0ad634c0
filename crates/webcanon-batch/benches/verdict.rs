//! `VerdictPass::decide` on one core: URLs per second over a snapshot of
//! 10,000 origins with a few rules each (the shape of `benches/batch.sh`).

use std::hint::black_box;
use std::sync::Arc;

use arrow::array::StringArray;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use webcanon_batch::snapshot::{Snapshot, SnapshotEntry, SnapshotStatus};
use webcanon_batch::verdict::VerdictPass;
use webcanon_core::policy::{RobotsAvailability, RobotsMode};

const ORIGINS: usize = 10_000;
const ROWS: usize = 64 * 1024;

fn snapshot() -> Snapshot {
    Snapshot::from_entries((0..ORIGINS).map(|i| {
        SnapshotEntry {
            origin: format!("https://h{i}.example.test"),
            status: SnapshotStatus::Robots(RobotsAvailability::Parsed),
            http_status: Some(200),
            body: Some(
                format!(
                    "User-agent: *\nDisallow: /private/\nDisallow: /tmp/*.bak$\nAllow: /private/pub\n\n\
                 User-agent: BenchBot\nDisallow: /d{}/\nAllow: /d{}/ok\n",
                    i % 10,
                    i % 10
                )
                .into_bytes(),
            ),
            fetched_at: 1_700_000_000,
            error: None,
            last_good_at: None,
        }
    }))
}

fn urls() -> StringArray {
    StringArray::from_iter_values((0..ROWS).map(|i| {
        let origin = (i * 7919) % ORIGINS;
        match i % 4 {
            0 => format!("https://h{origin}.example.test/d{}/page-{i}.html", i % 10),
            1 => format!("https://h{origin}.example.test/private/doc?id={i}"),
            2 => format!("https://h{origin}.example.test/articles/2024/{i}/title-of-the-article"),
            _ => format!("https://h{origin}.example.test/tmp/file{i}.bak"),
        }
    }))
}

fn bench(c: &mut Criterion) {
    let pass = VerdictPass::new(Arc::new(snapshot()), "BenchBot".parse().unwrap(), RobotsMode::Respect);
    let urls = urls();
    // Compile every origin's rules before measuring: the steady state.
    pass.decide(&urls).unwrap();
    let mut group = c.benchmark_group("verdict_pass");
    group.throughput(Throughput::Elements(ROWS as u64));
    group.bench_function("decide_64k_urls_one_core", |b| b.iter(|| black_box(pass.decide(black_box(&urls)).unwrap())));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
