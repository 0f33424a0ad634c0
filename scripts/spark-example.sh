#!/usr/bin/env bash
# The Spark example (examples/spark_robots_verdicts.py) in local mode, outside
# the default test suite (pyspark from PyPI is some 450 MB, installed into
# target/spark-venv on first use; Java 17 from Debian): a snapshot dataset of
# two files made by the fetch pass of `webcanon batch --fetch-only` against a
# loopback server, decided by Spark's mapInArrow, checked row by row against
# the wheel's own verdicts.
#
#   scripts/spark-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
VENV="$PWD/target/spark-venv"
if [ ! -x "$VENV/bin/maturin" ] || ! "$VENV/bin/python" -c "import pyspark, pandas" 2>/dev/null; then
  python3 -m venv "$VENV"
  # pandas: Spark's mapInArrow requires it.
  "$VENV/bin/pip" install -q --disable-pip-version-check pyspark==4.3.0 pandas==2.3.3 pyarrow==26.0.1 maturin==1.16.0
fi
command -v java > /dev/null || { echo "spark-example: no java (Debian: openjdk-17-jre-headless)" >&2; exit 1; }
cargo build -q -p webcanon --bin webcanon
cargo build -q -p webcanon-batch --example batch_bench
rm -rf target/spark-wheels
(cd crates/webcanon-py && VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" build --quiet --locked --profile dev --out ../../target/spark-wheels)
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps target/spark-wheels/webcanon-*.whl

WORK=$(mktemp -d)
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
"$TARGET/debug/examples/batch_bench" serve-lean > "$WORK/port" &
SERVER=$!
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(cat "$WORK/port")
PORT=$PORT "$TARGET/debug/examples/batch_bench" gen "$WORK/urls.parquet" 20000 2000
mkdir "$WORK/snapshot"
for shard in 0 1; do
  "$TARGET/debug/webcanon" batch "$WORK/urls.parquet" --fetch-only --shard "$shard/2" \
    --snapshot-out "$WORK/snapshot/shard-0000$shard-of-00002.parquet" --agent BenchBot \
    --resolve "*.bench.test:$PORT:127.0.0.1" --allow-private 127.0.0.0/8 --no-cache --json
done
PYSPARK_PYTHON="$VENV/bin/python" PYSPARK_DRIVER_PYTHON="$VENV/bin/python" "$VENV/bin/python" examples/spark_robots_verdicts.py "$WORK/urls.parquet" "$WORK/snapshot" "$WORK/out" \
  --agent OtherBot > "$WORK/summary.json"
cat "$WORK/summary.json"
"$VENV/bin/python" - "$WORK" <<'PY'
import json, sys, pyarrow.parquet as pq, webcanon
work = sys.argv[1]
summary = json.loads(open(f"{work}/summary.json").read().splitlines()[-1])
assert summary["urls"] == summary["written"] == 20000 and summary["origins_in_snapshot"] == 2000, summary
assert summary["snapshot_rows"] == 2000, summary
spark = pq.read_table(f"{work}/out").sort_by("url").combine_chunks()
urls = spark.column("url").combine_chunks()
ours = webcanon.VerdictPass(webcanon.Snapshot.read_parquet(f"{work}/snapshot"), "OtherBot").decide(urls)
for name in ["origin", "allowed", "verdict", "recommendation", "rule_pattern", "robots_status", "error"]:
    assert spark.column(name).to_pylist() == ours.column(name).to_pylist(), name
assert spark.column("rule_line").to_pylist() == ours.column("rule_line").to_pylist()
# OtherBot takes the `*` group: /private/ and /tmp/*.bak (half the URLs) are disallowed.
assert summary["allowed"] == 10000, summary
print(f"spark-example: {summary['urls']} URLs decided by Spark's mapInArrow, equal to the wheel's verdicts "
      f"({summary['allowed']} allowed)")
PY
