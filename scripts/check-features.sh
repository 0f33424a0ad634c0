#!/usr/bin/env bash
# Each library crate compiles with its features off, and with each feature
# alone: a feature that only builds beside another is a bug users meet.
# The list comes from the manifests, so a new feature is checked at once.
set -euo pipefail
cd "$(dirname "$0")/.."

# A target directory of its own: check-only builds of the same crates with
# other features beside the test build's would make rustdoc's doctests see
# several candidates for one crate.
export CARGO_TARGET_DIR="$PWD/target/feature-check"

cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys
for package in json.load(sys.stdin)["packages"]:
    features = sorted(f for f in package["features"] if f != "default")
    if not features:
        continue
    print(package["name"], "")
    for feature in features:
        print(package["name"], feature)
' | while read -r package feature; do
  echo "checking $package with features: ${feature:-none}" >&2
  output=$(cargo check -q --locked -p "$package" --lib --no-default-features ${feature:+--features "$feature"} 2>&1) || {
    echo "$output" >&2
    exit 1
  }
  if grep -q "^warning" <<<"$output"; then
    echo "$output" >&2
    echo "error: $package with features '${feature:-none}' builds with warnings" >&2
    exit 1
  fi
done
