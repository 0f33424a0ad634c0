"""The CLI's JSON output, read by a Python consumer."""

import json
import subprocess


def test_robots_check_json_names_the_deciding_rule(webcanon_bin, tmp_path):
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: GPTBot\nDisallow: /private/\nAllow: /private/open\n")
    out = subprocess.run(
        [webcanon_bin, "robots", "check", "--robots", robots, "--agent", "GPTBot", "--json",
         "https://example.com/private/x", "https://example.com/private/open"],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["allowed"] for row in rows] == [False, True]
