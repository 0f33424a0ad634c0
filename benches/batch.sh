#!/usr/bin/env bash
# `webcanon batch` at scale: 1M URLs over 100k origins (Parquet), one
# loopback server answering robots.txt for every host name (wildcard
# --resolve). Measures the fetch pass (origins/s), the verdict pass
# (URLs/s, all cores and one), peak RSS, then kills a run in the middle
# and resumes it, checking the output has exactly one row per URL.
#
#   benches/batch.sh                 # 1,000,000 URLs, 100,000 origins
#   URLS=100000 ORIGINS=10000 benches/batch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
URLS=${URLS:-1000000}
ORIGINS=${ORIGINS:-100000}
CONCURRENCY=${CONCURRENCY:-128}

cargo build --release -q -p webcanon --bin webcanon
cargo build --release -q -p webcanon-batch --example batch_bench
BIN=target/release/webcanon
HELPER=target/release/examples/batch_bench
WORK=$(mktemp -d)
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

"$HELPER" serve > "$WORK/port" &
SERVER=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/port")
PORT=$PORT "$HELPER" gen "$WORK/urls.parquet" "$URLS" "$ORIGINS"
echo "input: $URLS URLs over $ORIGINS origins, $(du -h "$WORK/urls.parquet" | cut -f1) of Parquet"

net=(--agent BenchBot --resolve "*.bench.test:$PORT:127.0.0.1" --allow-private 127.0.0.0/8 --no-cache
     --concurrency "$CONCURRENCY" --json)
peak() { grep 'Maximum resident' "$1" | awk '{printf "%.0f MiB", $6/1024}'; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

echo "== full run (fetch pass + verdict pass)"
/usr/bin/time -v "$BIN" batch "$WORK/urls.parquet" -o "$WORK/full.parquet" "${net[@]}" \
  > "$WORK/full.json" 2> "$WORK/full.time"
fetch_s=$(field "$WORK/full.json" fetch_seconds)
verdict_s=$(field "$WORK/full.json" verdict_seconds)
python3 - "$WORK/full.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"fetch pass: {s['origins']} origins in {s['fetch_seconds']:.2f} s = {s['origins']/s['fetch_seconds']:,.0f} origins/s")
print(f"verdict pass: {s['rows']} rows in {s['verdict_seconds']:.2f} s = {s['rows']/s['verdict_seconds']:,.0f} URLs/s")
PY
echo "peak RSS, full run: $(peak "$WORK/full.time")"

echo "== verdict pass alone from the snapshot (offline), all cores and one"
for threads in "$(nproc)" 1; do
  /usr/bin/time -v "$BIN" batch "$WORK/urls.parquet" -o "$WORK/offline-$threads.parquet" --agent BenchBot \
    --snapshot "$WORK/full.robots.parquet" --threads "$threads" --json > "$WORK/offline.json" 2> "$WORK/offline.time"
  python3 - "$WORK/offline.json" "$threads" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]} thread(s): {s['rows']} rows in {s['verdict_seconds']:.2f} s = {s['rows']/s['verdict_seconds']:,.0f} URLs/s (snapshot load included: {s['fetch_seconds']:.2f} s)")
PY
  echo "peak RSS: $(peak "$WORK/offline.time")"
done

echo "== kill in the middle of the fetch pass, then resume"
half=$(python3 -c "print(max(0.5, $fetch_s / 2))")
"$BIN" batch "$WORK/urls.parquet" -o "$WORK/killed.parquet" "${net[@]}" > /dev/null 2>&1 &
victim=$!
sleep "$half"
kill -9 "$victim"; wait "$victim" 2>/dev/null || true
echo "killed after ${half}s; state left: $(ls "$WORK/killed.parquet.batch")"
"$BIN" batch "$WORK/urls.parquet" -o "$WORK/killed.parquet" "${net[@]}" > "$WORK/resumed.json" 2>/dev/null
python3 - "$WORK/resumed.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"resumed={s['resumed']}: {s['already_fetched']} origins kept from the killed run, {s['fetched']} fetched now, {s['origins']} in all")
PY
echo "resumed output: $("$HELPER" count "$WORK/killed.parquet")"

echo "== kill in the middle of the verdict pass (offline), then resume"
"$BIN" batch "$WORK/urls.parquet" -o "$WORK/killed2.parquet" --agent BenchBot --snapshot "$WORK/full.robots.parquet" \
  --threads 1 --batch-rows 16384 > /dev/null 2>&1 &
victim=$!
for _ in $(seq 2000); do
  grep -q '"rows": [1-9]' "$WORK/killed2.parquet.batch/state.json" 2>/dev/null && break; sleep 0.01
done
kill -9 "$victim"; wait "$victim" 2>/dev/null || true
echo "killed with $(grep -o '"rows": [0-9]*' "$WORK/killed2.parquet.batch/state.json") checkpointed"
"$BIN" batch "$WORK/urls.parquet" -o "$WORK/killed2.parquet" --agent BenchBot --snapshot "$WORK/full.robots.parquet" \
  --threads 1 --batch-rows 16384 --json > /dev/null
echo "resumed output: $("$HELPER" count "$WORK/killed2.parquet")"
