#!/usr/bin/env bash
# Soak test: hostile sites and clients against `webcanon serve` and
# `webcanon mcp --http` together with normal traffic (benches/soak.py says
# what runs). Loopback only; stops by itself.
#
#   benches/soak.sh [SECONDS]   (default 60)
#
# Prints RSS of both servers, p99 of the health probes and error counts;
# exits non-zero when a server died, a normal answer was wrong, a garbled
# robots.txt let a disallowed path through, or a foreign Host was served.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked -q -p webcanon
# Half-sent connections and many sockets: the soak raises its own soft limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec python3 benches/soak.py --bin "$PWD/target/release/webcanon" --seconds "${1:-60}"
