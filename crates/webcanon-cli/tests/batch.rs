//! `webcanon batch` end to end: formats, offline snapshots, shards, resume
//! after SIGKILL, errors. One loopback server plays many hosts through a
//! wildcard `--resolve`.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::array::{Array, AsArray, StringArray};
use arrow::record_batch::RecordBatch;
use support::{run, temp_dir, webcanon};
use webcanon_batch::verdict::VerdictPass;
use webcanon_test::{Route, TestServer};

/// The robots.txt of each test host.
async fn server() -> TestServer {
    let server = TestServer::start().await;
    server
        .route_host(
            "rules.test",
            "/robots.txt",
            Route::text(200, "User-agent: *\nDisallow: /private\nAllow: /private/ok\n"),
        )
        .route_host("missing.test", "/robots.txt", Route::text(404, "nope"))
        .route_host("broken.test", "/robots.txt", Route::text(500, "oops"))
        .route_host("html.test", "/robots.txt", Route::html(200, "<!doctype html><html><body>hi</body></html>"))
        .route_host("bot.test", "/robots.txt", Route::text(200, "User-agent: TestBot\nDisallow: /\n"));
    server
}

fn client_args(server: &TestServer) -> Vec<String> {
    vec![
        "--resolve".into(),
        format!("*.test:{}:127.0.0.1", server.port()),
        "--allow-private".into(),
        "127.0.0.0/8".into(),
        "--no-cache".into(),
        "--agent".into(),
        "TestBot".into(),
    ]
}

/// (URL, verdict, allowed) under `respect` for agent TestBot.
fn table(port: u16) -> Vec<(String, &'static str, bool)> {
    let u = |host: &str, path: &str| format!("http://{host}:{port}{path}");
    vec![
        (u("rules.test", "/private/x"), "disallowed_explicit", false),
        (u("rules.test", "/private/ok"), "allowed_explicit", true),
        (u("rules.test", "/public"), "allowed_implicit", true),
        (u("missing.test", "/a"), "allowed_implicit", true),
        (u("broken.test", "/a"), "unknown_unreachable", false),
        (u("html.test", "/a"), "unknown_parse_error", true),
        (u("bot.test", "/a"), "disallowed_explicit", false),
        ("not a url".into(), "invalid_url", false),
        (u("rules.test", "/private/y"), "disallowed_explicit", false),
        ("ftp://rules.test/x".into(), "invalid_url", false),
    ]
}

fn write_text(path: &Path, urls: &[String]) {
    std::fs::write(path, urls.join("\n") + "\n").unwrap();
}

fn write_csv(path: &Path, urls: &[String]) {
    let mut text = String::from("id,link,other\n");
    for (i, url) in urls.iter().enumerate() {
        text.push_str(&format!("{i},\"{}\",x\n", url.replace('"', "\"\"")));
    }
    std::fs::write(path, text).unwrap();
}

fn write_parquet(path: &Path, urls: &[String]) {
    let ids = arrow::array::Int64Array::from_iter_values(0..urls.len() as i64);
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(ids) as Arc<dyn Array>),
        ("link", Arc::new(StringArray::from(urls.to_vec())) as Arc<dyn Array>),
    ])
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Reads an output file of any format into one batch in the output schema.
fn read_output(path: &Path) -> RecordBatch {
    let schema = VerdictPass::output_schema();
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let batches: Vec<RecordBatch> = match path.extension().unwrap().to_str().unwrap() {
        "parquet" => parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap()
            .map(Result::unwrap)
            .collect(),
        "csv" => arrow::csv::ReaderBuilder::new(schema.clone())
            .with_header(true)
            .build(file)
            .unwrap()
            .map(Result::unwrap)
            .collect(),
        "jsonl" => arrow::json::ReaderBuilder::new(schema.clone())
            .build(std::io::BufReader::new(file))
            .unwrap()
            .map(Result::unwrap)
            .collect(),
        other => panic!("unexpected extension {other}"),
    };
    arrow::compute::concat_batches(&schema, &batches).unwrap()
}

fn strings(batch: &RecordBatch, name: &str) -> Vec<Option<String>> {
    batch.column_by_name(name).unwrap().as_string::<i32>().iter().map(|s| s.map(str::to_string)).collect()
}

fn args(parts: &[&str], extra: &[String]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).chain(extra.iter().cloned()).collect()
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_input_format_to_every_output_format() {
    let server = server().await;
    let dir = temp_dir("batch-formats");
    let rows = table(server.port());
    let urls: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let inputs =
        [(dir.join("urls.txt"), None), (dir.join("urls.csv"), Some("link")), (dir.join("urls.parquet"), Some("link"))];
    write_text(&inputs[0].0, &urls);
    write_csv(&inputs[1].0, &urls);
    write_parquet(&inputs[2].0, &urls);
    let mut reference: Option<RecordBatch> = None;
    for (input, column) in &inputs {
        for ext in ["parquet", "csv", "jsonl"] {
            let stem = input.file_stem().unwrap().to_str().unwrap();
            let out = dir.join(format!("{stem}-{}-out.{ext}", input.extension().unwrap().to_str().unwrap()));
            let mut a = args(&["batch", &path_str(input), "-o", &path_str(&out)], &client_args(&server));
            if let Some(column) = column {
                a.extend(["--column".into(), column.to_string()]);
            }
            let done = run(a).await;
            assert_eq!(done.code, 0, "{}: {}", out.display(), done.stderr);
            let batch = read_output(&out);
            assert_eq!(batch.num_rows(), rows.len());
            let verdicts = strings(&batch, "verdict");
            let allowed = batch.column_by_name("allowed").unwrap().as_boolean().clone();
            for (i, (url, verdict, ok)) in rows.iter().enumerate() {
                assert_eq!(strings(&batch, "url")[i].as_deref(), Some(url.as_str()), "row {i} in order");
                assert_eq!(verdicts[i].as_deref(), Some(*verdict), "{url} in {}", out.display());
                assert_eq!(allowed.value(i), *ok, "{url}");
            }
            match &reference {
                None => reference = Some(batch),
                Some(first) => assert_eq!(&batch, first, "{} differs", out.display()),
            }
        }
    }
    let batch = reference.unwrap();
    // The evidence columns of a few rows.
    let line = batch.column_by_name("rule_line").unwrap().as_primitive::<arrow::datatypes::UInt32Type>().clone();
    assert_eq!(line.value(0), 2);
    assert_eq!(strings(&batch, "rule_pattern")[0].as_deref(), Some("/private"));
    assert!(line.is_null(2));
    assert_eq!(strings(&batch, "robots_status")[3].as_deref(), Some("404"));
    assert_eq!(strings(&batch, "robots_status")[4].as_deref(), Some("500"));
    assert_eq!(strings(&batch, "recommendation")[4].as_deref(), Some("unknown_do_not_fetch_by_default"));
    assert_eq!(strings(&batch, "origin")[0], Some(format!("http://rules.test:{}", server.port())));
    assert_eq!(strings(&batch, "origin")[7], None);
    assert_eq!(strings(&batch, "error")[7].as_deref(), Some("relative URL without a base"));
    assert_eq!(strings(&batch, "error")[9].as_deref(), Some("scheme `ftp` is not http or https"));
    // Nine runs without a cache, one robots.txt request per origin in each.
    assert_eq!(server.hits("/robots.txt"), 9 * 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_reproduces_the_output_offline() {
    let server = server().await;
    let dir = temp_dir("batch-offline");
    let urls: Vec<String> = table(server.port()).into_iter().map(|r| r.0).collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("live.csv");
    let done = run(args(&["batch", &path_str(&input), "-o", &path_str(&out)], &client_args(&server))).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let snapshot = dir.join("live.robots.parquet");
    assert!(snapshot.is_file(), "the fetch pass writes its snapshot next to the output");
    assert!(!dir.join("live.csv.batch").exists(), "the state directory is removed at the end");
    let hits = server.requests().len();
    drop(server);

    // No server, no network options: the same bytes from the snapshot.
    let offline = dir.join("offline.csv");
    let done = webcanon(&[
        "batch",
        &path_str(&input),
        "-o",
        &path_str(&offline),
        "--snapshot",
        &path_str(&snapshot),
        "--agent",
        "TestBot",
    ]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert_eq!(std::fs::read_to_string(&offline).unwrap(), std::fs::read_to_string(&out).unwrap());
    assert_eq!(hits, 5);

    // Another agent from the same snapshot: bot.test no longer blocks.
    let other = dir.join("other.jsonl");
    let done = webcanon(&[
        "batch",
        &path_str(&input),
        "-o",
        &path_str(&other),
        "--snapshot",
        &path_str(&snapshot),
        "--agent",
        "OtherBot",
        "--mode",
        "report_only",
    ]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    let batch = read_output(&other);
    assert_eq!(strings(&batch, "verdict")[6].as_deref(), Some("allowed_implicit"));
    // report_only never refuses, except invalid URLs.
    let allowed = batch.column_by_name("allowed").unwrap().as_boolean().clone();
    assert_eq!(allowed.true_count(), 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_partition_the_input() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /no\n"));
    let dir = temp_dir("batch-shards");
    let mut urls = Vec::new();
    for host in 0..40 {
        for path in ["/a", "/no/b", "/c"] {
            urls.push(format!("http://h{host}.test:{}{path}", server.port()));
        }
    }
    urls.push("garbage one".into());
    urls.push("garbage two".into());
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let mut seen: Vec<String> = Vec::new();
    for shard in 0..3 {
        let out = dir.join(format!("shard{shard}.parquet"));
        let mut a = args(&["batch", &path_str(&input), "-o", &path_str(&out)], &client_args(&server));
        a.extend(["--shard".into(), format!("{shard}/3")]);
        let before = server.hits("/robots.txt");
        let done = run(a).await;
        assert_eq!(done.code, 0, "{}", done.stderr);
        let batch = read_output(&out);
        let shard_urls: Vec<String> = strings(&batch, "url").into_iter().map(Option::unwrap).collect();
        // Order within the shard is input order.
        let positions: Vec<usize> = shard_urls.iter().map(|u| urls.iter().position(|x| x == u).unwrap()).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "shard {shard} keeps input order");
        let origins: std::collections::HashSet<_> = strings(&batch, "origin").into_iter().flatten().collect();
        assert_eq!(server.hits("/robots.txt") - before, origins.len(), "shard {shard} fetches only its origins");
        assert!(!shard_urls.is_empty() && shard_urls.len() < urls.len());
        seen.extend(shard_urls);
    }
    seen.sort();
    let mut all = urls.clone();
    all.sort();
    assert_eq!(seen, all, "every URL in exactly one shard");
    assert_eq!(server.hits("/robots.txt"), 40);
}

/// `--fetch-only` per shard writes one snapshot dataset (a directory of
/// Parquet files); `--snapshot DIR` decides from it exactly what a full
/// run decides, offline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_only_shards_write_one_snapshot_dataset() {
    let server = server().await;
    let dir = temp_dir("batch-fetch-only");
    let urls: Vec<String> = table(server.port()).into_iter().map(|(u, _, _)| u).collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let dataset = dir.join("snapshot");
    std::fs::create_dir_all(&dataset).unwrap();
    let mut origins = 0;
    for shard in 0..2 {
        let file = dataset.join(format!("shard-{shard}.parquet"));
        let mut a = args(&["batch", &path_str(&input), "--fetch-only", "--snapshot-out", &path_str(&file)], &[]);
        a.extend(client_args(&server));
        a.extend(["--shard".into(), format!("{shard}/2"), "--json".into(), "--partition-bytes".into(), "64".into()]);
        let done = run(a).await;
        assert_eq!(done.code, 0, "{}", done.stderr);
        let summary: serde_json::Value = serde_json::from_str(&done.stdout).unwrap();
        assert_eq!(summary["rows"], 0, "nothing decided");
        assert!(summary["partitions"].as_u64().unwrap() > 1, "{summary}");
        origins += summary["origins"].as_u64().unwrap();
        assert!(!dir.join(format!("snapshot/shard-{shard}.parquet.batch")).exists(), "state removed");
    }
    assert_eq!(origins, 5);
    assert_eq!(server.hits("/robots.txt"), 5, "each origin fetched once across the shards");
    let out = dir.join("out.csv");
    let a = args(&["batch", &path_str(&input), "-o", &path_str(&out), "--snapshot", &path_str(&dataset)], &[]);
    let done = run([a, vec!["--agent".into(), "TestBot".into()]].concat()).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let batch = read_output(&out);
    let verdicts = strings(&batch, "verdict");
    for (i, (url, verdict, _)) in table(server.port()).into_iter().enumerate() {
        assert_eq!(verdicts[i].as_deref(), Some(verdict), "{url}");
    }
    assert_eq!(server.hits("/robots.txt"), 5, "offline");

    // --fetch-only needs a snapshot to write, and writes no output.
    let bad = webcanon(&["batch", &path_str(&input), "--fetch-only"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--snapshot-out"), "{}", bad.stderr);
    let bad = webcanon(&["batch", &path_str(&input), "--fetch-only", "--snapshot-out", "s.parquet", "-o", "o.csv"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    // An empty directory is no snapshot.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let bad = webcanon(&["batch", &path_str(&input), "-o", &path_str(&out), "--snapshot", &path_str(&empty)]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("without `*.parquet` files"), "{}", bad.stderr);
}

fn spawn(args: &[String]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_webcanon"))
        .args(args)
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("ALL_PROXY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `ready` holds, then kills the child with SIGKILL. Fails if
/// the child ended first.
async fn kill_when(child: &mut std::process::Child, what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before {what}");
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

fn state_rows(state_dir: &Path) -> u64 {
    let Ok(text) = std::fs::read_to_string(state_dir.join("state.json")) else { return 0 };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else { return 0 };
    json["output"]["rows"].as_u64().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_fetch_pass_resumes_without_fetching_an_origin_twice() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /no\n").delay(Duration::from_millis(15)));
    let dir = temp_dir("batch-kill-fetch");
    let hosts = 160;
    let mut urls = Vec::new();
    for i in 0..hosts {
        urls.push(format!("http://h{i}.test:{}/no/x", server.port()));
        urls.push(format!("https://h{i}.test:{}/a", server.port())); // same host, other origin: never at once
    }
    // Only http is served: the https origins end unreachable (TLS fails).
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("out.parquet");
    let mut a = args(&["batch", &path_str(&input), "-o", &path_str(&out)], &client_args(&server));
    // Origins spilled in several partitions: at the kill some are done
    // (a Parquet part), one is being fetched (a journal), the rest wait.
    a.extend(["--concurrency".into(), "4".into(), "--partition-bytes".into(), "2000".into()]);
    let parts = dir.join("out.parquet.batch").join("parts");

    let mut child = spawn(&a);
    kill_when(&mut child, "100 robots.txt answers", || server.hits("/robots.txt") >= 100).await;
    let mut journaled = std::collections::HashSet::new();
    let (mut finished, mut journals) = (0, 0);
    for file in std::fs::read_dir(&parts).unwrap() {
        let file = file.unwrap().path();
        let entries = match file.extension().and_then(|e| e.to_str()) {
            Some("journal") => {
                journals += 1;
                webcanon_batch::read_journal(&file).unwrap()
            }
            Some("parquet") => {
                finished += 1;
                webcanon_batch::snapshot::Snapshot::read_parquet(&file).unwrap().entries().cloned().collect()
            }
            _ => continue,
        };
        journaled.extend(entries.into_iter().map(|e| e.origin));
    }
    assert!(finished >= 1 && journals >= 1, "killed between partitions: {finished} parts, {journals} journals");
    let requested_before: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.path_and_query == "/robots.txt")
        .map(|r| r.host.clone().unwrap())
        .collect();
    assert!(journaled.len() >= 90, "entries are journaled as they complete: {}", journaled.len());
    assert!(!out.exists());

    let done = run(a.clone()).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let batch = read_output(&out);
    assert_eq!(batch.num_rows(), urls.len());
    assert_eq!(strings(&batch, "url").into_iter().map(Option::unwrap).collect::<Vec<_>>(), urls);

    // Each host's http robots.txt: once, or twice if it was in flight at the kill.
    let mut in_flight = 0;
    for i in 0..hosts {
        let host = format!("h{i}.test:{}", server.port());
        let hits = server.requests().iter().filter(|r| r.host.as_deref() == Some(&host)).count();
        let origin = format!("http://{host}");
        let was_requested = requested_before.contains(&host);
        if journaled.contains(&origin) {
            assert_eq!(hits, 1, "{origin} was journaled and must not be fetched again");
        } else if was_requested {
            in_flight += 1;
            assert_eq!(hits, 2, "{origin} was in flight at the kill");
        } else {
            assert_eq!(hits, 1, "{origin}");
        }
    }
    assert!(in_flight <= 4, "at most --concurrency fetches in flight: {in_flight}");
    let verdicts = strings(&batch, "verdict");
    assert_eq!(verdicts[0].as_deref(), Some("disallowed_explicit"));
    assert_eq!(verdicts[1].as_deref(), Some("unknown_unreachable"));
}

/// Host `i`'s robots.txt: one rule, then about `bytes` of comment lines no
/// other host has, so that a partition's entries take long enough to write
/// for a stage of the run to be caught while it lasts.
fn long_robots(i: usize, bytes: usize) -> String {
    let mut text = String::from("User-agent: *\nDisallow: /no\n");
    let mut line = 0u64;
    // A different line each time (a linear congruential sequence seeded by
    // the host), so no two bodies share their text.
    let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    while text.len() < bytes {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        text.push_str(&format!("# h{i} {line:06} {x:016x} {:016x} {:016x}\n", x.rotate_left(17), x.rotate_left(41)));
        line += 1;
    }
    text
}

/// The origin column of a snapshot file, as stored (one value per row).
fn snapshot_origins(path: &Path) -> Vec<String> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut origins = Vec::new();
    for batch in parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap()
    {
        let batch = batch.unwrap();
        origins
            .extend(batch.column_by_name("origin").unwrap().as_string::<i32>().iter().map(|o| o.unwrap().to_string()));
    }
    origins
}

/// The stages of the fetch pass after its last request, where a kill
/// leaves every origin answered.
#[derive(Debug, Clone, Copy)]
enum Stage {
    /// Partition 1's journal being written out as its Parquet part
    /// (`parts/00001.parquet.tmp`), partition 0's part done.
    PartConversion,
    /// The parts being merged into the snapshot (`out.robots.parquet.tmp`).
    SnapshotMerge,
}

/// A run over hosts with long robots.txt files of their own, killed with
/// SIGKILL while `stage` writes its temporary file; the resumed run must
/// fetch nothing again and end with every origin once in the snapshot.
async fn kill_at_stage_and_resume(name: &str, stage: Stage) {
    let server = TestServer::start().await;
    let hosts = 60;
    for i in 0..hosts {
        server.route_host(&format!("h{i}.test"), "/robots.txt", Route::text(200, &long_robots(i, 300_000)));
    }
    let dir = temp_dir(name);
    let port = server.port();
    let urls: Vec<String> = (0..hosts).map(|i| format!("http://h{i}.test:{port}/no/x")).collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("out.parquet");
    let snapshot = dir.join("out.robots.parquet");
    let mut a = args(&["batch", &path_str(&input), "-o", &path_str(&out), "--json"], &client_args(&server));
    // About 1,600 bytes of URLs: three partitions of some 20 hosts and
    // 6 MB of entries each.
    a.extend(["--concurrency".into(), "8".into(), "--partition-bytes".into(), "600".into()]);
    let parts = dir.join("out.parquet.batch").join("parts");
    let stage_file = match stage {
        Stage::PartConversion => parts.join("00001.parquet.tmp"),
        Stage::SnapshotMerge => dir.join("out.robots.parquet.tmp"),
    };

    let mut child = spawn(&a);
    kill_when(&mut child, &format!("{}", stage_file.display()), || stage_file.exists()).await;
    assert!(stage_file.exists());
    let mut files: Vec<String> =
        std::fs::read_dir(&parts).unwrap().map(|f| f.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    match stage {
        Stage::PartConversion => {
            assert!(files.contains(&"00000.parquet".to_string()), "{files:?}");
            assert!(files.contains(&"00001.journal".to_string()), "{files:?}");
            assert!(!files.contains(&"00001.parquet".to_string()), "killed before the part was in place: {files:?}");
            assert!(!files.iter().any(|f| f.starts_with("00002")), "partition 2 not begun: {files:?}");
        }
        Stage::SnapshotMerge => {
            assert!(!snapshot.exists(), "killed before the snapshot was in place");
            assert!(!files.iter().any(|f| f.ends_with(".journal")), "every partition has its part: {files:?}");
            let parts_done = files.iter().filter(|f| f.ends_with(".parquet")).count();
            assert!(parts_done >= 2, "{files:?}");
        }
    }
    // Before the kill: every origin requested is recorded (a part or a
    // journal), none twice, and nothing was in flight.
    let mut recorded = Vec::new();
    for file in &files {
        let path = parts.join(file);
        if file.ends_with(".journal") {
            recorded.extend(webcanon_batch::read_journal(&path).unwrap().into_iter().map(|e| e.origin));
        } else if file.ends_with(".parquet") {
            recorded.extend(snapshot_origins(&path));
        }
    }
    recorded.sort();
    let mut requested: Vec<String> =
        server.requests().iter().map(|r| format!("http://{}", r.host.clone().unwrap())).collect();
    requested.sort();
    assert_eq!(requested, recorded, "the origins requested before the kill are those recorded");
    let requested_before = requested.len();
    match stage {
        // Partition 2's hosts wait for their turn.
        Stage::PartConversion => assert!(requested_before < hosts, "{requested_before}"),
        Stage::SnapshotMerge => assert_eq!(requested_before, hosts),
    }
    assert!(!out.exists());

    let done = run(a.clone()).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let summary: serde_json::Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(summary["resumed"], true, "{summary}");
    assert_eq!(summary["origins"], hosts, "{summary}");
    assert_eq!(summary["already_fetched"], requested_before, "{summary}");
    assert_eq!(summary["fetched"].as_u64().unwrap() as usize, hosts - requested_before, "{summary}");

    // No origin fetched twice: one request per host over both runs.
    for i in 0..hosts {
        let host = format!("h{i}.test:{port}");
        let hits = server.requests().iter().filter(|r| r.host.as_deref() == Some(&host)).count();
        assert_eq!(hits, 1, "{host} was requested {hits} times");
    }
    // Every origin once in the snapshot, with its own robots.txt.
    let mut stored = snapshot_origins(&snapshot);
    stored.sort();
    let mut expected: Vec<String> = (0..hosts).map(|i| format!("http://h{i}.test:{port}")).collect();
    expected.sort();
    assert_eq!(stored, expected);
    let entries = webcanon_batch::snapshot::Snapshot::read_parquet(&snapshot).unwrap();
    for i in 0..hosts {
        let entry = entries.get(&format!("http://h{i}.test:{port}")).unwrap();
        assert_eq!(entry.body.as_ref().map(Vec::len), Some(long_robots(i, 300_000).len()), "h{i}");
    }
    let batch = read_output(&out);
    assert_eq!(strings(&batch, "url").into_iter().map(Option::unwrap).collect::<Vec<_>>(), urls);
    assert!(strings(&batch, "verdict").iter().all(|v| v.as_deref() == Some("disallowed_explicit")));
    assert!(!dir.join("out.parquet.batch").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_while_writing_a_partitions_part_resumes_without_fetching_again() {
    kill_at_stage_and_resume("batch-kill-part", Stage::PartConversion).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_killed_while_merging_the_snapshot_resumes_without_fetching_again() {
    kill_at_stage_and_resume("batch-kill-merge", Stage::SnapshotMerge).await;
}

#[test]
fn a_parquet_output_of_many_parts_is_merged_under_a_low_open_file_limit() {
    let dir = temp_dir("batch-many-parts");
    let snapshot = dir.join("snap.parquet");
    let entry = webcanon_batch::snapshot::SnapshotEntry {
        origin: "https://a.test".into(),
        status: webcanon_batch::snapshot::SnapshotStatus::Robots(webcanon_core::policy::RobotsAvailability::Parsed),
        http_status: Some(200),
        body: Some(b"User-agent: *\nDisallow: /x\n".to_vec()),
        fetched_at: 1_700_000_000,
        error: None,
        last_good_at: None,
    };
    webcanon_batch::snapshot::Snapshot::from_entries([entry]).write_parquet(&snapshot).unwrap();
    let urls: Vec<String> =
        (0..300).map(|i| format!("https://a.test/{}/{i}", if i % 2 == 0 { "x" } else { "y" })).collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("out.parquet");
    // 300 checkpointed parts, merged by a process that may open 64 files.
    let run = Command::new("prlimit")
        .arg("--nofile=64:64")
        .arg(env!("CARGO_BIN_EXE_webcanon"))
        .args(["batch", &path_str(&input), "-o", &path_str(&out), "--snapshot", &path_str(&snapshot)])
        .args(["--batch-rows", "1", "--threads", "1"])
        .output()
        .expect("prlimit runs (util-linux)");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let batch = read_output(&out);
    assert_eq!(strings(&batch, "url"), urls.iter().cloned().map(Some).collect::<Vec<_>>());
    let allowed =
        batch.column_by_name("allowed").unwrap().as_any().downcast_ref::<arrow::array::BooleanArray>().unwrap();
    assert_eq!(allowed.iter().filter(|a| *a == Some(true)).count(), 150);
}

#[test]
fn a_killed_verdict_pass_resumes_with_every_row_once_in_every_format() {
    let dir = temp_dir("batch-kill-verdict");
    let snapshot = dir.join("snap.parquet");
    let entries: Vec<_> = (0..1000)
        .map(|i| webcanon_batch::snapshot::SnapshotEntry {
            origin: format!("https://h{i}.test"),
            status: webcanon_batch::snapshot::SnapshotStatus::Robots(webcanon_core::policy::RobotsAvailability::Parsed),
            http_status: Some(200),
            body: Some(format!("User-agent: *\nDisallow: /{}\n", i % 7).into_bytes()),
            fetched_at: 1_700_000_000,
            error: None,
            last_good_at: None,
        })
        .collect();
    webcanon_batch::snapshot::Snapshot::from_entries(entries).write_parquet(&snapshot).unwrap();
    let urls: Vec<String> = (0..120_000).map(|i| format!("https://h{}.test/{}/p?q={i}", i % 1000, i % 9)).collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    for ext in ["csv", "jsonl", "parquet"] {
        let reference = dir.join(format!("whole.{ext}"));
        let common = ["--snapshot", &path_str(&snapshot), "--batch-rows", "1000", "--threads", "1", "--json"];
        let whole_run = webcanon(
            &args(&["batch", &path_str(&input), "-o", &path_str(&reference)], &[])
                .iter()
                .map(String::as_str)
                .chain(common)
                .collect::<Vec<_>>(),
        );
        assert_eq!(whole_run.code, 0, "{}", whole_run.stderr);

        let out = dir.join(format!("killed.{ext}"));
        let state = dir.join(format!("killed.{ext}.batch"));
        let a: Vec<String> = ["batch", &path_str(&input), "-o", &path_str(&out)]
            .iter()
            .chain(common.iter())
            .map(|s| s.to_string())
            .collect();
        let mut child = spawn(&a);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(kill_when(&mut child, "a partial output", || state_rows(&state) >= 20_000));
        let partial = state_rows(&state);
        assert!(partial < urls.len() as u64, "killed part way: {partial}");
        assert!(!out.exists(), "no output under its name before the run ends");
        if ext == "csv" {
            // The state fits only the settings it was made with.
            let mut other = a.clone();
            other.push("--auth-disallows".into());
            let refused = webcanon(&other.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(refused.code, 3, "{}", refused.stderr);
            assert!(refused.stderr.contains("User-Agent or --auth-disallows"), "{}", refused.stderr);
            // The same snapshot path, but the file changed since.
            let file = std::fs::File::options().write(true).open(&snapshot).unwrap();
            let modified = file.metadata().unwrap().modified().unwrap();
            file.set_modified(modified + Duration::from_secs(10)).unwrap();
            let refused = webcanon(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(refused.code, 3, "{}", refused.stderr);
            assert!(refused.stderr.contains("other settings"), "{}", refused.stderr);
            file.set_modified(modified).unwrap();
        }
        let done = webcanon(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(done.code, 0, "{}", done.stderr);
        // The summary counts the whole output, the rows before the kill too.
        let summary = |stdout: &str| serde_json::from_str::<serde_json::Value>(stdout).unwrap();
        let (first, second) = (summary(&whole_run.stdout), summary(&done.stdout));
        assert_eq!(second["resumed"], true);
        for key in ["rows", "allowed", "invalid"] {
            assert_eq!(second[key], first[key], "{ext}: {key}");
        }
        assert_eq!(second["decided"].as_u64().unwrap() + partial, urls.len() as u64, "{ext}");
        let (whole, resumed) = (read_output(&reference), read_output(&out));
        assert_eq!(resumed.num_rows(), urls.len(), "{ext}: exactly one row per input URL");
        assert_eq!(resumed, whole, "{ext}: the resumed output equals an uninterrupted run");
        assert!(!state.exists());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_with_other_settings_is_refused() {
    let dir = temp_dir("batch-resume-settings");
    let input = dir.join("urls.txt");
    write_text(&input, &["https://a.test/".to_string()]);
    let snapshot = dir.join("snap.parquet");
    webcanon_batch::snapshot::Snapshot::default().write_parquet(&snapshot).unwrap();
    let out = dir.join("out.csv");
    // A state left by a run for another agent.
    let first = webcanon(&["batch", &path_str(&input), "-o", &path_str(&out), "--snapshot", &path_str(&snapshot)]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    std::fs::create_dir(dir.join("out.csv.batch")).unwrap();
    std::fs::write(
        dir.join("out.csv.batch/state.json"),
        r#"{"settings":{"input":"/elsewhere","input_bytes":1,"input_modified":0,"column":"url","agent":"x","mode":"respect","shard":"0/1","snapshot":null,"snapshot_out":"x","batch_rows":1},"fetch_done":true,"output":{"rows":0,"bytes":0,"parts":0}}"#,
    )
    .unwrap();
    let done = webcanon(&["batch", &path_str(&input), "-o", &path_str(&out), "--snapshot", &path_str(&snapshot)]);
    assert_eq!(done.code, 3, "a resume refused has its own exit status");
    assert!(done.stderr.contains("an interrupted run with other settings"), "{}", done.stderr);
    assert!(done.stderr.contains("hint: the state of the interrupted run is in"), "{}", done.stderr);
}

#[test]
fn bad_input_gets_a_clear_error() {
    let dir = temp_dir("batch-errors");
    let csv = dir.join("urls.csv");
    std::fs::write(&csv, "id,link\n1,https://a.test/\n").unwrap();
    let parquet = dir.join("urls.parquet");
    write_parquet(&parquet, &["https://a.test/".to_string()]);
    let numbers = dir.join("numbers.parquet");
    {
        let batch =
            RecordBatch::try_from_iter([("url", Arc::new(arrow::array::Int64Array::from(vec![1])) as Arc<dyn Array>)])
                .unwrap();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&numbers).unwrap(), batch.schema(), None)
                .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }
    let text = dir.join("urls.txt");
    std::fs::write(&text, "https://a.test/\n").unwrap();
    let not_parquet = dir.join("fake.parquet");
    std::fs::write(&not_parquet, "this is not parquet").unwrap();
    let out = |name: &str| path_str(&dir.join(name));
    let snap = ["--snapshot".to_string(), path_str(&dir.join("missing-snapshot.parquet"))];
    let rows: Vec<(Vec<String>, &str)> = vec![
        (
            vec![path_str(&csv), "-o".into(), out("a.csv"), "--mode".into(), "ignore".into()],
            "urls.csv: no column `url`; the columns are: id, link",
        ),
        (
            vec![
                path_str(&parquet),
                "-o".into(),
                out("b.csv"),
                "--column".into(),
                "nope".into(),
                "--mode".into(),
                "ignore".into(),
            ],
            "urls.parquet: no column `nope`; the columns are: id, link",
        ),
        (
            vec![path_str(&numbers), "-o".into(), out("c.csv"), "--mode".into(), "ignore".into()],
            "numbers.parquet: column `url` holds Int64, not text",
        ),
        (vec![path_str(&dir.join("absent.txt")), "-o".into(), out("d.csv")], "absent.txt: no such file"),
        (
            vec![path_str(&text), "-o".into(), out("e.xlsx")],
            "e.xlsx: unknown output format; use a name ending in `.parquet`, `.csv` or `.jsonl`",
        ),
        (vec![path_str(&dir.join("urls.xlsx")), "-o".into(), out("f.csv")], "urls.xlsx: unknown input format"),
        (
            vec![path_str(&not_parquet), "-o".into(), out("g.csv"), "--mode".into(), "ignore".into()],
            "fake.parquet: Parquet:",
        ),
        (
            vec![path_str(&text), "-o".into(), out("h.csv"), snap[0].clone(), snap[1].clone()],
            "missing-snapshot.parquet: No such file",
        ),
        (
            vec![path_str(&text), "-o".into(), out("i.csv"), "--shard".into(), "3/3".into()],
            "the shard index must be below the count",
        ),
        (
            vec![path_str(&text), "-o".into(), out("j.csv"), "--shard".into(), "one/3".into()],
            "the index is not a whole number",
        ),
        (
            vec![path_str(&text), "-o".into(), out("k.csv"), "--shard".into(), "0/0".into()],
            "the shard count must be at least 1",
        ),
        (
            vec![
                path_str(&text),
                "-o".into(),
                out("l.csv"),
                "--mode".into(),
                "ignore".into(),
                "--agent".into(),
                "GPT Bot".into(),
            ],
            "agent `GPT Bot` is not a product token",
        ),
    ];
    for (a, expected) in rows {
        let mut full = vec!["batch".to_string()];
        full.extend(a);
        let done = webcanon(&full.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(done.code, 2, "{full:?}: {}", done.stderr);
        assert!(done.stderr.contains(expected), "{full:?}: expected `{expected}` in {}", done.stderr);
    }
}

#[test]
fn a_run_that_cannot_write_exits_1() {
    let dir = temp_dir("batch-cannot-write");
    let input = dir.join("urls.txt");
    write_text(&input, &["https://a.test/".to_string()]);
    let not_a_dir = dir.join("plain-file");
    std::fs::write(&not_a_dir, "").unwrap();
    let out = not_a_dir.join("out.csv");
    let done = webcanon(&["batch", &path_str(&input), "-o", &path_str(&out), "--mode", "ignore"]);
    assert_eq!(done.code, 1, "not bad usage (2): the run failed writing; {}", done.stderr);
    assert!(done.stderr.contains("plain-file/out.csv.batch"), "the message names the path: {}", done.stderr);
}

/// Under a low open-file limit, thousands of origins are fetched within the
/// process's socket budget: no "too many open files" is ever taken for a
/// site's answer, and every verdict is the site's own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_origins_under_a_low_open_file_limit_get_the_sites_verdicts() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /private\n"));
    let dir = temp_dir("batch-nofile");
    let port = server.port();
    let origins = 3_000;
    let urls: Vec<String> = (0..origins)
        .map(|i| format!("http://h{i}.test:{port}/{}", if i % 2 == 0 { "private/x" } else { "public" }))
        .collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("out.csv");
    let mut command = std::process::Command::new("prlimit");
    command
        .arg("--nofile=256:256")
        .arg(env!("CARGO_BIN_EXE_webcanon"))
        .args(["batch", &path_str(&input), "-o", &path_str(&out), "--concurrency", "200"])
        // Many partitions, each a file open while the input is read.
        .args(["--partition-bytes", "2048"])
        .args(client_args(&server));
    let run = tokio::task::spawn_blocking(move || command.output().expect("prlimit runs (util-linux)")).await.unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let batch = read_output(&out);
    assert_eq!(batch.num_rows(), origins);
    let verdicts = strings(&batch, "verdict");
    let statuses = strings(&batch, "robots_status");
    let errors = strings(&batch, "error");
    for i in 0..origins {
        let expected = if i % 2 == 0 { "disallowed_explicit" } else { "allowed_implicit" };
        assert_eq!(verdicts[i].as_deref(), Some(expected), "{}: {:?}", urls[i], errors[i]);
        assert_eq!(statuses[i].as_deref(), Some("200"), "{}", urls[i]);
        assert_eq!(errors[i], None, "{}", urls[i]);
    }
    assert_eq!(server.hits("/robots.txt"), origins);
}

/// How a test damages a partition file of origins left by a killed run.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// Cut short, as a crash before the data reached the disk leaves it.
    Truncated,
    /// The same size, other bytes (one not UTF-8).
    Garbled,
}

/// Issue 30, defects 11 and 12: a run killed right after spilling its
/// origins, one of whose partition files is then damaged, resumes with a
/// warning, spills again, and decides every row as a clean run does
/// (before, a truncated partition lost most origins and the rows became
/// `unknown_unreachable`/`missing` with exit 0; a garbled one failed every
/// rerun with "run the same command again").
async fn a_damaged_partition_is_spilled_again(name: &str, damage: Damage) {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /no\n").delay(Duration::from_millis(10)));
    let dir = temp_dir(name);
    let port = server.port();
    let hosts = 300;
    let mut urls = Vec::new();
    for j in 0..3 {
        for i in 0..hosts {
            urls.push(format!("http://h{i}.test:{port}/no/{j}"));
            urls.push(format!("http://h{i}.test:{port}/a/{j}"));
        }
    }
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("out.csv");
    let mut a = args(&["batch", &path_str(&input), "-o", &path_str(&out), "--json"], &client_args(&server));
    a.extend(["--concurrency".into(), "2".into(), "--partition-bytes".into(), "4000".into()]);
    let origins = dir.join("out.csv.batch").join("origins");
    let mut child = spawn(&a);
    kill_when(&mut child, "the spill's marker", || origins.join("complete").exists()).await;

    // The last partition still on disk is one the fetch pass has not reached.
    let mut files: Vec<_> = std::fs::read_dir(&origins)
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("origins-"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "several partitions: {files:?}");
    let victim = files.last().unwrap();
    let mut bytes = std::fs::read(victim).unwrap();
    assert!(bytes.len() > 100, "{}: {} bytes", victim.display(), bytes.len());
    match damage {
        Damage::Truncated => bytes.truncate(bytes.len() / 10),
        Damage::Garbled => {
            let middle = bytes.len() / 2;
            bytes[middle] = 0xFF;
        }
    }
    std::fs::write(victim, bytes).unwrap();

    let done = run(a.clone()).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert!(done.stderr.contains("warning: the origins spilled by the interrupted run are damaged"), "{}", done.stderr);
    assert!(done.stderr.contains(victim.file_name().unwrap().to_str().unwrap()), "{}", done.stderr);
    let summary: serde_json::Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(summary["origins"], hosts, "{summary}");
    assert_eq!(summary["warnings"].as_array().map(Vec::len), Some(1), "{summary}");
    let batch = read_output(&out);
    assert_eq!(strings(&batch, "url").into_iter().map(Option::unwrap).collect::<Vec<_>>(), urls);
    let verdicts = strings(&batch, "verdict");
    for (url, verdict) in urls.iter().zip(&verdicts) {
        let expected = if url.contains("/no/") { "disallowed_explicit" } else { "allowed_implicit" };
        assert_eq!(verdict.as_deref(), Some(expected), "{url}");
    }
    assert!(strings(&batch, "robots_status").iter().all(|s| s.as_deref() == Some("200")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_30_a_truncated_partition_is_spilled_again_on_resume() {
    a_damaged_partition_is_spilled_again("batch-truncated-partition", Damage::Truncated).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_30_a_garbled_partition_is_spilled_again_on_resume() {
    a_damaged_partition_is_spilled_again("batch-garbled-partition", Damage::Garbled).await;
}

/// Issue 30, defect 12: a byte that is not UTF-8 in a text or CSV input
/// made the whole run fail (exit 2, no line). Its row is `invalid_url`, the
/// other rows are decided (through the fetch pass too), and a warning names
/// the line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_30_bytes_that_are_not_utf8_make_one_invalid_row_each() {
    let server = server().await;
    let port = server.port();
    let dir = temp_dir("batch-not-utf8");
    let good = |path: &str| format!("http://rules.test:{port}{path}");
    let text = [
        good("/private/x").into_bytes(),
        format!("http://rules.test:{port}/caf").into_bytes().into_iter().chain(*b"\xe9").collect(),
        good("/public").into_bytes(),
        b"\xff\xfe".to_vec(),
        good("/private/ok").into_bytes(),
    ]
    .join(&b'\n');
    let csv: Vec<u8> = [
        b"id,link,other".to_vec(),
        format!("1,{},x", good("/private/x")).into_bytes(),
        [format!("2,{}/caf", good("")).into_bytes(), b"\xe9,x".to_vec()].concat(),
        [format!("3,{},", good("/public")).into_bytes(), b"\xe9".to_vec()].concat(),
    ]
    .join(&b'\n');
    /// An input, its URL column, the verdicts of its rows and the warning.
    struct Case {
        name: &'static str,
        bytes: Vec<u8>,
        column: &'static str,
        verdicts: &'static [&'static str],
        warning: &'static str,
    }
    let cases = [
        Case {
            name: "urls.txt",
            bytes: text,
            column: "url",
            verdicts: &["disallowed_explicit", "invalid_url", "allowed_implicit", "invalid_url", "allowed_explicit"],
            warning: "2 lines are not valid UTF-8 (lines 2, 4)",
        },
        Case {
            name: "urls.csv",
            bytes: csv,
            column: "link",
            verdicts: &["disallowed_explicit", "invalid_url", "allowed_implicit"],
            warning: "2 lines are not valid UTF-8 (lines 3, 4)",
        },
    ];
    for Case { name, bytes, column, verdicts, warning } in cases {
        let input = dir.join(name);
        std::fs::write(&input, bytes).unwrap();
        let out = dir.join(format!("{name}.jsonl"));
        let a = args(&["batch", &path_str(&input), "-o", &path_str(&out), "--column", column], &client_args(&server));
        let done = run(a).await;
        assert_eq!(done.code, 0, "{name}: {}", done.stderr);
        assert!(done.stderr.contains(warning), "{name}: {}", done.stderr);
        let batch = read_output(&out);
        let found: Vec<Option<String>> = strings(&batch, "verdict");
        assert_eq!(found, verdicts.iter().map(|v| Some(v.to_string())).collect::<Vec<_>>(), "{name}");
        let errors = strings(&batch, "error");
        assert!(errors[1].as_deref().is_some_and(|e| e.contains("not valid UTF-8")), "{name}: {errors:?}");
    }
}

/// Issue 30, defect 12: under a file-size limit the process died of
/// SIGXFSZ with no message. The write fails instead, and the error names
/// the file, says it is too large and how to go on.
#[test]
fn issue_30_a_write_past_the_file_size_limit_is_reported() {
    let dir = temp_dir("batch-file-size-limit");
    let urls: Vec<String> = (0..2000).map(|i| format!("https://h{i}.test/some/long/path/{i}")).collect();
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("out.jsonl");
    let run = Command::new("prlimit")
        .arg("--fsize=16384:16384")
        .arg(env!("CARGO_BIN_EXE_webcanon"))
        .args(["batch", &path_str(&input), "-o", &path_str(&out), "--mode", "ignore", "--agent", "TestBot"])
        .output()
        .expect("prlimit runs (util-linux)");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(stderr.contains(&path_str(&dir.join("out.jsonl.batch"))), "{stderr}");
    assert!(stderr.contains("ulimit -f"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The page records of a `--content` output, fetch times cleared (the one
/// field two fetches of a page do not share).
fn content_records(path: &Path) -> Vec<webcanon_client::PageRecord> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let mut record: webcanon_client::PageRecord = serde_json::from_str(line).unwrap();
            record.fetched_at = None;
            record
        })
        .collect()
}

/// Requests for pages (not robots.txt or llms.txt), by host and path.
fn page_requests(server: &TestServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter(|r| r.path_and_query.starts_with("/p") || r.path_and_query.starts_with("/no"))
        .map(|r| format!("{}{}", r.host.as_deref().unwrap_or(""), r.path_and_query))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_content_pass_resumes_without_fetching_a_page_twice() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nDisallow: /no\n"));
    let (hosts, pages) = (8, 70);
    for j in 0..pages {
        let body = format!(
            "<html><head><title>Page {j}</title></head><body><p>Page {j} of the loopback web.</p></body></html>"
        );
        server.route(&format!("/p{j}"), Route::html(200, &body).delay(Duration::from_millis(10)));
    }
    let mut urls = Vec::new();
    for j in 0..pages {
        for i in 0..hosts {
            urls.push(format!("http://h{i}.test:{}/p{j}", server.port()));
        }
        urls.push(format!("http://h{}.test:{}/no/{j}", j % hosts, server.port()));
    }
    let dir = temp_dir("batch-kill-content");
    let input = dir.join("urls.txt");
    write_text(&input, &urls);
    let out = dir.join("pages.jsonl");
    let mut a = args(&["batch", &path_str(&input), "-o", &path_str(&out), "--content"], &client_args(&server));
    a.extend(["--concurrency".into(), "4".into()]);

    // Killed in the second chunk: the first is in the output's checkpoint,
    // part of the second in the journal.
    let mut child = spawn(&a);
    let state_dir = dir.join("pages.jsonl.batch");
    kill_when(&mut child, "a chunk written and the next one begun", || {
        state_rows(&state_dir) >= 256 && page_requests(&server).len() >= 300
    })
    .await;
    let before = page_requests(&server);
    let journal = std::fs::read_to_string(state_dir.join("content.journal")).unwrap();
    let journaled: std::collections::HashSet<String> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| v["record"]["requested_url"].as_str().unwrap().trim_start_matches("http://").to_string())
        .collect();
    assert!(!journaled.is_empty(), "pages are journaled as they are fetched");

    let done = run(a.clone()).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let after = page_requests(&server);
    let mut counts = std::collections::HashMap::new();
    for request in &after {
        *counts.entry(request.as_str()).or_insert(0) += 1;
    }
    let mut in_flight = 0;
    for (request, hits) in &counts {
        assert!(!request.contains("/no/"), "{request} is disallowed and must never be requested");
        if *hits > 1 {
            assert_eq!(*hits, 2, "{request}");
            assert!(before.iter().any(|b| b == request) && !journaled.contains(*request), "{request} fetched twice");
            in_flight += 1;
        }
    }
    assert!(in_flight <= 4, "at most --concurrency pages in flight at the kill: {in_flight}");
    assert_eq!(counts.len(), hosts * pages, "every allowed page fetched");

    // The records are those of a run that was never killed.
    let whole = dir.join("whole.jsonl");
    let mut b = args(&["batch", &path_str(&input), "-o", &path_str(&whole), "--content"], &client_args(&server));
    b.extend(["--concurrency".into(), "4".into()]);
    let done = run(b).await;
    assert_eq!(done.code, 0, "{}", done.stderr);
    let resumed = content_records(&out);
    assert_eq!(resumed.len(), urls.len());
    assert_eq!(resumed.iter().map(|r| r.requested_url.clone()).collect::<Vec<_>>(), urls);
    assert_eq!(resumed, content_records(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The content pass's input is the dataset: one host's URLs by the
/// thousand get one request at a time, and memory that does not grow with
/// their number (a chunk's records at most).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dataset_of_one_host_is_fetched_one_page_at_a_time_in_bounded_memory() {
    let server = TestServer::start().await;
    server.route("/robots.txt", Route::text(200, "User-agent: *\nAllow: /\n"));
    let page = format!("<html><body><p>{}</p></body></html>", "one host, many pages. ".repeat(400));
    let delay = Duration::from_millis(3);
    let count = 2400;
    for j in 0..count {
        server.route(&format!("/p{j}"), Route::html(200, &page).delay(delay));
    }
    let dir = temp_dir("batch-content-one-host");
    let mut peaks = Vec::new();
    for n in [count / 8, count] {
        let urls: Vec<String> = (0..n).map(|j| format!("http://one.test:{}/p{j}", server.port())).collect();
        let input = dir.join(format!("urls-{n}.txt"));
        write_text(&input, &urls);
        let out = dir.join(format!("pages-{n}.jsonl"));
        let mut a = args(&["batch", &path_str(&input), "-o", &path_str(&out), "--content"], &client_args(&server));
        a.extend(["--concurrency".into(), "64".into(), "--no-alternatives".into()]);
        let mut child = spawn(&a);
        let pid = child.id().to_string();
        let mut peak = 0;
        while child.try_wait().unwrap().is_none() {
            peak = peak.max(webcanon_test::memory::status_kib(&pid, "VmHWM").unwrap_or(0));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(child.wait().unwrap().success());
        assert_eq!(content_records(&out).len(), n);
        peaks.push(peak);
    }
    // One request at a time: each arrives after the one before was answered.
    let times: Vec<Instant> = server
        .requests_with_times()
        .into_iter()
        .filter(|(_, r)| r.path_and_query.starts_with("/p"))
        .map(|(at, _)| at)
        .collect();
    assert_eq!(times.len(), count / 8 + count);
    let overlapping = times.windows(2).filter(|w| w[1].duration_since(w[0]) < delay).count();
    assert_eq!(overlapping, 0, "two requests to one host at once");
    // Eight times the pages, about the same memory: 16 MiB of slack for
    // the allocator, against about 25 MiB of content.
    assert!(
        peaks[1] < peaks[0] + 16 * 1024,
        "peak RSS {} KiB for {} pages, {} KiB for {}",
        peaks[1],
        count,
        peaks[0],
        count / 8
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn content_goes_to_jsonl_or_parquet_only() {
    let dir = temp_dir("batch-content-csv");
    let input = dir.join("urls.txt");
    write_text(&input, &["https://a.test/".to_string()]);
    let run = webcanon(&["batch", &path_str(&input), "-o", &path_str(&dir.join("out.csv")), "--content"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("`.jsonl` or `.parquet`"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
