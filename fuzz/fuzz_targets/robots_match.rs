//! Matches one fuzzed URL against one fuzzed robots.txt.
//!
//! The input is split at its first NUL: the URL (lossy UTF-8) before it, the
//! robots body after. Properties: `decide` equals the compiled decision, and
//! the verdict does not change when the URL's non-ASCII characters are
//! percent-encoded (upper or lower case hex) or its unreserved characters
//! are encoded, as RFC 9309 section 2.2.2 and DESIGN.md make them equal.

#![no_main]

use std::fmt::Write;

use libfuzzer_sys::fuzz_target;
use webcanon_core::robots::Robots;

const AGENTS: [&str; 4] = ["FuzzBot", "Googlebot", "a", "WebcanonOtherBot"];

fn encode(url: &str, lower: bool, unreserved: bool) -> String {
    let mut out = String::with_capacity(url.len() * 3);
    for c in url.chars() {
        let encode = !c.is_ascii() || (unreserved && (c.is_ascii_alphanumeric() || "-._~".contains(c)));
        if encode {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                if lower {
                    let _ = write!(out, "%{b:02x}");
                } else {
                    let _ = write!(out, "%{b:02X}");
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let url = String::from_utf8_lossy(&data[..split]).into_owned();
    let body = data.get(split + 1..).unwrap_or_default();
    let robots = Robots::parse(body);
    // Only a path can be re-encoded safely: `%`, `#` and the authority of an
    // absolute URL change meaning when escaped.
    let path = format!("/{}", url.trim_start_matches('/'));
    let plain = !path.contains(['%', '#', '\u{fffd}']);
    for agent in AGENTS {
        let compiled = robots.rules_for(agent);
        let direct = robots.decide(agent, &url);
        assert_eq!(direct, compiled.decide(&url), "agent {agent:?} url {url:?}");
        if plain {
            let base = robots.decide(agent, &path).verdict;
            for (lower, unreserved) in [(false, false), (true, false), (false, true), (true, true)] {
                let variant = encode(&path, lower, unreserved);
                assert_eq!(robots.decide(agent, &variant).verdict, base, "agent {agent:?} {path:?} vs {variant:?}");
                assert_eq!(compiled.decide(&variant).verdict, base, "agent {agent:?} {path:?} vs {variant:?}");
            }
        }
    }
});
