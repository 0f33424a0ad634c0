//! Rendering end to end: snapshots, determinism, seed 004 §6.1, errors,
//! warnings and self-verification.

use webcanon_core::robots::Robots;
use webcanon_render::verify::{self, Reading};
use webcanon_render::warnings::{self, WarningKind};
use webcanon_render::{Policy, Preset, RenderError, render, render_toml};

const EXAMPLE: &str = include_str!("../examples/policy.toml");

fn error_of(text: &str) -> webcanon_render::PolicyError {
    Policy::from_toml(text).expect_err("the policy is invalid")
}

#[test]
fn example_policy_snapshot() {
    let rendered = render_toml(EXAMPLE).unwrap();
    insta::assert_snapshot!("example_policy", rendered.text);
}

#[test]
fn preset_snapshots() {
    for preset in Preset::ALL {
        let toml = preset.policy_toml();
        let rendered = render_toml(&toml).unwrap_or_else(|e| panic!("{preset}: {e}"));
        insta::assert_snapshot!(format!("preset_{}_policy", preset.name()), toml);
        insta::assert_snapshot!(format!("preset_{}_robots", preset.name()), rendered.text);
    }
}

#[test]
fn presets_are_free_of_registry_warnings_except_blocked_retrieval() {
    for preset in Preset::ALL {
        let policy = Policy::from_toml(&preset.policy_toml()).unwrap();
        let kinds: Vec<WarningKind> = warnings::check(&policy).into_iter().map(|w| w.kind).collect();
        let expected_same = preset == Preset::BlockAllAi;
        assert!(
            kinds.iter().all(|k| expected_same && *k == WarningKind::SameTrainingAndRetrievalAccess),
            "{preset}: {kinds:?}"
        );
        assert_eq!(!kinds.is_empty(), expected_same, "{preset}: {kinds:?}");
    }
}

#[test]
fn rendered_files_lint_clean() {
    let texts = std::iter::once(EXAMPLE.to_owned()).chain(Preset::ALL.iter().map(|p| p.policy_toml()));
    for text in texts {
        let robots_txt = render_toml(&text).unwrap().text;
        let lint = Robots::parse(robots_txt.as_bytes()).lint();
        assert!(lint.is_empty(), "{lint:#?}\n{robots_txt}");
    }
}

#[test]
fn rendering_is_deterministic() {
    let a = render_toml(EXAMPLE).unwrap();
    let b = render_toml(EXAMPLE).unwrap();
    assert_eq!(a.text.as_bytes(), b.text.as_bytes());
    assert_eq!(a.policy_hash, b.policy_hash);
    assert!(a.text.contains(&a.policy_hash));
}

#[test]
fn equivalent_inputs_render_identically() {
    let one = r#"
source = "acme.com"
sitemap_url = "https://acme.com/sitemap.xml"
[default_policy]
allow = ["/", "/public/"]
disallow = ["/admin/", "/account/"]
[[agents]]
token = "GPTBot"
vendor = "OpenAI"
allow = ["/docs/", "/blog/", "/docs/"]
disallow = ["/"]
"#;
    let two = r#"
# Same policy: keys, tables and list items in another order, comments added.
sitemap_url = "https://acme.com/sitemap.xml"
source = "acme.com"

[[agents]]
disallow = ["/"]
allow = ["/blog/", "/docs/"]
vendor = "OpenAI"
token = "GPTBot"

[default_policy]
disallow = ["/account/", "/admin/"]
allow = ["/public/", "/"]
"#;
    let a = render_toml(one).unwrap();
    let b = render_toml(two).unwrap();
    assert_eq!(a.text, b.text);
    assert_eq!(a.policy_hash, b.policy_hash);
    // A change of meaning changes the hash.
    let c = render_toml(&one.replace("/admin/", "/admins/")).unwrap();
    assert_ne!(a.policy_hash, c.policy_hash);
}

/// Seed 004 §6.1, verbatim.
const SEED_6_1: &str = "\
# --- Search crawlers: allow everywhere ---
User-agent: Googlebot
User-agent: Bingbot
User-agent: Applebot
User-agent: DuckDuckBot
Allow: /

# --- AI training: block by default, allow docs ---
User-agent: GPTBot
User-agent: ClaudeBot
User-agent: anthropic-ai
User-agent: CCBot
User-agent: Bytespider
User-agent: meta-externalagent
Allow: /docs/
Allow: /blog/
Disallow: /

# --- AI search and live-retrieval: allow (this is your discovery) ---
User-agent: OAI-SearchBot
User-agent: ChatGPT-User
User-agent: Claude-User
User-agent: Claude-SearchBot
User-agent: PerplexityBot
User-agent: Perplexity-User
Allow: /

# --- Vendor-specific AI opt-out tokens ---
User-agent: Google-Extended
User-agent: Applebot-Extended
Disallow: /

# --- Sitemap ---
Sitemap: https://acme.com/sitemap.xml
";

#[test]
fn example_policy_has_the_effect_of_seed_004_section_6_1() {
    let ours = Robots::parse(render_toml(EXAMPLE).unwrap().text.as_bytes());
    let seed = Robots::parse(SEED_6_1.as_bytes());
    let agents = [
        "Googlebot",
        "Bingbot",
        "Applebot",
        "DuckDuckBot",
        "GPTBot",
        "ClaudeBot",
        "anthropic-ai",
        "CCBot",
        "Bytespider",
        "meta-externalagent",
        "OAI-SearchBot",
        "ChatGPT-User",
        "Claude-User",
        "Claude-SearchBot",
        "PerplexityBot",
        "Perplexity-User",
        "Google-Extended",
        "Applebot-Extended",
    ];
    let paths = ["/", "/docs/", "/docs/a", "/blog/x", "/pricing", "/account/"];
    for agent in agents {
        assert!(ours.has_group_for(agent), "{agent} has its own record");
        let (a, b) = (ours.rules_for(agent), seed.rules_for(agent));
        for path in paths {
            let url = format!("https://acme.com{path}");
            assert_eq!(a.is_allowed(&url), b.is_allowed(&url), "{agent} {path}");
        }
    }
    // Spot checks that the comparison compares something.
    assert!(!ours.rules_for("GPTBot").is_allowed("https://acme.com/pricing"));
    assert!(ours.rules_for("GPTBot").is_allowed("https://acme.com/docs/a"));
    assert!(!ours.rules_for("Google-Extended").is_allowed("https://acme.com/docs/a"));
    assert!(ours.rules_for("ChatGPT-User").is_allowed("https://acme.com/account/"));
    assert_eq!(ours.sitemaps().collect::<Vec<_>>(), ["https://acme.com/sitemap.xml"]);
}

#[test]
fn unknown_key_names_key_and_line() {
    let err = error_of("source = \"a\"\n\n[[agents]]\ntoken = \"GPTBot\"\ndeny_all = true\nallow_everything = true\n");
    assert_eq!(err.line, Some(6), "{err}");
    assert!(err.to_string().contains("allow_everything"), "{err}");
}

#[test]
fn deny_all_with_allow_names_key_and_line() {
    let err = error_of("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\ndeny_all = true\nallow = [\"/docs/\"]\n");
    assert_eq!(err.line, Some(5), "{err}");
    assert_eq!(err.key.as_deref(), Some("agents[0].allow"));
    assert!(err.to_string().contains("deny_all"), "{err}");
}

#[test]
fn allow_all_and_deny_all_exclude_each_other() {
    let err = error_of("source = \"a\"\n[default_policy]\nallow_all = true\ndeny_all = true\n");
    assert_eq!(err.line, Some(4), "{err}");
    assert_eq!(err.key.as_deref(), Some("default_policy.deny_all"));
}

#[test]
fn path_without_leading_slash_names_key_and_line() {
    let err = error_of("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\nallow = [\"/docs/\",\n  \"blog/\"]\n");
    assert_eq!(err.line, Some(5), "{err}");
    assert_eq!(err.key.as_deref(), Some("agents[0].allow"));
    assert!(err.message.contains("`blog/`"), "{err}");
}

#[test]
fn bad_role_names_key_and_line() {
    let err = error_of("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\nrole = \"trainer\"\ndeny_all = true\n");
    assert_eq!(err.line, Some(4), "{err}");
    assert_eq!(err.key.as_deref(), Some("agents[0].role"));
    assert!(err.message.contains("ai-training"), "the valid roles are listed: {err}");
}

#[test]
fn other_invalid_values() {
    let cases = [
        ("source = \"a\"\n[[agents]]\ntoken = \"\"\ndeny_all = true\n", 3, "empty agent token"),
        ("source = \"a\"\n[[agents]]\ntoken = \"*\"\ndeny_all = true\n", 3, "default_policy"),
        ("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\n", 2, "exactly one of"),
        (
            "source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\ndeny_all = true\n[[agents]]\ntoken = \"gptbot\"\nallow_all = true\n",
            5,
            "already listed on line 3",
        ),
        (
            "source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\nnotes = \"x\\nDisallow: /\"\ndeny_all = true\n",
            4,
            "one line",
        ),
        ("source = \"a\"\nsitemap_url = \"/sitemap.xml\"\n", 2, "absolute"),
        ("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\ndisallow = [\"/a b\"]\n", 4, "robots.txt cannot carry"),
        ("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\nallow_all = false\n", 4, "means nothing"),
    ];
    for (text, line, needle) in cases {
        let err = error_of(text);
        assert_eq!(err.line, Some(line), "{text}: {err}");
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
}

#[test]
fn registry_warnings() {
    let policy = Policy::from_toml(
        r#"
source = "a"
[[agents]]
token = "GTPBot"
deny_all = true
[[agents]]
token = "anthropic-ai"
deny_all = true
[[agents]]
tokens = ["ClaudeBot", "Claude-User"]
role = "search"
deny_all = true
[[agents]]
token = "TotallyUnheardOfCrawler"
deny_all = true
"#,
    )
    .unwrap();
    let found = warnings::check(&policy);
    let has = |kind: WarningKind, token: &str, needle: &str| {
        found.iter().any(|w| w.kind == kind && w.token == token && w.message.contains(needle))
    };
    assert!(has(WarningKind::Misspelling, "GTPBot", "did you mean `GPTBot`"), "{found:#?}");
    assert!(!has(WarningKind::LegacyWithoutSuccessor, "anthropic-ai", ""), "ClaudeBot is listed: {found:#?}");
    assert!(has(WarningKind::RoleMismatch, "ClaudeBot", "ai-training"), "{found:#?}");
    assert!(has(WarningKind::RoleMismatch, "Claude-User", "ai-user-fetch"), "{found:#?}");
    assert!(has(WarningKind::SameTrainingAndRetrievalAccess, "Claude-User", "ClaudeBot"), "{found:#?}");
    assert!(has(WarningKind::UnknownToken, "TotallyUnheardOfCrawler", "registry"), "{found:#?}");

    let legacy = Policy::from_toml("source = \"a\"\n[[agents]]\ntoken = \"anthropic-ai\"\ndeny_all = true\n").unwrap();
    let found = warnings::check(&legacy);
    assert!(
        found.iter().any(|w| w.kind == WarningKind::LegacyWithoutSuccessor && w.message.contains("`ClaudeBot`")),
        "{found:#?}"
    );
}

#[test]
fn first_match_order_is_checked() {
    let policy =
        Policy::from_toml("source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\nallow = [\"/blog/\"]\ndisallow = [\"/\"]\n")
            .unwrap();
    // The order seed 004 §2.7 warns about: right for RFC 9309, wrong for
    // first-match crawlers.
    let wrong = "User-agent: GPTBot\nDisallow: /\nAllow: /blog/\n";
    match verify::verify(&policy, wrong) {
        Err(RenderError::Verification { agent, path, expected: true, got: false, reading: Reading::FirstMatch }) => {
            assert_eq!(agent, "GPTBot");
            assert!(path.starts_with("/blog/"), "{path}");
        }
        other => panic!("{other:?}"),
    }
    let rendered = render(&policy).unwrap().text;
    assert!(rendered.contains("User-agent: GPTBot\nAllow: /blog/\nDisallow: /\n"), "{rendered}");
    // A file with another effect fails the longest-match reading too.
    let err = verify::verify(&policy, "User-agent: GPTBot\nDisallow: /\n").unwrap_err();
    assert!(matches!(err, RenderError::Verification { reading: Reading::LongestMatch, .. }), "{err}");
}

#[test]
fn compare_reports_differences_with_the_deciding_rule() {
    let policy = Policy::from_toml(EXAMPLE).unwrap();
    let existing = Robots::parse(b"User-agent: *\nAllow: /\n\nUser-agent: ChatGPT-User\nDisallow: /\n");
    let diffs = verify::compare(&policy, &existing);
    let chatgpt = diffs.iter().find(|d| d.agent == "ChatGPT-User" && d.path == "/").expect("a difference");
    assert!(chatgpt.policy_allows && !chatgpt.existing_allows);
    assert_eq!(chatgpt.rule.as_ref().map(|r| (r.line, r.pattern.as_str())), Some((5, "/")));
    let gptbot = diffs.iter().find(|d| d.agent == "GPTBot" && d.path == "/pricing/x");
    assert!(gptbot.is_none_or(|d| !d.policy_allows), "{gptbot:?}");
    assert!(diffs.iter().any(|d| d.agent == "GPTBot" && !d.policy_allows && d.existing_allows));
    assert!(diffs.iter().all(|d| d.agent != "Googlebot"), "Googlebot agrees");
    let same = Robots::parse(render_toml(EXAMPLE).unwrap().text.as_bytes());
    assert!(verify::compare(&policy, &same).is_empty());
}

#[test]
fn compare_probes_what_only_the_existing_file_names() {
    // The policy names neither /account/ nor MadeUpBot; the existing file
    // blocks both, and the difference must show.
    let policy = Policy::from_toml(EXAMPLE).unwrap();
    let mut existing = render_toml(EXAMPLE).unwrap().text;
    existing = existing.replace("User-agent: *\nAllow: /\n", "User-agent: *\nAllow: /\nDisallow: /account/\n");
    existing.push_str("\nUser-agent: MadeUpBot\nDisallow: /\n");
    let diffs = verify::compare(&policy, &Robots::parse(existing.as_bytes()));
    assert!(
        diffs.iter().any(|d| d.agent == "*" && d.path == "/account/" && d.policy_allows && !d.existing_allows),
        "{diffs:?}"
    );
    assert!(diffs.iter().any(|d| d.agent == "MadeUpBot" && d.path == "/" && !d.existing_allows), "{diffs:?}");
}

/// RSL guide "Adding RSL to robots.txt": `License: https://example.com/license.xml`.
/// The policy's `license_url` becomes one `License:` line, read back by the
/// core's parser; a policy without one keeps its hash and has none.
#[test]
fn license_url_renders_a_license_line() {
    let without = "source = \"acme.com\"\n";
    let with = "source = \"acme.com\"\nlicense_url = \"https://acme.com/license.xml\"\n";
    let plain = webcanon_render::render(&webcanon_render::Policy::from_toml(without).unwrap()).unwrap();
    let licensed = webcanon_render::render(&webcanon_render::Policy::from_toml(with).unwrap()).unwrap();
    assert!(!plain.text.contains("License:"));
    assert!(
        licensed.text.ends_with(
            "\n# Content licence (RSL 1.0, https://rslstandard.org/rsl)\nLicense: https://acme.com/license.xml\n"
        ),
        "{}",
        licensed.text
    );
    assert_ne!(plain.policy_hash, licensed.policy_hash);
    let parsed = webcanon_core::robots::Robots::parse(licensed.text.as_bytes());
    assert_eq!(parsed.licenses().collect::<Vec<_>>(), ["https://acme.com/license.xml"]);
    assert!(parsed.lint().iter().all(|d| d.code.code() != "R002" && d.code.code() != "R015"), "{:?}", parsed.lint());
    let err = webcanon_render::Policy::from_toml("source = \"a\"\nlicense_url = \"/license.xml\"\n").unwrap_err();
    assert_eq!((err.line, err.key.as_deref()), (Some(2), Some("license_url")), "{err}");
    // A file whose License line is not the policy's fails self-verification.
    let policy = webcanon_render::Policy::from_toml(with).unwrap();
    let err = webcanon_render::verify::verify(&policy, &plain.text).unwrap_err();
    assert!(matches!(err, RenderError::LicenseRecord { .. }), "{err}");
}
