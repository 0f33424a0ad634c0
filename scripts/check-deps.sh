#!/usr/bin/env bash
# Dependency policy (deny.toml): every licence in the build allowed, no
# OpenSSL or system TLS, no wildcard versions. Offline checks only.
# cargo-deny is installed at a pinned version into target/tools.
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.20.2
tools="$PWD/target/tools"
deny="$tools/bin/cargo-deny"
if ! "$deny" --version 2>/dev/null | grep -qx "cargo-deny $version"; then
  echo "installing cargo-deny $version into $tools" >&2
  # Its own target directory, removed afterwards: only the binary is kept.
  CARGO_TARGET_DIR="$tools/build" cargo install --quiet --locked "cargo-deny@$version" --root "$tools"
  rm -rf "$tools/build"
fi
"$deny" --all-features check licenses bans

# The declared rust-version (MSRV) holds for the whole build: no dependency
# declares a newer one. (Only one toolchain can be installed here, so the
# MSRV is not built with; clippy's incompatible_msrv lint, on by default in
# `cargo clippy -D warnings`, rejects standard-library items newer than it.)
cargo metadata --format-version 1 --locked --all-features | python3 -c '
import json, sys
meta = json.load(sys.stdin)
def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))
members = set(meta["workspace_members"])
packages = {p["id"]: p for p in meta["packages"]}
declared = {packages[m]["rust_version"] for m in members}
if len(declared) != 1:
    sys.exit(f"error: the workspace crates declare different rust-versions: {sorted(map(str, declared))}")
msrv = declared.pop()
used = {node["id"] for node in meta["resolve"]["nodes"]}
newer = [
    "%s %s needs Rust %s" % (p["name"], p["version"], p["rust_version"])
    for p in packages.values()
    if p["id"] in used and p.get("rust_version") and version(p["rust_version"]) > version(msrv)
]
if newer:
    sys.exit(f"error: the build declares rust-version {msrv}, but:\n  " + "\n  ".join(newer))
print(f"rust-version {msrv}: no dependency needs a newer Rust", file=sys.stderr)
'
