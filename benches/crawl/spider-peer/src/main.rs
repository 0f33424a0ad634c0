//! The `spider` crate crawling the synthetic web: one `Website` per seed
//! (each site is its own origin), `respect_robots_txt` on, at most
//! `CONCURRENCY` sites at once and one request at a time within a site, the
//! limits webcanon's crawl is given in the same run.
//!
//! `spider-peer SEEDS_FILE AGENT CONCURRENCY MAX_DEPTH MAX_PAGES_PER_SITE`
//! prints one line: `pages=N seconds=S`.

use std::sync::Arc;
use std::time::Instant;

use spider::website::Website;
use tokio::sync::Semaphore;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, seeds_file, agent, concurrency, max_depth, max_pages] = args.as_slice() else {
        eprintln!("usage: spider-peer SEEDS_FILE AGENT CONCURRENCY MAX_DEPTH MAX_PAGES_PER_SITE");
        std::process::exit(2);
    };
    let seeds = std::fs::read_to_string(seeds_file).expect("seed file is readable");
    let concurrency: usize = concurrency.parse().expect("CONCURRENCY is a number");
    let max_depth: usize = max_depth.parse().expect("MAX_DEPTH is a number");
    let max_pages: u32 = max_pages.parse().expect("MAX_PAGES_PER_SITE is a number");

    let started = Instant::now();
    let sites_at_once = Arc::new(Semaphore::new(concurrency));
    let mut crawls = Vec::new();
    for seed in seeds.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let mut website = Website::new(seed);
        website
            .with_respect_robots_txt(true)
            .with_user_agent(Some(agent))
            .with_depth(max_depth)
            .with_limit(max_pages)
            .with_concurrency_limit(Some(1));
        let sites_at_once = Arc::clone(&sites_at_once);
        crawls.push(tokio::spawn(async move {
            let _slot = sites_at_once.acquire_owned().await.expect("semaphore is open");
            website.crawl().await;
            website.get_links().len()
        }));
    }
    let mut pages = 0;
    for crawl in crawls {
        pages += crawl.await.expect("a site's crawl does not panic");
    }
    println!("pages={pages} seconds={:.3}", started.elapsed().as_secs_f64());
}
