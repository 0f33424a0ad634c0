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

cargo test --workspace --locked "$@"
