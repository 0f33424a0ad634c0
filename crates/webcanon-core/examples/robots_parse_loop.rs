//! Parses robots.txt files and compiles the rules for one agent, many times
//! over: a steady workload for profilers (`valgrind --tool=callgrind`,
//! `perf`), which time the parser alone, without a benchmark harness.
//!
//! ```text
//! cargo build --profile profiling -p webcanon-core --example robots_parse_loop
//! valgrind --tool=callgrind target/profiling/examples/robots_parse_loop 20 GPTBot FILE...
//! ```

use webcanon_core::robots::Robots;

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize =
        args.next().and_then(|n| n.parse().ok()).expect("usage: robots_parse_loop ROUNDS AGENT FILE...");
    let agent = args.next().expect("usage: robots_parse_loop ROUNDS AGENT FILE...");
    let bodies: Vec<Vec<u8>> =
        args.map(|path| std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).collect();
    let mut rules = 0usize;
    for _ in 0..rounds {
        for body in &bodies {
            rules += Robots::parse(body).rules_for(&agent).len();
        }
    }
    println!("{} files x {rounds} rounds, {rules} rules compiled", bodies.len());
}
