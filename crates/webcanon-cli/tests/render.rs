//! `webcanon render` end to end.

mod support;

use std::fs;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../webcanon-render/examples/policy.toml");

#[test]
fn renders_to_stdout() {
    let run = support::webcanon(&["render", EXAMPLE]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("# robots.txt for acme.com\n"), "{}", run.stdout);
    assert!(run.stdout.contains("User-agent: GPTBot\n"), "{}", run.stdout);
    assert!(run.stdout.contains("Allow: /docs/\nDisallow: /\n"), "{}", run.stdout);
    assert!(run.stdout.contains("\nSitemap: https://acme.com/sitemap.xml\n"), "{}", run.stdout);
    assert!(!run.stderr.contains("warning:"), "{}", run.stderr);
}

#[test]
fn renders_to_a_file_identical_to_stdout() {
    let dir = support::temp_dir("output");
    let out = dir.join("robots.txt");
    let run = support::webcanon(&["render", EXAMPLE, "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let written = fs::read_to_string(&out).unwrap();
    assert_eq!(written, support::webcanon(&["render", EXAMPLE]).stdout);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn preset_writes_a_policy_that_renders() {
    let dir = support::temp_dir("preset");
    let policy = dir.join("policy.toml");
    let run =
        support::webcanon(&["render", "--preset", "block-training-allow-retrieval", "-o", policy.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = fs::read_to_string(&policy).unwrap();
    assert!(text.contains("tokens = [\"GPTBot\""), "{text}");
    assert_eq!(text, support::webcanon(&["render", "--preset", "block-training-allow-retrieval"]).stdout);

    let run = support::webcanon(&["render", policy.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("User-agent: GPTBot\n"), "{}", run.stdout);

    let run = support::webcanon(&["render", "--preset", "no-such-preset"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("search-only"), "{}", run.stderr);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_reports_differences_in_effect() {
    let dir = support::temp_dir("check");
    let existing = dir.join("robots.txt");
    fs::write(&existing, "User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n").unwrap();
    let run = support::webcanon(&["render", EXAMPLE, "--check", existing.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.lines().contains(&"GPTBot /docs/: policy allows, existing disallows (line 5: Disallow: /)"),
        "{}",
        run.stdout
    );
    assert!(run.lines().iter().all(|l| !l.starts_with("Googlebot ")), "{}", run.stdout);

    let run = support::webcanon(&["render", EXAMPLE, "--check", existing.to_str().unwrap(), "--json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["same_effect"], false);
    let first_docs = report["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["agent"] == "GPTBot" && d["path"] == "/docs/")
        .expect("GPTBot /docs/ differs");
    assert_eq!(first_docs["policy"], "allow");
    assert_eq!(first_docs["existing"], "disallow");
    assert_eq!(first_docs["rule"]["line"], 5);
    assert_eq!(first_docs["rule"]["directive"], "disallow");

    // The file rendered from the policy has the policy's effect.
    let rendered = dir.join("rendered.txt");
    assert_eq!(support::webcanon(&["render", EXAMPLE, "-o", rendered.to_str().unwrap()]).code, 0);
    let run = support::webcanon(&["render", EXAMPLE, "--check", rendered.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn invalid_policy_names_key_and_line() {
    let dir = support::temp_dir("invalid");
    let policy = dir.join("policy.toml");
    fs::write(&policy, "source = \"a\"\n[[agents]]\ntoken = \"GPTBot\"\ndeny_all = true\nallow = [\"/docs/\"]\n")
        .unwrap();
    let run = support::webcanon(&["render", policy.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(run.stderr.contains("line 5: `agents[0].allow`"), "{}", run.stderr);
    assert!(run.stderr.contains("\nhint: "), "{}", run.stderr);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn registry_warnings_go_to_stderr() {
    let run = support::webcanon_with_stdin(
        &["render", "-"],
        "source = \"a\"\n[[agents]]\ntoken = \"GTPBot\"\ndeny_all = true\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning: <stdin>: line 3: unknown agent token `GTPBot`; did you mean `GPTBot`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("User-agent: GTPBot\nDisallow: /\n"), "{}", run.stdout);
}
