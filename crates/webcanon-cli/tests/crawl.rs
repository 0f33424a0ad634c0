//! `webcanon crawl` end to end: records on stdout and in files (JSON
//! lines, Parquet), a Markdown folder, resume after SIGKILL, seed files,
//! the page options of `fetch`.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{run, temp_dir};
use webcanon_test::{Route, TestServer};

fn page(title: &str, body: &str) -> Route {
    Route::html(
        200,
        &format!(
            "<html><head><title>{title}</title></head><body><main><h1>{title}</h1>\
             <p>{title}: a page with enough words of its own to be a page, not a teaser.</p>{body}</main></body></html>"
        ),
    )
}

/// A site of `pages` pages under `/p/N`, each linking the next two, every
/// answer `delay` late.
async fn site(pages: usize, delay: Duration) -> TestServer {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    server.route("/", page("Home", "<a href=/p/0>first</a> <a href=/private/x>private</a>").delay(delay));
    for n in 0..pages {
        let links = format!("<a href=/p/{}>next</a> <a href=/p/{}>after</a>", n + 1, n + 2);
        server.route(&format!("/p/{n}"), page(&format!("Page {n}"), &links).delay(delay));
    }
    server
}

fn args(server: &TestServer, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "crawl".into(),
        server.url("/"),
        "--allow-private".into(),
        "127.0.0.0/8".into(),
        "--no-cache".into(),
        "--agent".into(),
        "TestBot".into(),
        "--seed".into(),
        "start".into(),
        "--no-soft-404-probe".into(),
        "--no-alternatives".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn records(text: &str) -> Vec<serde_json::Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_stream_to_stdout() {
    let server = site(5, Duration::ZERO).await;
    let out = run(args(&server, &[])).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let records = records(&out.stdout);
    let by_url: HashMap<String, &serde_json::Value> =
        records.iter().map(|r| (r["requested_url"].as_str().unwrap().to_string(), r)).collect();
    assert_eq!(by_url[&server.url("/private/x")]["not_fetched"], "disallowed");
    assert_eq!(by_url[&server.url("/p/4")]["content"].as_str().map(|c| c.contains("Page 4")), Some(true));
    // Breadth first: /p/4 is two links from /p/0 (through /p/2).
    assert_eq!(by_url[&server.url("/p/4")]["depth"], 3);
    // /p/5 and /p/6 answer 404: recorded with their status.
    assert_eq!(by_url[&server.url("/p/5")]["not_fetched"], "http_status");
    assert_eq!(records.len(), 1 + 5 + 2 + 1, "{}", out.stdout);
    assert_eq!(server.hits("/private/x"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_markdown_folder_mirrors_the_site() {
    let server = site(2, Duration::ZERO).await;
    let dir = temp_dir("crawl-folder");
    let folder = format!("{}/site/", dir.display());
    let out = run(args(&server, &["-o", &folder])).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let host = format!("127.0.0.1_{}", server.port());
    let page = std::fs::read_to_string(dir.join("site").join(&host).join("p").join("1.md")).unwrap();
    assert!(page.contains("Page 1"), "{page}");
    assert!(dir.join("site").join(&host).join("index.md").is_file());
    let index = std::fs::read_to_string(dir.join("site/index.jsonl")).unwrap();
    let entries = records(&index);
    assert!(entries.iter().all(|e| e["content"].is_null()));
    assert_eq!(entries.iter().filter(|e| e["file"].is_string()).count(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_crawl_resumes_without_losing_or_repeating_a_record() {
    const PAGES: usize = 60;
    let server = site(PAGES, Duration::from_millis(40)).await;
    let dir = temp_dir("crawl-kill");
    let output = dir.join("site.jsonl");
    let output_arg = output.display().to_string();
    let crawl_args = args(&server, &["-o", &output_arg]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(&crawl_args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&output).map_or(0, |t| t.lines().count()) < 20 {
        assert!(child.try_wait().unwrap().is_none(), "the crawl ended before the kill");
        assert!(Instant::now() < deadline, "timed out waiting for 20 records");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before: HashMap<String, usize> =
        (0..PAGES).map(|n| (format!("/p/{n}"), server.hits(&format!("/p/{n}")))).collect();
    let resumed = run(crawl_args.clone()).await;
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let records = records(&std::fs::read_to_string(&output).unwrap());
    let mut seen = HashMap::new();
    for record in &records {
        *seen.entry(record["requested_url"].as_str().unwrap().to_string()).or_insert(0) += 1;
    }
    assert!(seen.values().all(|&n| n == 1), "a URL recorded twice: {seen:?}");
    // Home, the private page, PAGES pages, and the two 404s past the end.
    assert_eq!(records.len(), 1 + 1 + PAGES + 2);
    // Pages finished before the kill are not fetched again; the one in
    // flight at the kill is (one request at a time per host).
    let again = (0..PAGES).filter(|n| before[&format!("/p/{n}")] == 1 && server.hits(&format!("/p/{n}")) > 1).count();
    assert!(again <= 1, "{again} pages fetched twice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_files_are_read_within_bounds() {
    let server = site(1, Duration::ZERO).await;
    let dir = temp_dir("crawl-seeds");
    let seeds = dir.join("seeds.txt");
    std::fs::write(&seeds, format!("# start here\n\n{}\n", server.url("/p/0"))).unwrap();
    let mut crawl_args = args(&server, &["--seeds", &seeds.display().to_string(), "--max-depth", "0"]);
    crawl_args.remove(1);
    let out = run(crawl_args).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Page 0"), "{}", out.stdout);
    // Hostile seed files: one endless line is refused after 4 KiB read, a
    // huge (sparse) file before a byte is read, binary data at its line.
    let hostile = dir.join("hostile.txt");
    std::fs::write(&hostile, "x".repeat(50 << 20)).unwrap();
    let huge = dir.join("huge.txt");
    std::fs::File::create(&huge).unwrap().set_len(1 << 30).unwrap();
    let binary = dir.join("binary.txt");
    let garbage: Vec<u8> = (0..8u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    std::fs::write(&binary, [format!("{}\n", server.url("/")).as_bytes(), &garbage].concat()).unwrap();
    for (file, expected) in [
        (&hostile, "line 1 is longer than 4 KiB"),
        (&huge, "larger than 256 MiB"),
        (&binary, "line 2 is not text (binary data?)"),
    ] {
        let started = Instant::now();
        let out = run(vec!["crawl".into(), "--seeds".into(), file.display().to_string()]).await;
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(out.stderr.contains(expected), "{}", out.stderr);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}

/// The records of a crawl's Parquet file, by URL, without their fetch
/// times; and how many records it has.
fn parquet_records(path: &Path) -> (HashMap<String, serde_json::Value>, usize) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap();
    let mut lines = Vec::new();
    let mut writer = arrow::json::LineDelimitedWriter::new(&mut lines);
    for batch in reader {
        let mut batch = batch.unwrap();
        // Times differ between runs (and JSON cannot name their zone).
        batch.remove_column(batch.schema().index_of("fetched_at").unwrap());
        writer.write(&batch).unwrap();
    }
    writer.finish().unwrap();
    let rows = records(std::str::from_utf8(&lines).unwrap());
    let count = rows.len();
    let by_url = rows.into_iter().map(|row| (row["requested_url"].as_str().unwrap().to_string(), row)).collect();
    (by_url, count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parquet_crawl_killed_and_resumed_has_the_records_of_an_uninterrupted_one() {
    const PAGES: usize = 60;
    let server = site(PAGES, Duration::from_millis(40)).await;
    let dir = temp_dir("crawl-parquet-kill");
    let whole = dir.join("whole.parquet");
    let out = run(args(&server, &["-o", &whole.display().to_string()])).await;
    assert_eq!(out.code, 0, "{}", out.stderr);

    let output = dir.join("site.parquet");
    let crawl_args = args(&server, &["-o", &output.display().to_string()]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(&crawl_args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let journal = dir.join("site.parquet.frontier.parts/journal-000000.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 20 {
        assert!(child.try_wait().unwrap().is_none(), "the crawl ended before the kill");
        assert!(Instant::now() < deadline, "timed out waiting for 20 records");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!output.exists(), "the output is written only when the crawl is done");
    let resumed = run(crawl_args).await;
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);

    let (expected, expected_count) = parquet_records(&whole);
    let (got, count) = parquet_records(&output);
    assert_eq!(expected_count, 1 + 1 + PAGES + 2);
    assert_eq!(count, expected_count, "a record lost or repeated");
    assert_eq!(got, expected);
    assert!(got[&server.url("/p/7")]["content"].as_str().is_some_and(|c| c.contains("Page 7")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_take_the_page_options_of_fetch() {
    let server = site(2, Duration::ZERO).await;
    let out = run(args(&server, &["--format", "text", "--links", "drop", "--max-total-bytes", "1000000"])).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = records(&out.stdout).into_iter().find(|r| r["requested_url"] == server.url("/p/1")).unwrap();
    let content = page["content"].as_str().unwrap();
    assert!(content.contains("Page 1") && !content.contains('#') && !content.contains("]("), "{content}");
    // `--max-bytes` is one page's limit, as in fetch.
    let out = run(args(&server, &["--max-bytes", "100"])).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let records = records(&out.stdout);
    assert_eq!(records.len(), 1, "{}", out.stdout);
    assert_eq!(records[0]["bytes"], 100, "{}", records[0]);
    assert_eq!(records[0]["warnings"][0]["code"], "body_truncated", "{}", records[0]);
}
