#!/usr/bin/env bash
# The README's install command works and the installed binary runs: its
# version, a completion script and the manual page. `--debug` and the
# CI's own target directory let cargo reuse the test build instead of
# compiling everything again in release mode; the binary goes into
# target/ci-install, never into the user's ~/.cargo/bin.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
root="$CARGO_TARGET_DIR/ci-install"
rm -rf "$root"
cargo install --quiet --locked --debug --path crates/webcanon-cli --root "$root"
bin="$root/bin/webcanon"

version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "webcanon"))')
fail() {
  echo "error: the installed webcanon: $*" >&2
  exit 1
}
[ "$("$bin" --version)" = "webcanon $version" ] || fail "--version does not say webcanon $version"
for shell in bash zsh fish powershell; do
  "$bin" completions "$shell" | grep -q "fetch" || fail "completions $shell name no subcommand"
done
"$bin" man | grep -q '^\.TH webcanon 1' || fail "man prints no roff page"
"$bin" audit examples/site --quiet >/dev/null || fail "audit of examples/site failed"
echo "install: webcanon $version installed with cargo install and runs" >&2
rm -rf "$root"
