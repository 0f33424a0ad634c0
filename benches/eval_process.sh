#!/usr/bin/env bash
# Whole-process comparison: `webcanon robots eval` against a program doing
# the same job with texting_robots (crates/webcanon-core/examples/
# peer_texting_robots_eval.rs), on 300,000 URLs and one large real file.
# Needs hyperfine (apt-get install -y hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."

robots=${1:-../shared/corpus/robots/411.txt}
agent=${2:-GPTBot}
count=${3:-300000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release -q -p webcanon
cargo build --release -q -p webcanon-core --example peer_texting_robots_eval

# URLs from the file's own patterns (wildcards filled, so many match), plus misses.
python3 - "$robots" "$count" > "$work/urls.txt" <<'PY'
import random, re, sys
random.seed(9309)
body = open(sys.argv[1], encoding="utf-8", errors="replace").read()
patterns = [m.group(2).strip() for m in re.finditer(r"(?im)^\s*(dis)?allow\s*:\s*(\S+)", body)]
patterns = [p.replace("*", "x").rstrip("$") for p in patterns if p.startswith(("/", "*"))] or ["/"]
count = int(sys.argv[2])
for i in range(count):
    if i % 3 == 2:
        path = f"/misc/{i}/page.html"
    else:
        path = random.choice(patterns)
        if not path.startswith("/"):
            path = "/" + path
        path += random.choice(["", "/a", f"?id={i}", f"/{i}.html"])
    print(f"https://example.com{path}")
PY

ours=(target/release/webcanon robots eval --robots "$robots" --agent "$agent" "$work/urls.txt")
peer=(target/release/examples/peer_texting_robots_eval "$robots" "$agent" "$work/urls.txt")
"${ours[@]}" > "$work/ours.txt"
"${peer[@]}" > "$work/peer.txt"
echo "lines: $(wc -l < "$work/ours.txt") ours, $(wc -l < "$work/peer.txt") peer"
echo "verdicts that differ: $(diff <(cut -f1 "$work/ours.txt") <(cut -f1 "$work/peer.txt") | grep -c '^<' || true)"
hyperfine --warmup 2 --runs 10 --export-markdown "$work/result.md" \
  -n webcanon "${ours[*]} > /dev/null" \
  -n texting_robots "${peer[*]} > /dev/null"
cat "$work/result.md"
