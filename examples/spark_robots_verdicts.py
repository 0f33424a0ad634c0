"""Decide a Parquet list of URLs from a robots snapshot dataset with Spark.

    spark-submit examples/spark_robots_verdicts.py URLS.parquet SNAPSHOT OUT_DIR \
        --agent GPTBot [--column url] [--mode respect] [--allowed-only]
    python examples/spark_robots_verdicts.py ...        # local mode, pyspark from PyPI

SNAPSHOT is what the fetch pass wrote: one Parquet file
(``webcanon batch --fetch-only --snapshot-out FILE``) or a directory of them
(``webcanon.ray_batch.fetch_snapshot``, one file per shard). Spark reads it
as any Parquet dataset (``spark.read.parquet(SNAPSHOT)``: origin, status,
http_status, body, fetched_at, error, last_good_at); here each Python worker
reads it once into a ``webcanon.VerdictPass`` and decides its partitions of
URLs with ``DataFrame.mapInArrow``, Arrow batches in and out, the GIL
released while deciding. SNAPSHOT must be readable by every executor (a
shared file system, or ``--files`` with ``SparkFiles``).

The verdict columns (``origin, allowed, verdict, recommendation, rule_line,
rule_pattern, robots_status, error``) are appended to the input's, and the
result written to OUT_DIR as Parquet. A summary is printed as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Iterator

import pyarrow as pa

import webcanon

# The verdict columns as Spark declares them (rule_line, an unsigned 32-bit
# integer in Arrow, becomes a long: Spark has no unsigned types).
VERDICT_DDL = ("origin string, allowed boolean, verdict string, recommendation string, rule_line long, "
               "rule_pattern string, robots_status string, error string")

_passes: dict[tuple[str, str, str], webcanon.VerdictPass] = {}


def verdict_pass(snapshot: str, agent: str, mode: str) -> webcanon.VerdictPass:
    """One pass per Python worker process, built on first use."""
    key = (snapshot, agent, mode)
    if key not in _passes:
        _passes[key] = webcanon.VerdictPass(webcanon.Snapshot.read_parquet(snapshot), agent, mode)
    return _passes[key]


def annotate(batches: Iterator[pa.RecordBatch], snapshot: str, agent: str, mode: str,
             column: str) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: each batch with the verdict columns appended."""
    verdicts = verdict_pass(snapshot, agent, mode)
    for batch in batches:
        table = verdicts.annotate(pa.Table.from_batches([batch]), column=column)
        index = table.schema.get_field_index("rule_line")
        table = table.set_column(index, "rule_line", table.column(index).cast(pa.int64()))
        yield from table.to_batches()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("urls", help="Parquet file (or directory) of URLs")
    parser.add_argument("snapshot", help="robots snapshot: a Parquet file or a directory of them")
    parser.add_argument("out", help="output directory for the Parquet result")
    parser.add_argument("--agent", required=True, help="the product token matched against User-agent lines")
    parser.add_argument("--column", default="url", help="the column holding the URLs (default: url)")
    parser.add_argument("--mode", default="respect", choices=["respect", "report_only", "ignore"])
    parser.add_argument("--allowed-only", action="store_true", help="write only the rows that may be fetched")
    args = parser.parse_args(argv)

    # Fail early, with webcanon's message, on a snapshot that cannot be used.
    origins = len(webcanon.Snapshot.read_parquet(args.snapshot))

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("webcanon-robots-verdicts").getOrCreate()
    try:
        urls = spark.read.parquet(args.urls)
        from pyspark.sql.types import StructType

        schema = StructType(urls.schema.fields + StructType.fromDDL(VERDICT_DDL).fields)
        snapshot, agent, mode, column = args.snapshot, args.agent, args.mode, args.column
        decided = urls.mapInArrow(lambda batches: annotate(batches, snapshot, agent, mode, column), schema)
        if args.allowed_only:
            decided = decided.filter("allowed")
        decided.write.mode("overwrite").parquet(args.out)
        written = spark.read.parquet(args.out)
        summary = {
            "urls": urls.count(),
            "written": written.count(),
            "allowed": written.filter("allowed").count(),
            "origins_in_snapshot": origins,
            "snapshot_rows": spark.read.parquet(args.snapshot).count(),
            "agent": args.agent,
            "mode": args.mode,
        }
    finally:
        spark.stop()
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
