//! robots.txt parsing and decisions, side by side with the peer crates
//! `texting_robots` and `robotstxt`, on the same inputs in one run.
//!
//! What each peer's number includes:
//! - `texting_robots::Robot::new(agent, body)` parses for one agent, like
//!   our `Robots::parse` + `rules_for(agent)`;
//! - `robotstxt` (a port of Google's C++ matcher) has no separate parse: each
//!   call parses the whole file while matching one URL, so its "parse" is one
//!   call and its decision cost is that same call per URL; our row
//!   "parse+rules_for+one decision" is the like-for-like one.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use webcanon_core::robots::{AgentRules, Robots};

const AGENT: &str = "GPTBot";

struct File {
    name: String,
    body: Vec<u8>,
    urls: Vec<String>,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/robots")
}

/// URLs built from the file's own patterns (wildcards filled, anchors
/// dropped, a suffix added) plus paths no rule names: realistic hits and misses.
fn urls_for(body: &[u8]) -> Vec<String> {
    let robots = Robots::parse(body);
    let mut urls = Vec::new();
    for group in robots.groups() {
        for rule in group.rules() {
            if urls.len() >= 200 {
                break;
            }
            let mut path = rule.pattern.replace('*', "x").trim_end_matches('$').to_string();
            if !path.starts_with('/') {
                path.insert(0, '/');
            }
            if urls.len() % 2 == 0 {
                path.push_str("/page.html?id=7");
            }
            urls.push(format!("https://example.com{path}"));
        }
    }
    for path in ["/", "/index.html", "/blog/2026/11/robots", "/search?q=agents", "/static/app.js"] {
        urls.push(format!("https://example.com{path}"));
    }
    urls
}

fn load() -> Vec<File> {
    let mut files: Vec<File> = std::fs::read_dir(corpus_dir())
        .expect("../shared/corpus/robots beside the repository")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".txt"))
        .map(|e| {
            let body = std::fs::read(e.path()).unwrap();
            File { name: e.file_name().to_string_lossy().into_owned(), urls: urls_for(&body), body }
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    files
}

fn pick<'a>(files: &'a [File], names: &[&str]) -> Vec<&'a File> {
    names.iter().filter_map(|n| files.iter().find(|f| f.name == *n)).collect()
}

/// The worst files: the largest (31,843 rules) and the most wildcard-heavy.
const WORST: [&str; 4] = ["729.txt", "411.txt", "274.txt", "689.txt"];

/// The three input sets every group runs on: the whole corpus, the worst
/// files, and the files under 4 KiB.
fn sets(files: &[File]) -> [(&'static str, Vec<&File>); 3] {
    [
        ("corpus", files.iter().collect()),
        ("worst", pick(files, &WORST)),
        ("small", files.iter().filter(|f| f.body.len() < 4096).collect()),
    ]
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(10)
}

fn parse(c: &mut Criterion) {
    let files = load();
    let sets = sets(&files);
    for (set, files) in sets {
        let bytes: usize = files.iter().map(|f| f.body.len()).sum();
        let texts: Vec<String> = files.iter().map(|f| String::from_utf8_lossy(&f.body).into_owned()).collect();
        let mut group = c.benchmark_group(format!("parse/{set}"));
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function("webcanon parse", |b| {
            b.iter(|| files.iter().map(|f| Robots::parse(&f.body).line_count() as usize).sum::<usize>())
        });
        group.bench_function("webcanon parse+rules_for", |b| {
            b.iter(|| files.iter().map(|f| Robots::parse(&f.body).rules_for(AGENT).len()).sum::<usize>())
        });
        group.bench_function("webcanon parse+rules_for+one decision", |b| {
            b.iter(|| {
                files
                    .iter()
                    .filter(|f| Robots::parse(&f.body).rules_for(AGENT).is_allowed("https://example.com/"))
                    .count()
            })
        });
        group.bench_function("texting_robots Robot::new", |b| {
            b.iter(|| files.iter().filter(|f| texting_robots::Robot::new(AGENT, &f.body).is_ok()).count())
        });
        group.bench_function("robotstxt one call", |b| {
            b.iter(|| {
                let mut matcher = robotstxt::DefaultMatcher::default();
                texts.iter().filter(|t| matcher.one_agent_allowed_by_robots(t, AGENT, "https://example.com/")).count()
            })
        });
        group.finish();
    }
}

fn decide(c: &mut Criterion) {
    let files = load();
    let sets = sets(&files);
    for (set, files) in sets {
        let ours: Vec<(AgentRules, &File)> =
            files.iter().map(|f| (Robots::parse(&f.body).rules_for(AGENT), *f)).collect();
        let theirs: Vec<(texting_robots::Robot, &File)> =
            files.iter().filter_map(|f| texting_robots::Robot::new(AGENT, &f.body).ok().map(|r| (r, *f))).collect();
        let urls: usize = files.iter().map(|f| f.urls.len()).sum();
        let their_urls: usize = theirs.iter().map(|(_, f)| f.urls.len()).sum();
        let mut group = c.benchmark_group(format!("decide/{set}"));
        group.throughput(Throughput::Elements(urls as u64));
        group.bench_function("webcanon AgentRules::decide", |b| {
            b.iter(|| ours.iter().map(|(r, f)| f.urls.iter().filter(|u| r.is_allowed(u)).count()).sum::<usize>())
        });
        group.throughput(Throughput::Elements(their_urls as u64));
        group.bench_function("texting_robots allowed", |b| {
            b.iter(|| theirs.iter().map(|(r, f)| f.urls.iter().filter(|u| r.allowed(u)).count()).sum::<usize>())
        });
        group.finish();
    }
    // robotstxt re-parses per decision: measured on the small files only.
    let small: Vec<(&File, String)> = files
        .iter()
        .filter(|f| f.body.len() < 4096)
        .map(|f| (f, String::from_utf8_lossy(&f.body).into_owned()))
        .collect();
    let urls: usize = small.iter().map(|(f, _)| f.urls.len()).sum();
    let mut group = c.benchmark_group("decide/small-reparse");
    group.throughput(Throughput::Elements(urls as u64));
    group.bench_function("robotstxt one call per URL", |b| {
        b.iter(|| {
            let mut matcher = robotstxt::DefaultMatcher::default();
            small
                .iter()
                .map(|(f, text)| f.urls.iter().filter(|u| matcher.one_agent_allowed_by_robots(text, AGENT, u)).count())
                .sum::<usize>()
        })
    });
    group.finish();
}

/// Thousands of wildcard rules: a decision must not cost time linear in
/// the number of rules.
fn adversarial(c: &mut Criterion) {
    let mut group = c.benchmark_group("decide/wildcard-rules");
    for n in [100usize, 1_000, 10_000] {
        let mut body = String::from("User-agent: *\n");
        for i in 0..n {
            body.push_str(&format!("Disallow: /*/section{i}/*.php$\nAllow: /shop/{i}/*/item\n"));
        }
        let urls: Vec<String> = (0..64)
            .map(|i| format!("https://example.com/a/b/c/page-{i}.html?q={i}"))
            .chain((0..64).map(|i| format!("https://example.com/x/section{}/y.php", i * 37 % n)))
            .collect();
        let ours = Robots::parse(body.as_bytes()).rules_for("AnyBot");
        group.throughput(Throughput::Elements(urls.len() as u64));
        group.bench_with_input(BenchmarkId::new("webcanon", n), &urls, |b, urls| {
            b.iter(|| urls.iter().filter(|u| ours.is_allowed(u)).count())
        });
        if let Ok(theirs) = texting_robots::Robot::new("AnyBot", body.as_bytes()) {
            group.bench_with_input(BenchmarkId::new("texting_robots", n), &urls, |b, urls| {
                b.iter(|| urls.iter().filter(|u| theirs.allowed(u)).count())
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = parse, decide, adversarial
}
criterion_main!(benches);
