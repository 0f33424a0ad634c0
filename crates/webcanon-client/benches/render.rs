//! Rendering on loopback: the time of a rendered fetch next to a plain
//! fetch of the same page and to a fresh `chromium --headless --dump-dom`
//! per page (a browser started for each page, as a script would), and the
//! browser's memory (proportional set size of all its processes) over 100
//! renders, to show that it does not grow.
//!
//! ```text
//! cargo bench -p webcanon-client --bench render
//! ```
//!
//! Chromium is `$WEBCANON_CHROMIUM`, else `/usr/bin/chromium`; without
//! either the bench says so and measures nothing.

use std::time::{Duration, Instant};

use webcanon_client::browser::RenderMode;
use webcanon_client::ssrf::SsrfPolicy;
use webcanon_client::{CacheSetting, Client, FetchOptions};
use webcanon_test::{TestServer, serve_single_page_app};

const RENDERS: usize = 100;

/// The proportional set size, in KiB, of every process of the browser this
/// process started (found by the profile directory named on its command line).
fn browser_pss_kib() -> u64 {
    let marker = format!("webcanon-chromium-{}-", std::process::id());
    let mut total = 0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let dir = entry.path();
        let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else { continue };
        if !String::from_utf8_lossy(&cmdline).contains(&marker) {
            continue;
        }
        let Ok(rollup) = std::fs::read_to_string(dir.join("smaps_rollup")) else { continue };
        total += rollup
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
    }
    total
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let Some(chromium) = webcanon_test::chromium() else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = runtime.block_on(async {
        let server = TestServer::start().await;
        let paragraphs: Vec<String> = (0..20)
            .map(|i| {
                format!(
                    "Paragraph {i} of the loaded article: robots, agents and the pages they read, long enough to count."
                )
            })
            .collect();
        serve_single_page_app(&server, "Loaded", &paragraphs);
        server
    });
    let url = server.url("/");
    let client = Client::builder()
        .ssrf_policy(SsrfPolicy::default().allow_private("127.0.0.1/32".parse().unwrap()))
        .cache(CacheSetting::Memory)
        .alternatives(false)
        .chromium(&chromium)
        .build()
        .unwrap();
    let rendering = FetchOptions { render: RenderMode::On, ..*client.fetch_options() };

    runtime.block_on(async {
        // Warm-up: the browser starts on the first render.
        let started = Instant::now();
        let first = client.fetch_with(&url, &rendering).await.unwrap();
        assert!(first.rendered && first.content.contains("Paragraph 19"), "{}", first.content);
        println!("first render (browser start included): {:.0} ms", started.elapsed().as_secs_f64() * 1e3);

        let mut plain = Vec::new();
        for _ in 0..RENDERS {
            let started = Instant::now();
            client.fetch(&url).await.unwrap();
            plain.push(started.elapsed());
        }
        let mut rendered = Vec::new();
        let mut memory = vec![(1, browser_pss_kib())];
        for n in 1..=RENDERS {
            let started = Instant::now();
            let result = client.fetch_with(&url, &rendering).await.unwrap();
            rendered.push(started.elapsed());
            assert!(result.rendered && result.content.contains("Paragraph 19"));
            if n % 25 == 0 {
                memory.push((n + 1, browser_pss_kib()));
            }
        }
        let mut cold = Vec::new();
        for _ in 0..5 {
            let profile = std::env::temp_dir().join(format!("webcanon-bench-dump-{}", std::process::id()));
            let started = Instant::now();
            let output = std::process::Command::new(&chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--virtual-time-budget=2000",
                    "--dump-dom",
                ])
                .arg(format!("--user-data-dir={}", profile.display()))
                .arg(&url)
                .output()
                .unwrap();
            cold.push(started.elapsed());
            let _ = std::fs::remove_dir_all(&profile);
            assert!(String::from_utf8_lossy(&output.stdout).contains("Paragraph 19"));
        }
        let (plain, rendered, cold) = (median(plain), median(rendered), median(cold));
        println!("plain fetch, median of {RENDERS}: {:.1} ms", plain.as_secs_f64() * 1e3);
        println!("rendered fetch, median of {RENDERS}: {:.1} ms", rendered.as_secs_f64() * 1e3);
        println!("chromium --dump-dom, fresh browser per page, median of 5: {:.1} ms", cold.as_secs_f64() * 1e3);
        println!(
            "ratios: rendered / plain {:.1}x; fresh browser / rendered {:.1}x",
            rendered.as_secs_f64() / plain.as_secs_f64(),
            cold.as_secs_f64() / rendered.as_secs_f64()
        );
        for (n, kib) in memory {
            println!("browser memory (PSS, all processes) before render {n}: {:.1} MiB", kib as f64 / 1024.0);
        }
    });
}
