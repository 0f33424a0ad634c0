#!/usr/bin/env bash
# The whole test suite. Installs and starts whatever the tests need, so that
# a fresh machine needs nothing but this script.
set -euo pipefail
cd "$(dirname "$0")/.."

# The corpus of real files lives beside the repository.
if [ ! -d ../shared/corpus/robots ]; then
  echo "error: ../shared/corpus is missing; the corpus tests read real files from it" >&2
  exit 2
fi

# Debian packages the tests need, installed when missing.
debian_install() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then
      as_root=(sudo -n)
    else
      echo "error: ${missing[*]} missing and installing needs root (or sudo)" >&2
      exit 2
    fi
  fi
  echo "installing ${missing[*]} (Debian packages)" >&2
  local apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq -y -o=Dpkg::Use-Pty=0)
  # No service a package brings is started while installing (policy-rc.d
  # refuses it), unless the machine already has a policy of its own.
  local policy=/usr/sbin/policy-rc.d own_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
    "${as_root[@]}" chmod 755 "$policy"
    own_policy=1
  fi
  # The package lists are read only when installing without them fails.
  local status=0
  if ! "${apt[@]}" install --no-install-recommends "${missing[@]}" >/dev/null; then
    "${apt[@]}" update
    "${apt[@]}" install --no-install-recommends "${missing[@]}" >/dev/null || status=$?
  fi
  [ "$own_policy" -eq 0 ] || "${as_root[@]}" rm -f "$policy"
  [ "$status" -eq 0 ] || exit "$status"
  # redis-server's package enables its service at boot; the tests start
  # their own redis-server, so the machine is left without one running.
  if [[ " ${missing[*]} " == *" redis-server "* ]]; then
    disable_service redis-server "${as_root[@]}"
  fi
}

# Stops SERVICE and keeps it from starting at boot (systemd or SysV init).
disable_service() {
  local service="$1"
  shift
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    "$@" systemctl disable --now --quiet "$service.service"
  else
    # Without systemd running: remove the links that would start it at boot.
    if command -v deb-systemd-helper >/dev/null && ! "$@" deb-systemd-helper disable "$service.service"; then
      echo "warning: could not disable $service at boot (deb-systemd-helper)" >&2
    fi
    if command -v update-rc.d >/dev/null && ! "$@" update-rc.d "$service" disable >/dev/null 2>&1; then
      echo "warning: could not disable $service at boot (update-rc.d)" >&2
    fi
    # Stopped in case it runs (a machine whose own policy let it start).
    "$@" service "$service" stop >/dev/null 2>&1 || true
  fi
  echo "installed $service without its service: stopped, and disabled at boot" >&2
}

# Headless Chromium opens the HTML audit report (crates/webcanon-cli/tests/html_report.rs)
# and renders pages (`fetch --render`: crates/webcanon-client/tests/render.rs,
# crates/webcanon-cli/tests/fetch_render.rs, crates/webcanon-py/tests/test_render.py);
# redis-server backs the fleet store tests; python3-dev lets the wheel's crate
# link in `cargo test`. Tests that need them are required here, so they can
# never be skipped silently.
debian_install chromium fonts-liberation redis-server wrk iproute2 util-linux python3-dev python3-venv
CHROMIUM=/usr/bin/chromium
export WEBCANON_CHROMIUM="$CHROMIUM"
export WEBCANON_REQUIRE_CHROMIUM=1
export WEBCANON_REDIS_SERVER=/usr/bin/redis-server
export WEBCANON_REQUIRE_REDIS=1

# One Python virtual environment for the Python-side tests (MCP SDK client,
# schemathesis, the wheel and its Ray example), rebuilt when the pinned
# requirements change.
VENV="$PWD/target/python-venv"
if [ ! -x "$VENV/bin/python" ] || ! cmp -s scripts/requirements-test.txt "$VENV/.requirements"; then
  echo "preparing the Python test environment ($VENV)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r scripts/requirements-test.txt
  cp scripts/requirements-test.txt "$VENV/.requirements"
fi
export WEBCANON_PYTHON="$VENV/bin/python"
export WEBCANON_REQUIRE_PYTHON=1

# insta notes every snapshot a test reads; after a whole run, a snapshot
# file no test read is an orphan (its test was renamed or removed).
REFERENCES="$PWD/target/insta-references.txt"
rm -f "$REFERENCES"
export INSTA_SNAPSHOT_REFERENCES_FILE="$REFERENCES"
cargo test --workspace --locked "$@"
unset INSTA_SNAPSHOT_REFERENCES_FILE
if [ $# -eq 0 ]; then
  orphans=$(python3 - "$REFERENCES" <<'PY'
import os, pathlib, sys
read = {os.path.realpath(line) for line in pathlib.Path(sys.argv[1]).read_text().split("\n") if line}
on_disk = {os.path.realpath(p) for p in pathlib.Path("crates").glob("*/tests/**/snapshots/*.snap")}
print("\n".join(sorted(on_disk - read)))
PY
)
  if [ -n "$orphans" ]; then
    echo "error: snapshot files that no test reads (remove them, or restore their tests):" >&2
    echo "$orphans" >&2
    exit 1
  fi
fi

# The Python wheel, built by maturin in the same (dev) profile and installed
# into the test environment.
rm -rf target/wheels
(cd crates/webcanon-py && VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" build --quiet --locked --profile dev --out ../../target/wheels)
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps target/wheels/webcanon-*.whl

# Python-side tests: the binary (tests/python, the Ray example included) and
# the wheel (crates/webcanon-py/tests).
export WEBCANON_BIN="$PWD/target/debug/webcanon"
export RAY_DISABLE_USAGE_STATS=1
"$WEBCANON_PYTHON" -m pytest -q -p no:cacheprovider tests/python crates/webcanon-py/tests
