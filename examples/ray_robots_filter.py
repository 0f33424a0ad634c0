"""Filter a Parquet list of URLs by a robots snapshot with Ray Data.

    python examples/ray_robots_filter.py URLS.parquet SNAPSHOT.parquet OUT_DIR \
        --agent GPTBot [--column url] [--mode respect] [--workers 2] [--keep-refused]

The snapshot holds one robots.txt outcome per origin: what
``webcanon batch URLS --agent TOKEN -o OUT --snapshot-out SNAPSHOT.parquet``
writes, or ``await webcanon.Client().snapshot(urls)`` returns. Deciding from
it is offline and reproducible: no robots.txt is fetched here.

Each Ray actor reads the snapshot once and decides its batches with
``webcanon.VerdictPass.annotate`` (the GIL is released while it works). The
URLs that may be fetched are written to OUT_DIR as Parquet, with the verdict
columns (``origin, allowed, verdict, recommendation, rule_line,
rule_pattern, robots_status, error``) beside the input's; with
``--keep-refused`` every row is kept. A summary is printed as one JSON line.

Without a cluster (``RAY_ADDRESS`` unset) Ray starts locally.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import ray
import ray.data

import webcanon


class RobotsFilter:
    """A Ray Data actor: one snapshot and verdict pass per worker."""

    def __init__(self, snapshot_path: str, agent: str, mode: str, column: str, keep_refused: bool) -> None:
        self.verdicts = webcanon.VerdictPass(webcanon.Snapshot.read_parquet(snapshot_path), agent, mode)
        self.column = column
        self.keep_refused = keep_refused

    def __call__(self, batch: pa.Table) -> pa.Table:
        annotated = self.verdicts.annotate(batch, column=self.column)
        if self.keep_refused:
            return annotated
        return annotated.filter(pc.field("allowed"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("urls", help="Parquet file (or directory) of URLs")
    parser.add_argument("snapshot", help="robots snapshot Parquet file")
    parser.add_argument("out", help="output directory for the Parquet result")
    parser.add_argument("--agent", required=True, help="the product token matched against User-agent lines")
    parser.add_argument("--column", default="url", help="the column holding the URLs (default: url)")
    parser.add_argument("--mode", default="respect", choices=["respect", "report_only", "ignore"])
    parser.add_argument("--workers", type=int, default=2,
                        help="at most this many actors deciding at once (default: 2), started as CPUs allow")
    parser.add_argument("--keep-refused", action="store_true", help="keep every row, not only the allowed ones")
    args = parser.parse_args(argv)

    # Fail early, with webcanon's message, on a snapshot that cannot be used.
    origins = len(webcanon.Snapshot.read_parquet(args.snapshot))

    ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    try:
        dataset = ray.data.read_parquet(args.urls)
        decided = dataset.map_batches(
            RobotsFilter,
            fn_constructor_args=(args.snapshot, args.agent, args.mode, args.column, args.keep_refused),
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(min_size=1, max_size=args.workers),
        )
        decided.write_parquet(args.out)
        urls = dataset.count()
    finally:
        ray.shutdown()
    # Ray writes no file when no row is left.
    parts = sorted(pathlib.Path(args.out).glob("*.parquet"))
    written = pa.concat_tables([pq.read_table(part) for part in parts]) if parts else None
    summary = {
        "urls": urls,
        "written": written.num_rows if written is not None else 0,
        "allowed": (pc.sum(written.column("allowed")).as_py() or 0) if written is not None else 0,
        "origins_in_snapshot": origins,
        "agent": args.agent,
        "mode": args.mode,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
