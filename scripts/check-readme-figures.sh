#!/usr/bin/env bash
# The figures README.md states about the build are the ones measured here,
# each within its tolerance: the debug binary `cargo install --debug`
# makes (the fast install path), the disk the test suite's build and
# Python environment take in target/, and the crate sources in CARGO_HOME.
# Run by .ci/run after the tests and the install, so that everything the
# README's steps make is there. A figure out of its tolerance fails with
# the README line to update and the measured value.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
target="$CARGO_TARGET_DIR"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"

# The installed debug binary: built already by the tests and the install
# check, so this only copies it.
root="$target/readme-figures"
rm -rf "$root"
cargo install --quiet --locked --debug --path crates/webcanon-cli --root "$root"
binary=$(stat -c %s "$root/bin/webcanon")
rm -rf "$root"

# Disk in use (blocks, as `du` counts them), of what exists.
disk() {
  local total=0 path
  for path in "$@"; do
    [ -e "$path" ] && total=$((total + $(du -s --block-size=1 "$path" | cut -f1)))
  done
  echo "$total"
}
suite=$(disk "$target/debug" "$target/python-venv" "$target/wheels")
sources=$(disk "$cargo_home/registry" "$cargo_home/git")

python3 - "$binary" "$suite" "$sources" <<'PY'
import re, sys

binary, suite, sources = (int(v) for v in sys.argv[1:])
lines = open("README.md", encoding="utf-8").read().split("\n")
# (what, pattern with the figure as group 1, unit in bytes, measured, tolerance)
figures = [
    ("the installed debug binary", r"debug binary of about (\d+(?:\.\d+)?) MiB", 2**20, binary, 0.15),
    ("the test suite's build and Python environment in target/",
     r"test suite leaves about (\d+(?:\.\d+)?) GB in `target/`", 1e9, suite, 0.25),
    ("the crate sources", r"about (\d+(?:\.\d+)?) GB of crate sources", 1e9, sources, 0.40),
]
failed = False
for what, pattern, unit, measured, tolerance in figures:
    found = [(i + 1, m) for i, line in enumerate(lines) for m in [re.search(pattern, line)] if m]
    if len(found) != 1:
        print(f"error: README.md should state {what} once (/{pattern}/), found {len(found)}", file=sys.stderr)
        failed = True
        continue
    line, match = found[0]
    stated = float(match.group(1)) * unit
    value = measured / unit
    if abs(measured - stated) > tolerance * stated:
        digits = 0 if unit == 2**20 else 1
        print(
            f"error: README.md:{line} says {match.group(0)!r}, but {what} measures {value:.{digits}f} "
            f"({measured:,} bytes), off by more than {tolerance:.0%}: update that line",
            file=sys.stderr,
        )
        failed = True
    else:
        print(f"readme figures: {what}: {value:.2f} (README.md:{line}: {match.group(1)}, within {tolerance:.0%})",
              file=sys.stderr)
sys.exit(1 if failed else 0)
PY
