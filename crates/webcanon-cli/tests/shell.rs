//! What a new user sets up once: shell completions, the manual page, the
//! option variables shown in `--help`, `--color` and `NO_COLOR`, `--quiet`.

mod support;

use std::path::PathBuf;

use support::{temp_dir, webcanon, webcanon_env};

fn example_site() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/site").to_str().unwrap().to_string()
}

#[test]
fn completions_for_each_shell_name_the_subcommands_and_options() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = webcanon(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for word in ["fetch", "audit", "sitemap", "completions", "proxy", "agent", "color"] {
            assert!(run.stdout.contains(word), "{shell}: no `{word}` in the script");
        }
        assert!(run.stderr.is_empty(), "{shell}: {}", run.stderr);
    }
    let run = webcanon(&["completions", "tcsh"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("possible values: bash"), "{}", run.stderr);
}

#[test]
fn the_manual_page_is_roff_naming_every_command() {
    let run = webcanon(&["man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".TH webcanon 1"), "{}", &run.stdout[..200.min(run.stdout.len())]);
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS", ".SH VERSION"] {
        assert!(run.stdout.contains(section), "no {section}");
    }
    for command in ["webcanon\\-fetch(1)", "webcanon\\-audit(1)", "webcanon\\-completions(1)"] {
        assert!(run.stdout.contains(command), "no {command}");
    }
    let dir = temp_dir("man");
    let run = webcanon(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for page in ["webcanon.1", "webcanon-fetch.1", "webcanon-robots-check.1", "webcanon-man.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.contains(".TH webcanon"), "{page}");
    }
    let fetch = std::fs::read_to_string(dir.join("webcanon-fetch.1")).unwrap();
    assert!(fetch.contains("\\-\\-proxy") && fetch.contains("\\-\\-color"), "the page lists the options");
    let top = std::fs::read_to_string(dir.join("webcanon.1")).unwrap();
    assert!(top.contains("WEBCANON_AGENT") && top.contains("NO_COLOR"), "webcanon(1) lists the variables");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn help_names_each_option_variable_and_never_shows_a_secret() {
    let run = webcanon(&["fetch", "--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for name in ["WEBCANON_AGENT", "WEBCANON_USER_AGENT", "WEBCANON_CACHE_DIR", "WEBCANON_CACHE", "WEBCANON_PROXY"] {
        assert!(run.stdout.contains(&format!("[env: {name}")), "no {name} in --help");
    }
    let secret =
        [("WEBCANON_PROXY", "http://user:s3cret@proxy.test:3128"), ("WEBCANON_CACHE", "redis://:s3cret@r:6379")];
    let run = webcanon_env(&["fetch", "--help"], &secret);
    assert!(!run.stdout.contains("s3cret"), "{}", run.stdout);
    let run = webcanon_env(&["fetch", "--help"], &[("WEBCANON_AGENT", "GPTBot")]);
    assert!(run.stdout.contains("[env: WEBCANON_AGENT=GPTBot]"), "the value in use is shown");
}

#[test]
fn webcanon_agent_sets_the_agent_and_the_flag_wins() {
    let site = example_site();
    let agent = |run: &support::Run| -> String {
        let json: serde_json::Value =
            serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr));
        json["agent"].as_str().unwrap().to_string()
    };
    assert_eq!(agent(&webcanon(&["audit", &site, "--json"])), "webcanon");
    let from_env = webcanon_env(&["audit", &site, "--json"], &[("WEBCANON_AGENT", "GPTBot")]);
    assert_eq!(agent(&from_env), "GPTBot");
    let flag = webcanon_env(&["audit", &site, "--json", "--agent", "ClaudeBot"], &[("WEBCANON_AGENT", "GPTBot")]);
    assert_eq!(agent(&flag), "ClaudeBot");
    let bad = webcanon_env(&["audit", "https://example.com", "--json"], &[("WEBCANON_AGENT", "Bad Bot")]);
    assert_eq!(bad.code, 2, "a bad agent from the variable is a usage error: {}", bad.stderr);
}

#[test]
fn no_cache_wins_over_a_cache_directory_from_the_environment() {
    let dir = temp_dir("no-cache");
    let vars = [("WEBCANON_CACHE_DIR", dir.to_str().unwrap())];
    let run = webcanon_env(&["fetch", "not a url", "--no-cache"], &vars);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!run.stderr.contains("cannot be used with"), "no conflict with the variable: {}", run.stderr);
    assert!(run.stderr.contains("not a url"), "{}", run.stderr);
    let vars = [("WEBCANON_CACHE", "redis://127.0.0.1:1")];
    let run = webcanon_env(&["fetch", "not a url", "--no-cache"], &vars);
    assert!(!run.stderr.contains("cannot be used with"), "no conflict with the variable: {}", run.stderr);
    // On the command line, both at once are a usage error.
    let run = webcanon(&["fetch", "not a url", "--no-cache", "--cache-dir", dir.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--no-cache cannot be used with --cache-dir"), "{}", run.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A robots.txt with an error and a warning for lint to report.
fn lint_file(name: &str) -> (PathBuf, String) {
    let dir = temp_dir(name);
    let path = dir.join("robots.txt");
    std::fs::write(&path, "Disallow: /x\nUser-agent: *\n").unwrap();
    let path_text = path.to_str().unwrap().to_string();
    (dir, path_text)
}

#[test]
fn color_follows_the_flag_then_no_color_then_the_terminal() {
    let (dir, robots) = lint_file("color");
    let escape = '\x1b';
    // Output to a pipe: colour only when --color always says so, even with
    // NO_COLOR set (the flag wins); never by default.
    let plain = webcanon_env(&["robots", "lint", &robots], &[("NO_COLOR", "")]);
    assert!(plain.stdout.contains("error[R001]") && !plain.stdout.contains(escape), "{}", plain.stdout);
    let always = webcanon(&["robots", "lint", &robots, "--color", "always"]);
    assert!(always.stdout.contains("\x1b[1;31merror[R001]"), "{}", always.stdout);
    let before = webcanon(&["--color=always", "robots", "lint", &robots]);
    assert_eq!(before.stdout, always.stdout, "the flag goes before or after the subcommand");
    let never = webcanon(&["robots", "lint", &robots, "--color", "never"]);
    assert!(!never.stdout.contains(escape));
    let audit = webcanon(&["audit", &example_site(), "--color", "always"]);
    assert!(audit.stdout.contains("\x1b[1mwebcanon audit"), "the audit report too: {}", audit.stdout);
    let audit = webcanon(&["audit", &example_site()]);
    assert!(!audit.stdout.contains(escape));
    // clap's help follows the same choice.
    let help = webcanon(&["fetch", "--help", "--color", "always"]);
    assert!(help.stdout.contains(escape), "help in colour");
    let help = webcanon_env(&["fetch", "--help"], &[("NO_COLOR", "")]);
    assert!(!help.stdout.contains(escape), "help to a pipe is plain");
    let bad = webcanon(&["robots", "lint", &robots, "--color", "sometimes"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("possible values: auto, always, never"), "{}", bad.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn quiet_leaves_out_notes_but_not_the_data() {
    let site = example_site();
    let dir = temp_dir("quiet");
    let html = dir.join("report.html");
    let html = html.to_str().unwrap();
    let loud = webcanon(&["audit", &site, "--html", html]);
    assert!(loud.stderr.contains("wrote "), "{}", loud.stderr);
    let quiet = webcanon(&["audit", &site, "--html", html, "--quiet"]);
    assert_eq!(quiet.stderr, "", "nothing on stderr with --quiet");
    assert_eq!(quiet.stdout, loud.stdout);
    assert_eq!((quiet.code, loud.code), (0, 0));
    let both = webcanon(&["audit", &site, "-q", "-v"]);
    assert_eq!(both.code, 2, "--quiet and --verbose exclude each other");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every option variable, in the order the top-level `--help` lists them.
const VARIABLES: &[&str] = &[
    "WEBCANON_AGENT",
    "WEBCANON_USER_AGENT",
    "WEBCANON_CACHE_DIR",
    "WEBCANON_CACHE",
    "WEBCANON_PROXY",
    "WEBCANON_SIGN_KEY",
    "WEBCANON_SIGNATURE_AGENT",
    "WEBCANON_CHROMIUM",
];

/// Issue 31: the top-level `--help` listed five of the eight variables.
/// The list is made from the options' own definitions: every variable a
/// command's help names (`[env: …]`) is in it, once.
#[test]
fn the_top_level_help_lists_every_variable_the_commands_read() {
    let top = webcanon(&["--help"]);
    assert_eq!(top.code, 0, "{}", top.stderr);
    let (_, environment) = top.stdout.split_once("Environment (a flag given on the command line wins):").unwrap();
    let listed: Vec<&str> = environment
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("WEBCANON_"))
        .collect();
    assert_eq!(listed, VARIABLES, "{environment}");
    assert!(environment.contains("WEBCANON_CHROMIUM         --chromium: "), "{environment}");
    for command in [&["fetch"][..], &["robots", "check"], &["robots", "eval"], &["serve"], &["batch"]] {
        let help = webcanon(&[command, &["--help"][..]].concat());
        for line in help.stdout.lines().filter(|l| l.contains("[env: ")) {
            let name = line.split("[env: ").nth(1).unwrap().split(['=', ']']).next().unwrap();
            assert!(listed.contains(&name), "{command:?} reads {name}, which the top-level help does not list");
        }
    }
}

/// Issue 31: `robots check` required `--agent` although `--help` says
/// `WEBCANON_AGENT` stands in for it; so did `robots eval`.
#[test]
fn webcanon_agent_stands_in_for_the_agent_of_robots_check_and_eval() {
    let dir = temp_dir("robots-agent");
    let robots = dir.join("robots.txt");
    std::fs::write(&robots, "User-agent: GPTBot\nDisallow: /\n").unwrap();
    let robots = robots.to_str().unwrap();
    let gpt = [("WEBCANON_AGENT", "GPTBot")];
    let run = webcanon_env(&["robots", "check", "--robots", robots, "/a"], &gpt);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("agent GPTBot: rules from the group at line 1"), "{}", run.stdout);
    let run = webcanon_env(&["robots", "check", "--robots", robots, "--agent", "Other", "/a"], &gpt);
    assert!(run.stdout.starts_with("agent Other: no group applies"), "the flag wins: {}", run.stdout);

    let urls = dir.join("urls.txt");
    std::fs::write(&urls, "/a\n").unwrap();
    let run = webcanon_env(&["robots", "eval", "--robots", robots, urls.to_str().unwrap()], &gpt);
    assert_eq!((run.code, run.stdout.as_str()), (0, "disallow\t/a\n"), "{}", run.stderr);
    // `--jsonl` lines name their own agent: the variable is no conflict,
    // the flag is.
    let cases = dir.join("cases.jsonl");
    std::fs::write(&cases, "{\"robots\": \"User-agent: *\\nDisallow: /\\n\", \"agent\": \"X\", \"url\": \"/a\"}\n")
        .unwrap();
    let run = webcanon_env(&["robots", "eval", "--jsonl", cases.to_str().unwrap()], &gpt);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = webcanon(&["robots", "eval", "--jsonl", "--agent", "GPTBot", cases.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--jsonl cannot be used with --agent"), "{}", run.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Issue 31: `fetch --help` listed `--color` between `--sign-key` and
/// `--signature-agent`. Every command's help lists the client options and
/// the global ones under headings of their own, the global ones last.
#[test]
fn every_command_groups_its_global_options_under_their_own_heading() {
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut checked = 0;
    while let Some(command) = pending.pop() {
        let args: Vec<&str> = command.iter().map(String::as_str).chain(["--help"]).collect();
        let help = webcanon(&args).stdout;
        // Subcommands, one a line under `Commands:` up to the blank line.
        if let Some((_, list)) = help.split_once("Commands:\n") {
            let names = list
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .filter(|l| l.starts_with("  ") && !l.starts_with("   "));
            for name in names.filter_map(|l| l.split_whitespace().next()).filter(|n| *n != "help") {
                pending.push(command.iter().cloned().chain([name.to_string()]).collect());
            }
        }
        let (own, global) = help.split_once("Global options:").unwrap_or_else(|| panic!("{command:?}: {help}"));
        for flag in ["--color <WHEN>", "--quiet", "--verbose"] {
            assert!(global.contains(flag) && !own.contains(flag), "{command:?}: {flag} is not under its heading");
        }
        if own.contains("--sign-key") {
            let (_, client) = own.split_once("Client options:").unwrap_or_else(|| panic!("{command:?}: {own}"));
            assert!(client.contains("--sign-key") && client.contains("--agent"), "{command:?}: {client}");
        }
        checked += 1;
    }
    assert!(checked > 20, "every command and subcommand: {checked}");
}
