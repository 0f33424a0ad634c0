//! Property tests: random policies render to files that give every agent
//! exactly the policy's access, and the renderer's own verification never
//! rejects its output.

use proptest::prelude::*;
use webcanon_core::robots::Robots;
use webcanon_render::render_toml;

const TOKENS: &[&str] = &["GPTBot", "ClaudeBot", "CCBot", "Googlebot", "Bingbot", "PerplexityBot", "ChatGPT-User"];

#[derive(Debug, Clone)]
enum Access {
    AllowAll,
    DenyAll,
    Paths(Vec<String>, Vec<String>),
}

fn pattern() -> impl Strategy<Value = String> {
    (prop::collection::vec(prop::sample::select(vec!["a", "b", "/", "a/", "*", "x"]), 0..4), any::<bool>(), 0..6u8)
        .prop_map(|(pieces, star_start, anchor)| {
            let mut p = if star_start && pieces.first() == Some(&"*") { String::new() } else { "/".to_owned() };
            p.extend(pieces);
            if p.is_empty() {
                p.push('/');
            }
            if anchor == 0 {
                p.push('$');
            }
            p
        })
}

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![
        Just(Access::AllowAll),
        Just(Access::DenyAll),
        (prop::collection::vec(pattern(), 0..4), prop::collection::vec(pattern(), 0..4))
            .prop_map(|(a, d)| { if a.is_empty() && d.is_empty() { Access::DenyAll } else { Access::Paths(a, d) } }),
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!["a", "b", "/", "x", "*", "$"]), 0..7)
        .prop_map(|p| format!("/{}", p.concat()))
}

fn toml_access(out: &mut String, access: &Access) {
    let list = |l: &[String]| l.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>().join(", ");
    match access {
        Access::AllowAll => out.push_str("allow_all = true\n"),
        Access::DenyAll => out.push_str("deny_all = true\n"),
        Access::Paths(a, d) => {
            if !a.is_empty() {
                out.push_str(&format!("allow = [{}]\n", list(a)));
            }
            if !d.is_empty() {
                out.push_str(&format!("disallow = [{}]\n", list(d)));
            }
        }
    }
}

/// An independent matcher for the test alphabet (no percent escapes):
/// `*` matches any run, a final `$` anchors the end.
fn matches(pattern: &str, path: &str) -> bool {
    let (body, anchored) = match pattern.strip_suffix('$') {
        Some(body) => (body, true),
        None => (pattern, false),
    };
    fn go(p: &[u8], s: &[u8], anchored: bool) -> bool {
        match p.split_first() {
            None => !anchored || s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| go(rest, &s[i..], anchored)),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..], anchored),
        }
    }
    go(body.as_bytes(), path.as_bytes(), anchored)
}

/// The policy's intended access: longest match, Allow wins a tie, decided
/// on the path as given and with repeated slashes merged (stricter wins).
fn intended(access: &Access, path: &str) -> bool {
    let mut merged = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && merged.ends_with('/')) {
            merged.push(c);
        }
    }
    intended_as_given(access, path) && intended_as_given(access, &merged)
}

fn intended_as_given(access: &Access, path: &str) -> bool {
    if path == "/robots.txt" {
        return true;
    }
    match access {
        Access::AllowAll => true,
        Access::DenyAll => false,
        Access::Paths(allow, disallow) => {
            let best = |l: &[String]| l.iter().filter(|p| matches(p, path)).map(|p| p.len()).max();
            match (best(allow), best(disallow)) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(a), Some(d)) => a >= d,
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rendered_files_give_the_intended_access(
        tokens in prop::sample::subsequence(TOKENS, 1..5).prop_shuffle(),
        accesses in prop::collection::vec(access(), 5),
        default in access(),
        paths in prop::collection::vec(path(), 1..12),
    ) {
        let mut toml = String::from("source = \"prop\"\n[default_policy]\n");
        toml_access(&mut toml, &default);
        for (token, access) in tokens.iter().zip(&accesses) {
            toml.push_str(&format!("[[agents]]\ntoken = \"{token}\"\n"));
            toml_access(&mut toml, access);
        }
        let rendered = match render_toml(&toml) {
            Ok(r) => r,
            Err(err) => return Err(TestCaseError::fail(format!("{err}\n{toml}"))),
        };
        let robots = Robots::parse(rendered.text.as_bytes());
        let agents = tokens.iter().zip(&accesses).map(|(t, a)| (*t, a)).chain([("SomeUnlistedBot", &default)]);
        for (token, access) in agents {
            let rules = robots.rules_for(token);
            for path in paths.iter().map(String::as_str).chain(["/", "/robots.txt"]) {
                let url = format!("https://example.com{path}");
                prop_assert_eq!(
                    rules.is_allowed(&url),
                    intended(access, path),
                    "{} {}\n{}\n{}", token, path, toml, rendered.text
                );
            }
        }
    }
}

#[test]
fn the_test_matcher_agrees_with_rfc_examples() {
    assert!(matches("/a*b$", "/axxb"));
    assert!(!matches("/a*b$", "/axxbc"));
    assert!(matches("*x", "/ax"));
    assert!(matches("/", "/anything"));
    assert!(intended(&Access::Paths(vec!["/a".into()], vec!["/a".into()]), "/a"));
}
