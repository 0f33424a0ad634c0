//! Sitemap parse throughput (MB/s) on the XML sitemaps of
//! `shared/corpus/sitemaps`, against the `sitemap` crate in the same run.
//!
//! Only `urlset` and `sitemapindex` files are used: the `sitemap` crate reads
//! neither gzip, text, RSS nor Atom. Both parsers consume every entry and
//! every `loc`; ours also validates each `loc` and keeps the extensions.

use std::fs;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sitemap::reader::{SiteMapEntity, SiteMapReader};
use webcanon_core::sitemap::SitemapKind;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sitemaps");

fn corpus() -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = fs::read_dir(CORPUS)
        .expect("shared/ beside the repository")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| fs::read(p).expect("read"))
        .filter(|b| matches!(webcanon_core::sitemap::parse(b).kind, SitemapKind::UrlSet | SitemapKind::Index))
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("sitemap_corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("webcanon", |b| {
        b.iter(|| {
            let mut locs = 0usize;
            for file in &files {
                webcanon_core::sitemap::parse_with(black_box(file), |e| locs += e.loc.len());
            }
            locs
        })
    });
    group.bench_function("sitemap_crate", |b| {
        b.iter(|| {
            let mut locs = 0usize;
            for file in &files {
                for entity in SiteMapReader::new(black_box(file.as_slice())) {
                    match entity {
                        SiteMapEntity::Url(u) => locs += u.loc.get_url().map_or(0, |u| u.as_str().len()),
                        SiteMapEntity::SiteMap(s) => locs += s.loc.get_url().map_or(0, |u| u.as_str().len()),
                        SiteMapEntity::Err(_) => {}
                    }
                }
            }
            locs
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
