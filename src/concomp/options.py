"""Tuning settings of the engines: one frozen, validated object passed down to the drivers.

Every public entry point takes ``options=`` (default :data:`DEFAULTS`) and hands
it to the engine driver it dispatches to; drivers read their settings from it
and from nowhere else. The defaults are the settings measured fastest by the
benchmarks (``benchmarks/``); the others exist so that a benchmark can sweep
them and a test can force a code path (a small graph through the path that
large ones take).

Examples
--------
>>> import numpy as np, concomp
>>> from concomp.options import Options
>>> opts = Options(label_samples=64)
>>> concomp.connected_components((np.array([0, 2]), np.array([1, 3])), device="cpu",
...                              options=opts)
(2, array([0, 0, 1, 1], dtype=int32))
>>> Options(heavy_degree=0)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
concomp.errors.InvalidOptionsError: Options.heavy_degree=0 is not valid: it must be an int >=
1. Fix: pass a value >= 1 or leave the default (64).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import InvalidOptionsError

__all__ = ["DEFAULTS", "Options", "resolve_options"]

_INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Options:
    """Engine settings. Every field has the measured default; see each field.

    The fields by topic: static connected components (``heavy_degree`` to
    ``index_dtype``), incremental connectivity (``int32_capacity`` to
    ``stream_graphs``), streaming (``chunk_edges``), minimum spanning forests
    (``msf_packed_keys`` on).

    Parameters
    ----------
    heavy_degree : int
        GPU: vertices whose remaining degree exceeds this go to the
        block-per-vertex finish kernel.
    bfs_alpha : int
        GPU: BFS turns bottom-up once the frontier holds more than
        ``n / bfs_alpha`` vertices (Beamer's direction optimisation).
    kout_lower_scan : int
        Both engines: k-out over lower neighbours looks for its k neighbours of
        smaller id among the first this many entries of a row, so that no
        thread walks a hub's whole row.
    label_samples : int
        CPU: vertices sampled to find the most frequent label after sampling
        (Afforest uses 1024).
    one_side_above_bytes : int or None
        GPU: Rem's unions in the unsampled CSR finish and in k-out over lower
        neighbours walk one-sided when the parent array has more bytes than
        this; None means the device's L2 size.
    capture_graphs : bool
        GPU: capture a run as a CUDA graph and replay it when the same graph
        object is run again.
    auto_small_entries : int
        GPU ``auto``: graphs with fewer CSR entries than this run the
        unsampled finish (sampling does not pay for itself below it).
    link_order : {"auto", "id", "keyed"}
        GPU union-find: which root of a union goes under the other. "id"
        links the larger id under the smaller; "keyed" orders the ids by a
        fixed pseudo-random permutation, which keeps parent chains short
        whatever the id order (ids along a graph's long paths make id-ordered
        chains as long as the paths, and the run quadratic). "auto" keys
        graphs whose sampled edges mostly join nearby ids, and streams (whose
        edges are not known in advance); it links the others by id, which is
        faster on them.
    numpy_start : bool
        CPU ``algorithm="auto"`` (components, spanning forests, minimum spanning
        forests, streams): while the compiled kernels are not loaded, graphs (and
        stream chunks) of fewer than 2**20 vertices and up to 2**20 edges are answered
        with NumPy,
        until those runs have cost half a second in the process
        (:mod:`concomp._cpu.numpy_start`). False always runs the compiled kernels
        (:func:`concomp.warmup` does, to compile them).
    parallel_min_edges : int
        CPU: graphs with fewer edges than this run on one thread. Every phase
        (and every round of the round-based families: SV, Liu-Tarjan, Stergiou,
        label propagation, Soman, Cong & Muzio, Stages) is a parallel region,
        whose start and barrier cost more than a small graph's work, and on a
        small graph of high diameter there are thousands of them. Tests set 0
        to run small graphs in parallel.
    index_dtype : {None, "int32", "int64"}
        Both engines: the index type of the union-find state and kernels;
        None takes the graph's (int32 while ids fit). Tests run the 64-bit
        kernels on small graphs with "int64".
    int32_capacity : int
        Both engines: the largest vertex capacity kept in 32-bit state; the
        state switches to 64-bit beyond it (lower it to test that switch).
    two_pass : {"auto", "always", "never"}
        GPU: large insert batches run in two passes by edge direction with a
        flattening in between; "auto" does so when the batch has at least
        ``two_pass_min_batch`` entries per vertex and the parents have more
        bytes than ``two_pass_above_bytes``.
    two_pass_min_batch : float
        See ``two_pass``.
    two_pass_above_bytes : int or None
        See ``two_pass``; None means the device's L2 size.
    stream_persistent_max : int
        GPU: streams of batches up to this many entries run as one persistent
        launch with a grid barrier per batch.
    stream_graphs : bool
        GPU: longer streams are replayed as a CUDA graph of batch launches.
    chunk_edges : int
        GPU: edges per pinned staging slot of :func:`concomp.stream_components`.
    int32_ids : int
        CPU: streams keep 32-bit labels until an id passes this value (lower
        it to test the switch to 64-bit labels).
    msf_packed_keys : bool
        GPU Borůvka: use packed 64-bit (weight, endpoint) keys when the weights
        fit 32 bits; False ranks the edges first (the path wider weights take).
    scc_trim_passes : int
        GPU strongly connected components: trimming passes per round at most
        (a pass that settles no vertex ends them earlier; 0 turns trimming off).
        A pass settles the vertices without a live in- or out-arc, and those it
        exposes only where the threads happen to see them, so a chain needs
        many; propagation finishes whatever trimming leaves. Not yet tuned on a GPU.
    """

    heavy_degree: int = 64
    bfs_alpha: int = 20
    kout_lower_scan: int = 64
    label_samples: int = 1024
    one_side_above_bytes: int | None = None
    capture_graphs: bool = True
    auto_small_entries: int = 4_000_000
    numpy_start: bool = True
    parallel_min_edges: int = 1 << 14
    index_dtype: str | None = None
    link_order: str = "auto"

    int32_capacity: int = _INT32_MAX
    two_pass: str = "auto"
    two_pass_min_batch: float = 1.0
    two_pass_above_bytes: int | None = None
    stream_persistent_max: int = 1 << 20
    stream_graphs: bool = True

    chunk_edges: int = 1 << 22
    int32_ids: int = _INT32_MAX

    msf_packed_keys: bool = True

    scc_trim_passes: int = 8

    def __post_init__(self) -> None:
        minimum = {
            "heavy_degree": 1,
            "bfs_alpha": 1,
            "kout_lower_scan": 1,
            "label_samples": 1,
            "one_side_above_bytes": 0,
            "auto_small_entries": 0,
            "parallel_min_edges": 0,
            "int32_capacity": 1,
            "two_pass_above_bytes": 0,
            "stream_persistent_max": 0,
            "chunk_edges": 256,
            "int32_ids": 1,
            "scc_trim_passes": 0,
        }
        for f in fields(self):
            value = getattr(self, f.name)
            default = f.default
            if f.name in minimum:
                if value is None and default is None:
                    continue
                if isinstance(value, bool) or not isinstance(value, int) or value < minimum[f.name]:
                    raise InvalidOptionsError(
                        f"Options.{f.name}={value!r} is not valid: it must be an int >= "
                        f"{minimum[f.name]}{' or None' if default is None else ''}. Fix: pass "
                        f"a value >= {minimum[f.name]} or leave the default ({default!r})."
                    )
            elif isinstance(default, bool):
                if not isinstance(value, bool):
                    raise InvalidOptionsError(
                        f"Options.{f.name}={value!r} is not valid: it must be True or False."
                    )
        if self.index_dtype not in (None, "int32", "int64"):
            raise InvalidOptionsError(
                f"Options.index_dtype={self.index_dtype!r} is not valid: use None, 'int32' or "
                "'int64'."
            )
        if self.link_order not in ("auto", "id", "keyed"):
            raise InvalidOptionsError(
                f"Options.link_order={self.link_order!r} is not valid: use 'auto', 'id' or 'keyed'."
            )
        if self.two_pass not in ("auto", "always", "never"):
            raise InvalidOptionsError(
                f"Options.two_pass={self.two_pass!r} is not valid: use 'auto', 'always' or 'never'."
            )
        if (
            isinstance(self.two_pass_min_batch, bool)
            or not isinstance(self.two_pass_min_batch, (int, float))
            or not self.two_pass_min_batch >= 0
        ):
            raise InvalidOptionsError(
                f"Options.two_pass_min_batch={self.two_pass_min_batch!r} is not valid: it must "
                "be a number >= 0."
            )

    def with_(self, **changes: Any) -> Options:
        """A copy with ``changes`` applied (validated like the constructor)."""
        return replace(self, **changes)


#: The defaults every entry point uses when ``options`` is not given.
DEFAULTS = Options()


def resolve_options(options: Options | None) -> Options:
    """``options`` checked to be an :class:`Options`, or :data:`DEFAULTS` for None."""
    if options is None:
        return DEFAULTS
    if not isinstance(options, Options):
        raise InvalidOptionsError(
            f"argument `options`: {options!r} is not a concomp.options.Options. Fix: pass "
            "concomp.options.Options(...) or leave it out."
        )
    return options
