#!/usr/bin/env bash
# Every crate that is published packages for crates.io: its metadata is
# complete, its .crate holds the README and both licence files, and the
# sources in the .crate compile on their own, against each other as if
# they came from crates.io.
#
# `cargo package --workspace` resolves the unpublished workspace crates
# against each other. It runs with --no-verify: verifying builds each
# package with codegen in a target directory of its own, so every
# dependency is compiled again (`cargo package -p webcanon-core -p
# webcanon-client` alone took 3 min 19 s on a 2-core machine; the batch
# crate adds arrow and parquet, the server axum and utoipa). Instead,
# the .crate files are unpacked into a scratch workspace that patches
# crates.io with them, and that workspace is type-checked (`cargo check`,
# no codegen) in the CI's own target directory, where `cargo doc` has
# already checked the dependencies (measured: 3 min 14 s with nothing
# checked before; a run after that, 9 s of CPU, the rest of its 2 min 44 s
# waiting for crates.io's index and for other builds). This catches what
# verifying would (a file left out of a package, a path that leaves the
# crate, a dependency declared only in the workspace), short of codegen.
set -euo pipefail
cd "$(dirname "$0")/.."

# Packages with `publish = false` (the wheel's crate, test support) are
# left out; the rest, with the fields crates.io shows.
published=$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
missing = []
for p in json.load(sys.stdin)["packages"]:
    if p["publish"] == []:
        continue
    for field in ("description", "license", "repository", "readme", "keywords", "categories"):
        if not p.get(field):
            missing.append(p["name"] + ": no " + field)
    print(p["name"], p["version"], p["manifest_path"].rsplit("/", 1)[0])
if missing:
    sys.exit("error: metadata crates.io shows is missing:\n  " + "\n  ".join(missing))
')

# Each crate carries the root licence files, unchanged (copies: symlinks
# do not survive every checkout).
while read -r name version dir; do
  for license in LICENSE-MIT LICENSE-APACHE; do
    if ! cmp -s "$license" "$dir/$license"; then
      echo "error: $dir/$license is missing or differs from ./$license (cp $license $dir/)" >&2
      exit 1
    fi
  done
done <<<"$published"

target="${CARGO_TARGET_DIR:-$PWD/target}"
export CARGO_TARGET_DIR="$target"
excluded=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json, sys; print(" ".join("--exclude " + p["name"] for p in json.load(sys.stdin)["packages"] if p["publish"] == []))')
rm -rf "$target/package"
# shellcheck disable=SC2086 # one word per flag
# --allow-dirty: what is checked is the tree as it is, committed or not.
cargo package --workspace $excluded --locked --no-verify --allow-dirty --quiet

# What each .crate holds.
scratch="$target/package-check"
rm -rf "$scratch"
mkdir -p "$scratch"
members=()
patches=()
while read -r name version dir; do
  crate="$target/package/$name-$version.crate"
  listing=$(tar -tzf "$crate")
  for file in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE 'src/.*\.rs'; do
    if ! grep -qx "$name-$version/$file" <<<"$listing"; then
      echo "error: $crate has no $file" >&2
      exit 1
    fi
  done
  tar -xzf "$crate" -C "$scratch"
  members+=("\"$name-$version\"")
  patches+=("$name = { path = \"$name-$version\" }")
done <<<"$published"

# The packages as crates.io would serve them, type-checked together.
{
  echo "[workspace]"
  echo "resolver = \"3\""
  echo "members = [$(IFS=,; echo "${members[*]}")]"
  echo "[patch.crates-io]"
  printf '%s\n' "${patches[@]}"
  # The same profiles as the repository's builds.
  sed -n '/^\[profile/,$p' Cargo.toml
} >"$scratch/Cargo.toml"
# The repository's lock file: the same dependency versions as every other
# build, so the target directory's artefacts are reused.
cp Cargo.lock "$scratch/Cargo.lock"
# A .crate dates every file 2006-07-24: in a target directory that checked
# an earlier package of the same version, cargo would take these sources
# as unchanged and check against that package's stale metadata.
find "$scratch" -type f -exec touch {} +
(cd "$scratch" && cargo check --workspace --quiet)
echo "packages: $(wc -l <<<"$published") crates packaged and checked from their .crate files" >&2
rm -rf "$scratch"
