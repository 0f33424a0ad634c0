//! Parses arbitrary bytes as robots.txt, lints them, and decides URLs built
//! from the file's own patterns for the agents it names.
//!
//! Properties: nothing panics; `Robots::decide` and the compiled
//! `rules_for(agent).decide` agree exactly (verdict, line, directive and
//! pattern); an implicit verdict has no rule and an explicit one has; the
//! rule's line exists; `/robots.txt` is always allowed.

#![no_main]

use libfuzzer_sys::fuzz_target;
use webcanon_core::robots::{MatchVerdict, Robots};

fuzz_target!(|data: &[u8]| {
    let robots = Robots::parse(data);
    let _ = robots.lint();
    let _ = robots.sitemaps().count();

    let mut agents: Vec<String> = vec!["WebcanonFuzzBot".into(), "Googlebot".into(), String::new()];
    let mut urls: Vec<String> = vec!["/".into(), "https://example.com/robots.txt".into(), "/a?b#c".into()];
    for group in robots.groups() {
        agents.extend(group.user_agents().map(|a| a.token.to_string()).take(4));
        for rule in group.rules().take(16) {
            let filled: String = rule.pattern.trim_end_matches('$').replace('*', "x");
            urls.push(if filled.starts_with('/') { filled.clone() } else { format!("/{filled}") });
            urls.push(format!("{filled}y"));
            urls.push(rule.pattern.to_string());
        }
    }
    agents.truncate(12);
    urls.truncate(64);

    for agent in &agents {
        let _ = robots.crawl_delay(agent);
        let _ = robots.content_signals(agent);
        let compiled = robots.rules_for(agent);
        for url in &urls {
            let direct = robots.decide(agent, url);
            assert_eq!(direct, compiled.decide(url), "agent {agent:?} url {url:?}");
            match (direct.verdict, direct.rule) {
                (MatchVerdict::AllowedImplicit, rule) => assert!(rule.is_none()),
                (_, rule) => assert!(rule.is_some_and(|r| r.line >= 1 && r.line <= robots.line_count())),
            }
        }
        assert_eq!(robots.decide(agent, "/robots.txt").verdict, MatchVerdict::AllowedImplicit);
    }
});
