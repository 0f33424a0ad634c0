"""What the Ray runs (``ray_batch``, ``ray_crawl``) share: one task per
shard, retried where it left off, and a summary summed over the shards.

A shard's work is a module-level function ``run(index, count, *args)``
returning its summary as a dict; each task's summary comes back with the
``shard`` it ran and the ``pid`` of the worker that ran it.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

ShardRun = Callable[..., dict[str, Any]]

__all__ = ["run_shards", "summed"]


def _run_shard(run: ShardRun, index: int, count: int, *args: Any) -> dict[str, Any]:
    summary = run(index, count, *args)
    summary["shard"] = index
    summary["pid"] = os.getpid()
    return summary


def run_shards(
    run: ShardRun, count: int, *args: Any, name: str, max_retries: int, num_cpus: float
) -> list[dict[str, Any]]:
    """Runs ``run(index, count, *args)`` for every shard ``index`` of
    ``count`` in a Ray task named ``name`` and waits for them all. A task
    that raises ``OSError`` or whose worker process dies is run again up to
    ``max_retries`` times (``run`` resumes from its own state). Returns the
    summaries in shard order. Ray must be initialised (``ray.init()``)."""
    import ray

    task = ray.remote(_run_shard).options(
        max_retries=max_retries, retry_exceptions=[OSError], num_cpus=num_cpus, name=name
    )
    summaries: list[dict[str, Any]] = ray.get([task.remote(run, index, count, *args) for index in range(count)])
    return summaries


def summed(per_shard: Sequence[dict[str, Any]], counts: Sequence[str]) -> dict[str, int]:
    """Each of ``counts`` summed over the shards' summaries."""
    return {count: sum(shard[count] for shard in per_shard) for count in counts}
