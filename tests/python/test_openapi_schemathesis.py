"""`webcanon serve` against its own OpenAPI document, with schemathesis.

The service and schemathesis run together in a new network namespace that
has only a loopback interface: whatever URL schemathesis makes up (public
hosts, addresses), nothing can leave the machine, and every lookup or
connection fails at once, which keeps the run short. That is also what
keeps the map and crawl jobs it starts on loopback: the service's SSRF
guard refuses loopback start URLs (403), and any other host fails its
lookup, so a job ends at its first request.
"""

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

# schemathesis cannot know that `url` must be an absolute http(s) URL with a
# host (the WHATWG parser decides): such a schema-valid body is answered 422.
# 403 is the SSRF guard or robots.txt refusing, an answer and not an error.
# A body over the API's 1 MiB limit is refused before it is read, so a
# schema-violating body that is also too large is answered 413 (documented
# for every POST), which is a rejection like 422.
# An audit of an origin that does not answer is an error, 502 `fetch`
# (reason `unreachable`), not a score: in a namespace without a network no
# origin answers, so every schema-valid audit request ends there. That 502
# is the documented answer (status_code_conformance still checks that it
# is in the document), not a server fault.
CONFIG = """
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "403", "422"]

[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]

[[operations]]
include-name = "POST /v1/audit"
checks.not_a_server_error.expected-statuses = ["1xx", "2xx", "3xx", "4xx", "502"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "403", "422", "502"]

# A start is refused with 429 once the service keeps as many jobs as it
# may: the run starts more than that.
[[operations]]
include-name = "POST /v1/map"
checks.positive_data_acceptance.expected-statuses = ["2xx", "403", "422", "429"]

[[operations]]
include-name = "POST /v1/crawl"
checks.positive_data_acceptance.expected-statuses = ["2xx", "403", "422", "429"]
"""

SCRIPT = r"""
set -u
ip link set lo up
"$WEBCANON" serve --listen 127.0.0.1:0 --no-cache --timeout 2 --request-timeout 20 2> "$LOG" &
server=$!
for _ in $(seq 100); do
  grep -q "listening on" "$LOG" && break
  sleep 0.1
done
addr=$(sed -n 's/^listening on http:\/\///p' "$LOG")
"$ST" --config-file "$CONFIG" --no-color run "http://$addr/openapi.json" --checks all \
  --max-examples 100 --request-timeout 25
status=$?
kill -TERM "$server"
wait "$server"
echo "server exit status: $?"
exit $status
"""


def namespace_command() -> list[str]:
    """`unshare` into a new network namespace (as root, else with a user namespace)."""
    unshare = shutil.which("unshare")
    if unshare is None or shutil.which("ip") is None:
        pytest.fail("unshare (util-linux) and ip (iproute2) are needed to run the service without a network")
    for command in ([unshare, "--net"], [unshare, "--net", "--map-root-user"]):
        if subprocess.run([*command, "true"], capture_output=True).returncode == 0:
            return command
    pytest.fail("cannot create a network namespace (unshare --net)")


def test_schemathesis_finds_no_failures(webcanon_bin, tmp_path):
    st = pathlib.Path(sys.executable).parent / "st"
    assert st.is_file(), f"schemathesis not installed next to {sys.executable}"
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    log = tmp_path / "serve.log"
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "WEBCANON": str(webcanon_bin.resolve()),
        "ST": str(st),
        "CONFIG": str(config),
        "LOG": str(log),
        "HOME": str(tmp_path),
    }
    run = subprocess.run(
        [*namespace_command(), "bash", "-c", SCRIPT],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )
    output = run.stdout + run.stderr
    assert "server exit status: 0" in output, output + log.read_text()
    assert run.returncode == 0, output
    summary = re.search(r"(\d+) generated", output)
    assert summary and int(summary.group(1)) > 300, output
    # Every operation but the document itself, which schemathesis leaves out.
    assert "Tested: 11" in output and "failures" not in output.split("SUMMARY")[-1], output
