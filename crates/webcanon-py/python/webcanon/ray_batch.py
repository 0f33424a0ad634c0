"""The batch fetch pass on Ray: one robots snapshot dataset for a crawl.

``fetch_snapshot`` splits the origins of a file of URLs into ``shards`` by
the stable shard hash of ``webcanon batch --shard I/N`` (FNV-1a 64 of the
origin, modulo N) and runs each shard's fetch pass
(``Client.fetch_pass``) in a Ray task, one client per task. The shards
write one snapshot dataset: ``OUT/shard-IIIII-of-NNNNN.parquet``, one
Parquet file per shard, readable by ``webcanon.Snapshot.read_parquet(OUT)``,
``webcanon batch --snapshot OUT``, Ray Data and Spark.

Across workers and machines, give every task the same Redis store
(``client={"cache": "redis://HOST:PORT"}``): its fleet lock makes one
worker fetch a robots.txt that several want, and its per-host pacing
spaces requests to a host across all of them. Each shard's pass keeps its
state beside its file (``shard-….parquet.batch``), so a task that fails or
whose worker dies is retried by Ray (``max_retries``) and resumes where the
journal stopped: no origin is fetched twice but those in flight at the
failure, no origin is lost. The file of URLs and ``OUT`` must be on a file
system every worker sees (a shared disk, or one machine).

``decide`` feeds the verdict pass: a Ray Data dataset of URLs annotated
with the verdict columns from the snapshot dataset.

Memory per task: the fetch pass's own bound (see ``Client.fetch_pass``),
whatever the number of origins. The verdict pass holds the snapshot it
reads.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any, Optional, Union

import pyarrow as pa

import webcanon
from webcanon._ray_shards import run_shards, summed

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["decide", "fetch_snapshot", "shard_file"]


def shard_file(out: PathLike, index: int, count: int) -> pathlib.Path:
    """The snapshot file of shard ``index`` of ``count`` in the dataset ``out``."""
    return pathlib.Path(out) / f"shard-{index:05d}-of-{count:05d}.parquet"


def _fetch_shard(
    index: int, count: int, urls: str, out: str, agent: str, client: dict[str, Any], column: str,
    concurrency: int, partition_bytes: Optional[int],
) -> dict[str, Any]:
    fetcher = webcanon.Client(agent, **client)
    options: dict[str, Any] = {"column": column, "shard": (index, count), "concurrency": concurrency}
    if partition_bytes is not None:
        options["partition_bytes"] = partition_bytes
    return fetcher.fetch_pass(urls, str(shard_file(out, index, count)), **options)


def fetch_snapshot(
    urls: PathLike,
    out: PathLike,
    *,
    shards: int,
    agent: str = webcanon.DEFAULT_AGENT,
    client: Optional[dict[str, Any]] = None,
    column: str = "url",
    concurrency: int = 64,
    partition_bytes: Optional[int] = None,
    max_retries: int = 3,
    num_cpus: float = 1,
) -> dict[str, Any]:
    """Runs the fetch pass of the origins of ``urls`` on Ray, ``shards`` tasks.

    ``client`` holds the options of ``webcanon.Client`` (``cache``,
    ``allow_private``, ``resolve``, ``timeout``, …) for the client each task
    builds. Ray must be initialised (``ray.init()``). A shard whose task
    fails (an exception, or its worker process dying) is run again up to
    ``max_retries`` times, resuming from its journal. Returns the summary:
    ``snapshot`` (the dataset directory), ``shards``, ``origins``,
    ``fetched`` and ``already_fetched`` (summed; ``already_fetched`` counts
    origins a retried shard kept from its failed attempt) and ``per_shard``
    (each shard's summary, in shard order).
    """
    if shards < 1:
        raise ValueError(f"shards must be at least 1, not {shards}")
    out_dir = pathlib.Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    per_shard = run_shards(
        _fetch_shard, shards, str(urls), str(out_dir), agent, dict(client or {}), column, concurrency, partition_bytes,
        name="webcanon_fetch_shard", max_retries=max_retries, num_cpus=num_cpus,
    )
    return {
        "snapshot": str(out_dir),
        "shards": shards,
        **summed(per_shard, ["origins", "fetched", "already_fetched"]),
        "per_shard": per_shard,
    }


class _Annotate:
    """A Ray Data actor: the snapshot dataset read once per worker."""

    def __init__(self, snapshot: str, agent: str, mode: str, column: str) -> None:
        self.verdicts = webcanon.VerdictPass(webcanon.Snapshot.read_parquet(snapshot), agent, mode)
        self.column = column

    def __call__(self, batch: pa.Table) -> pa.Table:
        return self.verdicts.annotate(batch, column=self.column)


def decide(
    dataset: Any, snapshot: PathLike, *, agent: str, mode: str = "respect", column: str = "url", workers: int = 2
) -> Any:
    """``dataset`` (a Ray Data dataset with a URL ``column``) with the verdict
    columns appended, decided from the snapshot dataset ``snapshot`` (a
    directory written by ``fetch_snapshot``, or one Parquet file) by at most
    ``workers`` actors."""
    import ray.data

    return dataset.map_batches(
        _Annotate,
        fn_constructor_args=(str(snapshot), agent, mode, column),
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=workers),
    )
