"""The task graph: one forest per partition, k-ary merges up a tree, and its run.

With ``W`` partitions and ``k = split_every`` there are ``1 + ceil(log_k W)`` rounds of
tasks: the partitions' forests, the merges, and for components the labelling, which
takes the top round's forests (at most ``k``) in place of a last merge. Each forest has
at most ``n - 1`` edges; a merge of ``j`` pieces runs where
one of them already is (Dask places a task by the bytes of its inputs), so the tree
moves at most ``W - 1`` pieces between workers, ``(W - 1)(n - 1)`` edges in all.
:func:`run` measures what actually moved from the workers' transfer logs.
"""

from __future__ import annotations

import math
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import dask

from ..errors import InvalidGraphError
from . import _pieces
from ._inputs import Partition

__all__ = ["RunStats", "build", "run"]


@dataclass
class RunStats:
    """What one run did, filled into the ``stats`` dict of the public functions."""

    partitions: int = 0
    split_every: int = 0
    rounds: int = 0
    phases: list[dict[str, Any]] = field(default_factory=list)
    shipped: dict[str, Any] = field(default_factory=dict)
    submitted: float = 0.0
    received: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "partitions": self.partitions,
            "split_every": self.split_every,
            "rounds": self.rounds,
            "phases": self.phases,
            "shipped": self.shipped,
            "submitted": self.submitted,
            "received": self.received,
            "overhead": self.overhead(),
        }

    def overhead(self) -> dict[str, float]:
        """Seconds of the run outside the tasks (wall clock; meaningful where the
        workers share the client's clock, e.g. a local cluster): from submitting the
        graph to the first task's start, between rounds, and from the last task's end
        to the result on the client."""
        if not self.phases:
            return {}
        first = min(p["start"] for p in self.phases)
        last = max(p["stop"] for p in self.phases)
        gaps = sum(max(b["start"] - a["stop"], 0.0) for a, b in zip(self.phases, self.phases[1:]))
        return {
            "before_tasks_s": first - self.submitted,
            "between_rounds_s": gaps,
            "after_tasks_s": self.received - last,
        }


def _check_split_every(split_every: Any) -> int:
    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise InvalidGraphError(
            f"argument `split_every`: {split_every!r} is not valid; it must be an int >= 2 (the "
            "number of forests one merge takes). Fix: pass e.g. 8."
        )
    return split_every


def build(
    parts: list[Partition],
    *,
    kind: str,
    num_nodes: int | None,
    split_every: int,
    device: str,
    maximum: bool = False,
    labels: bool = False,
) -> tuple[Any, str]:
    """The root ``Delayed`` (a Piece, or a Labeling when ``labels``) and the keys' prefix."""
    k = _check_split_every(split_every)
    token = f"concomp-{uuid.uuid4().hex[:12]}"
    leaf = dask.delayed(_pieces.leaf, pure=False)
    level: list[Any] = [
        leaf(
            p.data,
            part=i,
            label=p.label,
            key=f"{token}-leaf-{i}",
            num_nodes=num_nodes,
            kind=kind,
            device=device,
            maximum=maximum,
            columns=p.columns,
            dask_key_name=f"{token}-leaf-{i}",
        )
        for i, p in enumerate(parts)
    ]
    if not level:
        level = [dask.delayed(_pieces.empty)(kind == "msf", dask_key_name=f"{token}-empty")]
    merge = dask.delayed(_pieces.merge, pure=False)
    depth = 0
    top = k if labels else 1  # labels read the union of the top round's forests directly
    while len(level) > top:
        depth += 1
        level = [
            merge(
                *level[a : a + k],
                key=f"{token}-merge-{depth}-{a // k}",
                level=depth,
                kind=kind,
                device=device,
                maximum=maximum,
                dask_key_name=f"{token}-merge-{depth}-{a // k}",
            )
            for a in range(0, len(level), k)
        ]
    if not labels:
        return level[0], token
    key = f"{token}-labels"
    root = dask.delayed(_pieces.labeling, pure=False)(
        *level, key=key, level=depth + 1, device=device, dask_key_name=key
    )
    return root, token


def rounds(partitions: int, split_every: int) -> int:
    """Rounds of tasks: the partitions' forests, then ``ceil(log_k W)`` of merges (the
    last of which is the labelling, for components)."""
    return 1 + (math.ceil(math.log(partitions, split_every) - 1e-12) if partitions > 1 else 0)


def _client(client: Any) -> Any:
    if client is not None:
        return client
    if dask.config.get("scheduler", None) not in (None, "dask.distributed", "distributed"):
        return None  # the caller asked for a local scheduler
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def run(root: Any, token: str, *, client: Any, retries: int) -> tuple[Any, RunStats, Any]:
    """Compute ``root``; raise a partition's error (:class:`InvalidGraphError`, ...)
    on the client; return the result, the stats (shipping measured where workers log it) and the
    distributed client used (None for the local schedulers)."""
    c = _client(client)
    since = time.time()
    if c is None:
        (out,) = dask.compute(root)
    else:
        out = c.compute(root, retries=retries).result()
    received = time.time()
    if out.error is not None:  # a short error on the client, not a worker's traceback
        raise type(out.error)(str(out.error)) from None
    stats = RunStats(submitted=since, received=received)
    stats.phases = _phases(out.records)
    if c is not None:
        stats.shipped = _shipped(c, token, out.records, since)
    return out, stats, c


def _phases(records: list[tuple]) -> list[dict[str, Any]]:
    """Per round: wall time (first start to last stop), task seconds, edges in and out."""
    by_level: dict[int, list[tuple]] = {}
    for r in records:
        by_level.setdefault(r[1], []).append(r)
    out = []
    for level in sorted(by_level):
        rows = by_level[level]
        out.append(
            {
                "level": level,
                "tasks": len(rows),
                "wall_s": max(r[3] for r in rows) - min(r[2] for r in rows),
                "task_s": sum(r[3] - r[2] for r in rows),
                "edges_in": sum(r[5] for r in rows),
                "edges_out": sum(r[6] for r in rows),
                "start": min(r[2] for r in rows),
                "stop": max(r[3] for r in rows),
            }
        )
    return out


def _incoming(dask_worker: Any, since: float) -> list[tuple[str, int]]:
    return [
        (str(key), int(nbytes))
        for entry in list(dask_worker.transfer_incoming_log)
        if entry["stop"] >= since
        for key, nbytes in entry["keys"].items()
    ]


def _shipped(client: Any, token: str, records: list[tuple], since: float) -> dict[str, Any]:
    """Forest pieces moved between workers during the run (from the workers' transfer
    logs); the input blocks that moved are counted apart (``input_bytes``)."""
    logs = client.run(_incoming, since=since - 1.0)
    edges_of = {r[0]: r[6] for r in records}
    pieces = [(k, b) for rows in logs.values() for k, b in rows if k.startswith(token)]
    inputs = [(k, b) for rows in logs.values() for k, b in rows if not k.startswith("concomp-")]
    return {
        "pieces": len(pieces),
        "edges": int(sum(edges_of.get(k, 0) for k, _ in pieces)),
        "bytes": int(sum(b for _, b in pieces)),
        "input_blocks": len(inputs),
        "input_bytes": int(sum(b for _, b in inputs)),
    }
