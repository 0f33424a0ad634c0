#!/usr/bin/env bash
# The fetch pass of `webcanon batch` at crawl scale: 1 M and 10 M origins
# (one URL each, Parquet), one loopback server answering robots.txt for
# every host name (wildcard --resolve, a server that logs nothing), under an
# open-file limit of $NOFILE. For each size: origins/s, peak RSS, open file
# descriptors and RSS sampled every second, snapshot size, and the
# snapshot's statuses (every origin must be `parsed`: none recorded
# unreachable because this machine ran out of something).
#
#   benches/batch_scale.sh                      # 1,000,000 then 10,000,000 origins
#   SIZES="100000 1000000" benches/batch_scale.sh
#   PARTITION_BYTES=19000000 SIZES=1000000 benches/batch_scale.sh   # other partitions
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"1000000 10000000"}
CONCURRENCY=${CONCURRENCY:-256}
NOFILE=${NOFILE:-1024}
# --partition-bytes (empty: the default budget).
PARTITION_BYTES=${PARTITION_BYTES:-}
TARGET=${CARGO_TARGET_DIR:-target}
# PROFILE=dev measures memory and descriptors without a release build
# (origins/s are then not comparable).
PROFILE=${PROFILE:-release}
OUTDIR=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")

cargo build --profile "$PROFILE" -q -p webcanon --bin webcanon
BIN=$TARGET/$OUTDIR/webcanon
# The input generator and the loopback server (HELPER=path to reuse a build).
if [ -z "${HELPER:-}" ]; then
  cargo build --profile "$PROFILE" -q -p webcanon-batch --example batch_bench
  HELPER=$TARGET/$OUTDIR/examples/batch_bench
fi
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; [ -z "${KEEP:-}" ] && rm -rf "$WORK"; }
trap cleanup EXIT

"$HELPER" serve-lean > "$WORK/port" &
SERVER=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/port")

for n in $SIZES; do
  echo "== $n origins, one URL each, --concurrency $CONCURRENCY, open-file limit $NOFILE"
  rm -rf "$WORK/run" && mkdir -p "$WORK/run"
  PORT=$PORT "$HELPER" gen "$WORK/run/urls.parquet" "$n" "$n"
  echo "input: $(du -h "$WORK/run/urls.parquet" | cut -f1) of Parquet"
  prlimit --nofile="$NOFILE:$NOFILE" /usr/bin/time -v "$BIN" batch "$WORK/run/urls.parquet" --fetch-only \
    --snapshot-out "$WORK/run/snapshot.parquet" --agent BenchBot --resolve "*.bench.test:$PORT:127.0.0.1" \
    --allow-private 127.0.0.0/8 --no-cache --concurrency "$CONCURRENCY" --json \
    ${PARTITION_BYTES:+--partition-bytes "$PARTITION_BYTES"} \
    > "$WORK/run/summary.json" 2> "$WORK/run/time" &
  runner=$!
  # The webcanon process (under prlimit and time): its fds and RSS each second.
  pid=
  for _ in $(seq 200); do
    pid=$(pgrep -f -n "^$BIN batch $WORK/run/urls.parquet" || true); [ -n "$pid" ] && break; sleep 0.05
  done
  start=$(date +%s)
  : > "$WORK/run/samples"
  while kill -0 "$pid" 2>/dev/null; do
    fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    echo "$(( $(date +%s) - start )) $fds $rss" >> "$WORK/run/samples"
    sleep 1
  done
  wait "$runner"
  python3 - "$WORK/run/summary.json" "$WORK/run/samples" "$WORK/run/time" "$WORK/run/snapshot.parquet" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
samples = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 3]
peak = next(int(l.split()[-1]) for l in open(sys.argv[3]) if "Maximum resident" in l)
print(f"fetch pass: {s['origins']:,} origins in {s['partitions']} partitions, {s['fetch_seconds']:.1f} s = "
      f"{s['origins'] / s['fetch_seconds']:,.0f} origins/s")
print(f"peak RSS: {peak / 1024:.0f} MiB; snapshot: {os.path.getsize(sys.argv[4]) / 2**20:.1f} MiB")
if samples:
    print(f"open fds: max {max(f for _, f, _ in samples)}, median {sorted(f for _, f, _ in samples)[len(samples) // 2]}")
    step = max(1, len(samples) // 10)
    print("t(s) fds RSS(MiB): " + ", ".join(f"{t} {f} {r // 1024}" for t, f, r in samples[::step]))
PY
  echo "snapshot: $("$HELPER" statuses "$WORK/run/snapshot.parquet")"
done
