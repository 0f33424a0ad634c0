#!/usr/bin/env bash
# Load test of the HTTP API: wrk POSTing /v1/robots/check bodies (rotating
# URLs over four loopback origins and five agents) at `webcanon serve` for a
# bounded time, the server's RSS sampled every second from /proc.
#
#   benches/load-serve.sh [SECONDS] [THREADS] [CONNECTIONS]   (default 30 2 64)
#
# Everything runs on 127.0.0.1. Exits non-zero when any request failed (a
# socket error or a status other than 200).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${1:-30}
THREADS=${2:-2}
CONNECTIONS=${3:-64}

if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)" >&2
  as_root=()
  [ "$(id -u)" -ne 0 ] && as_root=(sudo -n)
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq -y install --no-install-recommends wrk >/dev/null ||
    { "${as_root[@]}" apt-get -qq update && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -qq -y install --no-install-recommends wrk >/dev/null; }
fi

cargo build --release --locked -q -p webcanon
BIN="$PWD/target/release/webcanon"

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Four origins, each a static server over a folder with the same robots.txt.
mkdir -p "$WORK/site"
cat > "$WORK/site/robots.txt" <<'ROBOTS'
User-agent: GPTBot
Disallow: /

User-agent: ClaudeBot
Allow: /docs/public
Disallow: /docs/

User-agent: *
Disallow: /private
Disallow: /*.pdf$
Allow: /private/press
ROBOTS
ORIGINS=()
for _ in 1 2 3 4; do
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$WORK/site" >/dev/null 2>&1 &
  PIDS+=($!)
  ORIGINS+=("http://127.0.0.1:$port")
done

"$BIN" serve --listen 127.0.0.1:0 --allow-private 127.0.0.0/8 --cache-dir "$WORK/cache" --timeout 5 \
  2> "$WORK/serve.log" &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 100); do
  grep -q "listening on" "$WORK/serve.log" && break
  sleep 0.1
done
ADDR=$(sed -n 's/^listening on http:\/\///p' "$WORK/serve.log")
[ -n "$ADDR" ] || { cat "$WORK/serve.log" >&2; exit 1; }

# The request bodies wrk rotates through: 4 origins x 8 paths x 5 agents.
{
  echo "bodies = {"
  for origin in "${ORIGINS[@]}"; do
    for path in / /docs/public/a /docs/secret /private/x /private/press/1 /file.pdf /blog/2024/post "/search?q=a"; do
      for agent in webcanon GPTBot ClaudeBot CCBot PerplexityBot; do
        printf '  [[{"url":"%s%s","agent":"%s"}]],\n' "$origin" "$path" "$agent"
      done
    done
  done
  echo "}"
  cat <<'LUA'
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  counter = 0
  not_ok = 0
end
function request()
  counter = counter + 1
  local body = bodies[(counter % #bodies) + 1]
  return wrk.format("POST", "/v1/robots/check", {["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status ~= 200 then
    not_ok = not_ok + 1
  end
end
function done(summary, latency, requests)
  local not_ok = 0
  for _, thread in ipairs(threads) do
    not_ok = not_ok + thread:get("not_ok")
  end
  local e = summary.errors
  io.write(string.format("RESULT requests=%d seconds=%.1f rps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f non_200=%d socket_errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    not_ok, e.connect + e.read + e.write + e.timeout))
end
LUA
} > "$WORK/check.lua"

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$SERVER/status"; }

# Warm-up: the robots cache, the connection pool, the allocator.
wrk -t "$THREADS" -c "$CONNECTIONS" -d 3s -s "$WORK/check.lua" "http://$ADDR" > "$WORK/warmup.txt"

: > "$WORK/rss.txt"
( while kill -0 "$SERVER" 2>/dev/null; do rss_kib >> "$WORK/rss.txt"; sleep 1; done ) &
SAMPLER=$!
PIDS+=("$SAMPLER")
wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --latency -s "$WORK/check.lua" "http://$ADDR" | tee "$WORK/wrk.txt"
kill "$SAMPLER" 2>/dev/null || true

read -r rss_start rss_end rss_max samples < <(awk 'NR == 1 {s = $1} {e = $1; if ($1 > m) m = $1} END {print s, e, m, NR}' "$WORK/rss.txt")
result=$(grep '^RESULT' "$WORK/wrk.txt")
fetches=$(curl -s "http://$ADDR/metrics" | awk '/^webcanon_robots_fetches_total/ {print $2}')
echo
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "wrk -t $THREADS -c $CONNECTIONS -d ${DURATION}s, POST /v1/robots/check, 160 rotating bodies"
echo "$result"
echo "server RSS: start $((rss_start / 1024)) MiB, end $((rss_end / 1024)) MiB, max $((rss_max / 1024)) MiB ($samples samples, 1 s apart)"
echo "robots.txt fetches for the whole run: $fetches (4 origins)"

non_200=$(sed -n 's/.*non_200=\([0-9]*\).*/\1/p' <<< "$result")
socket_errors=$(sed -n 's/.*socket_errors=\([0-9]*\).*/\1/p' <<< "$result")
if [ "$non_200" != 0 ] || [ "$socket_errors" != 0 ]; then
  echo "error: $non_200 answers other than 200 and $socket_errors socket errors" >&2
  exit 1
fi
