"""The crawl on Ray: one Parquet dataset of page records for many sites.

``crawl`` splits the seeds into ``workers`` shards by the stable origin
hash of ``webcanon batch --shard I/N`` (FNV-1a 64 of the origin, modulo N:
a site's pages are all crawled by one task) and runs each shard's crawl
(``Client.crawl_pass``) in a Ray task, one client per task. The shards
write one dataset: ``OUT/part-IIIII-of-NNNNN.parquet``, one Parquet file
per shard in the columns of ``webcanon crawl -o FILE.parquet``, readable as
one table by pyarrow, Ray Data and Spark. Each shard's state (its frontier
and the parts written so far) sits beside it in ``OUT`` under a name
starting with a dot, which dataset readers skip.

Across workers and machines, give every task the same Redis store
(``client={"cache": "redis://HOST:PORT"}``): its fleet lock makes one
worker fetch a robots.txt that several want, and its per-host pacing
spaces requests to a host across all of them. A task that fails or whose
worker dies is run again by Ray (``max_retries``) and resumes from its
frontier: every page finished before the failure keeps its one record,
only the pages in flight are requested again, and the shard's file ends
with exactly the records of an uninterrupted crawl. The seed file and
``OUT`` must be on a file system every worker sees (a shared disk, or
one machine).

With ``scope="origin"`` (the default) or ``"prefix"`` the shards never
meet; with ``scope="domain"``, two origins of one registrable domain in
different shards may each crawl pages of the other.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any, Optional, Sequence, Union

import webcanon
from webcanon._ray_shards import run_shards, summed

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["crawl", "part_file"]


def part_file(out: PathLike, index: int, count: int) -> pathlib.Path:
    """The Parquet file of shard ``index`` of ``count`` in the dataset ``out``."""
    return pathlib.Path(out) / f"part-{index:05d}-of-{count:05d}.parquet"


def _state_file(out: PathLike, index: int, count: int) -> pathlib.Path:
    """The frontier of shard ``index``: hidden from dataset readers by its leading dot."""
    return pathlib.Path(out) / f".part-{index:05d}-of-{count:05d}.frontier"


def _crawl_shard(
    index: int, count: int, seeds: list[str], seeds_file: Optional[str], out: str, agent: str,
    client: dict[str, Any], options: dict[str, Any],
) -> dict[str, Any]:
    crawler = webcanon.Client(agent, **client)
    return crawler.crawl_pass(seeds, part_file(out, index, count), shard=(index, count),
                              state=_state_file(out, index, count), seeds_file=seeds_file, **options)


def crawl(
    out: PathLike,
    *,
    seeds: Sequence[str] = (),
    seeds_file: Optional[PathLike] = None,
    workers: int,
    agent: str = webcanon.DEFAULT_AGENT,
    client: Optional[dict[str, Any]] = None,
    max_retries: int = 3,
    num_cpus: float = 1,
    **options: Any,
) -> dict[str, Any]:
    """Crawls from ``seeds`` and the URLs of ``seeds_file`` (one a line) on Ray, ``workers`` tasks.

    ``client`` holds the options of ``webcanon.Client`` (``cache``,
    ``allow_private``, ``resolve``, ``timeout``, ``render``, …) for the
    client each task builds; ``options`` are those of ``Client.crawl``
    (``scope``, ``max_pages``, ``max_pages_per_host``, ``format``, …), for
    each shard. Ray must be initialised (``ray.init()``). A shard whose task
    fails (an ``OSError``, or its worker process dying) is run again up to
    ``max_retries`` times, resuming from its frontier. Returns the summary:
    ``dataset`` (the directory), ``workers``, ``seeds``, ``records``,
    ``requested``, ``fetched`` (summed) and ``per_shard`` (each shard's
    summary, in shard order).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    out_dir = pathlib.Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    file = None if seeds_file is None else os.fspath(seeds_file)
    per_shard = run_shards(
        _crawl_shard, workers, list(seeds), file, str(out_dir), agent, dict(client or {}), dict(options),
        name="webcanon_crawl_shard", max_retries=max_retries, num_cpus=num_cpus,
    )
    return {
        "dataset": str(out_dir),
        "workers": workers,
        **summed(per_shard, ["seeds", "records", "requested", "fetched"]),
        "per_shard": per_shard,
    }
