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

/// Issue 31: `render --preset` wrote a policy, so a second run was needed
/// for the robots.txt people came for. It renders the robots.txt;
/// `--emit-policy` writes the policy, which renders to the same file.
#[test]
fn preset_renders_robots_txt_and_emits_its_policy_on_request() {
    let dir = support::temp_dir("preset");
    let robots = support::webcanon(&["render", "--preset", "block-training-allow-retrieval"]);
    assert_eq!(robots.code, 0, "{}", robots.stderr);
    assert!(robots.stdout.starts_with("# robots.txt for "), "{}", robots.stdout);
    assert!(robots.stdout.contains("User-agent: GPTBot\n"), "{}", robots.stdout);

    let policy = dir.join("policy.toml");
    let path = policy.to_str().unwrap();
    let run = support::webcanon(&["render", "--preset", "block-training-allow-retrieval", "--emit-policy", "-o", path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = fs::read_to_string(&policy).unwrap();
    assert!(text.contains("tokens = [\"GPTBot\""), "{text}");
    let emitted = support::webcanon(&["render", "--preset", "block-training-allow-retrieval", "--emit-policy"]);
    assert_eq!(text, emitted.stdout);

    let run = support::webcanon(&["render", path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = |text: &str| text.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&run.stdout), body(&robots.stdout), "the emitted policy renders the preset's rules");

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

/// Issue 31: `render --check` printed paths nobody wrote (`* /x?session=/sub`)
/// without saying they are probes. Such a line is marked `(probe)`, a note
/// says what probes are, and the JSON has `probe`.
#[test]
fn check_marks_probe_paths() {
    let dir = support::temp_dir("probes");
    let policy = dir.join("policy.toml");
    fs::write(&policy, "source = \"a\"\n[default_policy]\nallow = [\"/\"]\ndisallow = [\"/x?session=\"]\n").unwrap();
    let existing = dir.join("robots.txt");
    fs::write(&existing, "User-agent: *\nAllow: /\n").unwrap();
    let (policy, existing) = (policy.to_str().unwrap(), existing.to_str().unwrap());
    let run = support::webcanon(&["render", policy, "--check", existing]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let lines = run.lines();
    assert!(lines.contains(&"* /x?session=: policy disallows, existing allows (line 2: Allow: /)"), "{}", run.stdout);
    assert!(
        lines.contains(&"* /x?session=/sub (probe): policy disallows, existing allows (line 2: Allow: /)"),
        "{}",
        run.stdout
    );
    assert!(
        lines.iter().filter(|l| !l.starts_with("* /x?session=:")).all(|l| l.contains(" (probe): ")),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("note: a path marked (probe) is named by neither file"), "{}", run.stderr);

    let run = support::webcanon(&["render", policy, "--check", existing, "--json"]);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let differences = report["differences"].as_array().unwrap();
    let probe = |path: &str| differences.iter().find(|d| d["path"] == path).map(|d| d["probe"].clone());
    assert_eq!(probe("/x?session="), Some(serde_json::Value::Bool(false)));
    assert_eq!(probe("/x?session=/sub"), Some(serde_json::Value::Bool(true)));
    fs::remove_dir_all(dir).unwrap();
}
