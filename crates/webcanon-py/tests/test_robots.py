"""Robots, Decision, Rule and lint: the core's parser and matcher from Python."""

from __future__ import annotations

import json
import subprocess

import pytest

import webcanon

BODY = """User-agent: GPTBot
Disallow: /private/
Allow: /private/open

User-agent: *
Disallow: /*.pdf$
Crawl-delay: 4
Sitemap: https://example.com/sitemap.xml
"""

# (agent, url, verdict, matched rule line, matched pattern)
CASES = [
    ("GPTBot", "https://example.com/private/x", "disallowed_explicit", 2, "/private/"),
    ("GPTBot", "https://example.com/private/open/doc", "allowed_explicit", 3, "/private/open"),
    ("GPTBot", "https://example.com/file.pdf", "allowed_implicit", None, None),
    ("gptbot", "/private/x", "disallowed_explicit", 2, "/private/"),
    ("OtherBot", "https://example.com/file.pdf", "disallowed_explicit", 6, "/*.pdf$"),
    ("OtherBot", "https://example.com/file.pdf?x=1", "allowed_implicit", None, None),
    ("OtherBot", "https://example.com/robots.txt", "allowed_implicit", None, None),
    ("OtherBot", "https://example.com/private/x", "allowed_implicit", None, None),
]


@pytest.mark.parametrize("agent,url,verdict,line,pattern", CASES)
def test_decide_returns_the_verdict_and_the_rule(agent, url, verdict, line, pattern):
    decision = webcanon.Robots(BODY).decide(agent, url)
    assert decision.verdict == verdict
    assert decision.allowed == (verdict != "disallowed_explicit")
    assert bool(decision) == decision.allowed
    assert decision.recommendation == ("not_recommended" if verdict == "disallowed_explicit" else "recommended")
    if line is None:
        assert decision.rule is None
    else:
        assert (decision.rule.line, decision.rule.pattern) == (line, pattern)
        assert decision.rule.directive == ("allow" if verdict == "allowed_explicit" else "disallow")


def test_bytes_and_str_bodies_are_the_same_file():
    from_bytes = webcanon.Robots(BODY.encode())
    from_str = webcanon.Robots(BODY)
    for agent, url, *_ in CASES:
        assert from_bytes.decide(agent, url) == from_str.decide(agent, url)


def test_file_level_facts():
    robots = webcanon.Robots(BODY)
    assert robots.sitemaps == ["https://example.com/sitemap.xml"]
    assert robots.agents == ["GPTBot", "*"]
    assert robots.crawl_delay("OtherBot") == 4.0
    assert robots.crawl_delay("GPTBot") is None
    assert robots.has_group_for("gptbot") and not robots.has_group_for("OtherBot")
    assert robots.is_robots and not robots.truncated
    assert robots.size == len(BODY.encode())
    assert robots.is_allowed("GPTBot", "/private/open") and not robots.is_allowed("GPTBot", "/private/")


def test_an_html_page_is_not_a_robots_txt():
    robots = webcanon.Robots(b"<!DOCTYPE html><html><body>Welcome</body></html>")
    assert not robots.is_robots
    assert any(d.severity == "error" for d in robots.lint())


def test_a_body_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match="str or bytes, not int"):
        webcanon.Robots(42)  # type: ignore[arg-type]


def test_lint_reports_stable_codes_with_lines():
    findings = webcanon.lint("User-agent: *\nDisalow: /x\nAllow /y\n")
    assert findings, "typos are reported"
    for finding in findings:
        assert finding.code.startswith("R") and len(finding.code) == 4
        assert finding.severity in {"info", "warning", "error"}
        assert finding.message
    assert {f.line for f in findings} >= {2}
    assert findings == webcanon.Robots("User-agent: *\nDisalow: /x\nAllow /y\n").lint()


def test_decisions_agree_with_the_cli_over_the_corpus(webcanon_bin, corpus):
    """The wheel and `webcanon robots check` decide alike for real files."""
    urls = ["https://example.com/", "https://example.com/search?q=a", "https://example.com/admin/",
            "https://example.com/wp-admin/admin-ajax.php", "https://example.com/a/b.pdf", "https://example.com/private"]
    files = sorted((corpus / "robots").glob("*.txt"))[:60]
    assert len(files) == 60
    compared = 0
    for path in files:
        robots = webcanon.Robots(path.read_bytes())
        for agent in ("GPTBot", "Googlebot"):
            out = subprocess.run(
                [webcanon_bin, "robots", "check", "--robots", path, "--agent", agent, "--json", *urls],
                capture_output=True, text=True,
            )
            assert out.returncode in (0, 3), out.stderr
            for row in map(json.loads, out.stdout.splitlines()):
                decision = robots.decide(agent, row["url"])
                assert decision.verdict == row["verdict"], (path.name, agent, row["url"])
                expected_rule = row["rule"]
                if expected_rule is None:
                    assert decision.rule is None
                else:
                    assert (decision.rule.line, decision.rule.pattern) == (expected_rule["line"], expected_rule["pattern"])
                compared += 1
    assert compared == 60 * 2 * len(urls)
