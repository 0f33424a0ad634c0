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

# Headless Chromium opens the HTML audit report (crates/webcanon-cli/tests/html_report.rs).
# Debian's package; the test is required here, so it can never be skipped silently.
CHROMIUM=/usr/bin/chromium
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null; then
    as_root=(sudo -n)
  else
    echo "error: $CHROMIUM is missing and installing it needs root (or sudo)" >&2
    exit 2
  fi
  apt_get() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq -y -o=Dpkg::Use-Pty=0 "$@"; }
  echo "installing chromium (Debian package) for the HTML report test" >&2
  # The package lists are read only when apt does not know the package yet,
  # or when they are too old to download it.
  candidate=$(apt-cache policy chromium 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
    apt_get update
  fi
  packages=(--no-install-recommends chromium fonts-liberation)
  if ! apt_get install "${packages[@]}" >/dev/null; then
    apt_get update
    apt_get install "${packages[@]}" >/dev/null
  fi
fi
export WEBCANON_CHROMIUM="$CHROMIUM"
export WEBCANON_REQUIRE_CHROMIUM=1

cargo test --workspace --locked "$@"
