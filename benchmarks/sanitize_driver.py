"""Small runs of every GPU driver, for ``compute-sanitizer`` (``benchmarks/gpu_sanitize.sh``).

Each run is checked against the CPU engine, so the driver is also a correctness run;
under a sanitizer it gives the tool every concomp kernel to watch on a graph of a few
hundred vertices that has every feature a code path keys on (a hub above
``Options.heavy_degree``, a long path, self loops, duplicate edges, isolated vertices).

Subsets (``--subset``):

- ``full``: static components for every union rule with every find rule it is legal
  with, every union rule on the CSR layout, every sampler, every min-based family
  (Liu-Tarjan with each of its rules), Stages, 64-bit kernels, a replayed CUDA graph
  and the one-sided finishes; spanning forests for every union rule that records
  one and Soman's; minimum spanning forests (Borůvka on packed keys and on ranks,
  Prim); incremental batches for every incremental rule, in two passes and as
  streams (persistent and graph-captured); streaming from host and device chunks,
  with the switch to 64-bit labels; host edges on the GPU.
- ``small``: one variant per union rule, sampler and family, and one run of every
  other driver (for the slow tools, racecheck and initcheck).
- ``tiny``: a handful of runs, one per driver (the GPU test suite's memcheck test).

CuPy's memory pools are turned off (``--pool`` keeps them), so that every array is
its own ``cudaMalloc``: memcheck then sees each array's exact bounds and initcheck
each array's first use, instead of one large pooled block.

    PYTHONPATH=src python benchmarks/sanitize_driver.py --subset small --stats out.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import concomp
from concomp._rules import union_rules_for
from concomp.options import Options
from concomp.variants import Layout, Sampling, Variant, all_variants

SUBSETS = ("full", "small", "tiny")


# ----------------------------------------------------------------------------- what runs
def static_variants(subset: str) -> list[Variant]:
    """The static variants a subset runs: see the module docstring."""
    gpu = all_variants("gpu")
    rules = [row.name for row in union_rules_for("gpu", "static")]
    if subset == "tiny":
        return [Variant.parse(s) for s in ("none-async-halve-coo", "kout-rem_cas-splice-csr")]
    picked: dict[str, Variant] = {}

    def first(pred: Callable[[Variant], bool]) -> None:
        v = next((v for v in gpu if pred(v)), None)
        if v is not None:
            picked.setdefault(str(v), v)

    for rule in rules:  # every union rule: unsampled, edge list (all its find rules in full)
        for v in gpu:
            if str(v.finish) == rule and v.sampling == Sampling.NONE and v.layout == Layout.COO:
                picked.setdefault(str(v), v)
                if subset != "full":
                    break
        if subset == "full":  # ... and on the CSR layout
            first(
                lambda v, r=rule: (
                    str(v.finish) == r and v.sampling == Sampling.NONE and v.layout == Layout.CSR
                )
            )
    for s in Sampling:  # every sampler, with a union rule (Stages has its own finishes)
        first(lambda v, s=s: v.sampling == s and (s == Sampling.STAGES or str(v.finish) in rules))
    if subset == "full":  # sampling with JTB's packed words and with Rem's splicing
        first(lambda v: v.sampling == Sampling.HB and str(v.finish) == "jtb")
        first(lambda v: v.sampling == Sampling.KOUT_LOWER and str(v.compress) == "splice")
    families = sorted({str(v.finish) for v in gpu if str(v.finish) not in rules})
    for fam in families:  # every min-based family, unsampled where it can be
        first(lambda v, f=fam: str(v.finish) == f and v.sampling == Sampling.NONE)
        first(lambda v, f=fam: str(v.finish) == f)
        if subset == "full":  # all of a family's own rules (Liu-Tarjan has 24)
            for v in gpu:
                if str(v.finish) == fam and v.sampling == Sampling.NONE:
                    picked.setdefault(str(v), v)
    return list(picked.values())


def forest_variants(subset: str) -> list[str]:
    """Spanning-forest variants: every union rule that records a forest, and Soman's."""
    if subset == "tiny":
        return ["kout-async-halve-csr"]
    names = [f"none-{row.name}-{row.compress[0]}-coo" for row in union_rules_for("gpu", "forest")]
    if subset == "small":
        names = names[:2]
    return [*names, "kout-async-halve-csr", "none-soman-jump-coo"]


def incremental_variants(subset: str) -> list[str]:
    from concomp.incremental import legal_algorithms

    legal = legal_algorithms("gpu")
    return legal if subset == "full" else legal[:1]


# ----------------------------------------------------------------------------- the graph
def sanitizer_graph(n: int = 400, seed: int = 7) -> tuple[np.ndarray, np.ndarray, int]:
    """A few hundred vertices with every feature a code path keys on: random edges with
    duplicates and self loops, a hub of degree 100 (above ``Options.heavy_degree``), a
    path of 120 vertices in id order (many rounds for the min-based families), and
    isolated vertices at the end."""
    rng = np.random.default_rng(seed)
    m = 500
    src = rng.integers(0, 200, m)
    dst = rng.integers(0, 200, m)
    dst[:20] = src[:20]  # self loops
    src = np.concatenate([src, src[20:60], np.full(100, 150), np.arange(220, 339)])
    dst = np.concatenate([dst, dst[20:60], rng.integers(0, 200, 100), np.arange(221, 340)])
    return src.astype(np.int64), dst.astype(np.int64), n


# ----------------------------------------------------------------------------- launch count
LAUNCHES = [0]


class _Counted:
    """A compiled kernel that counts its launches (attributes pass through)."""

    def __init__(self, fn: Any) -> None:
        self._fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        LAUNCHES[0] += 1
        return self._fn(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)


class _CountedModule:
    """A compiled module whose kernels count their launches."""

    def __init__(self, mod: Any) -> None:
        self._mod = mod

    def get_function(self, name: str) -> _Counted:
        return _Counted(self._mod.get_function(name))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._mod, name)


def count_launches() -> None:
    """Count the launches of every concomp kernel from here on.

    Every concomp module is built by ``_build._build`` (the kernel getter, ``checks``,
    ``rows`` and ``ops`` all go through it), so wrapping it before the first build
    counts every launch issued from Python; a captured CUDA graph's replay counts as
    the launches captured once.
    """
    from concomp._gpu import _build

    if _build.built():
        raise RuntimeError("count_launches() must run before the first kernel is built")
    real = _build._build
    _build._build = lambda *key: _CountedModule(real(*key))


# ----------------------------------------------------------------------------- the runs
class Runner:
    """Runs named checks, records mismatches and errors, never stops at the first."""

    def __init__(self) -> None:
        self.runs = 0
        self.failures: list[dict[str, str]] = []

    def __call__(self, name: str, check: Callable[[], None]) -> None:
        self.runs += 1
        try:
            check()
        except Exception as exc:
            self.failures.append({"run": name, "error": f"{type(exc).__name__}: {exc}"[:500]})
            traceback.print_exc()


def run_all(subset: str, cp: Any) -> Runner:
    from concomp.testing import (
        assert_minimum_spanning_forest,
        assert_spanning_forest,
        reference_components,
    )

    run = Runner()
    src, dst, n = sanitizer_graph()
    s, d = cp.asarray(src), cp.asarray(dst)
    ref_count, ref = reference_components(src, dst, n)

    def same_labels(labels: Any, count: int | None = None) -> None:
        assert np.array_equal(cp.asnumpy(labels), ref), "labels differ from the reference"
        assert count is None or count == ref_count

    def static(variant: Variant | str, options: Options | None = None, repeat: int = 1) -> None:
        g = concomp.Graph.from_edges(s, d, n)
        for _ in range(repeat):  # a second call replays the captured CUDA graph
            count, labels = concomp.connected_components(
                g, device="gpu", algorithm=variant, options=options
            )
            same_labels(labels, count)

    for v in static_variants(subset):
        run(f"cc {v}", lambda v=v: static(v))
    if subset != "tiny":
        wide = Options(index_dtype="int64")
        for name in ("none-async-halve-coo", "kout-rem_cas-splice-csr", "none-sv-compress-coo"):
            run(f"cc {name} int64", lambda name=name: static(Variant.parse(name), wide))
        run("cc replay", lambda: static(Variant.parse("kout-async-halve-csr"), repeat=2))
        one_side = Options(one_side_above_bytes=0)
        for name in ("koutl-rem_cas-splice-csr", "none-rem_cas-splice-csr"):
            run(f"cc {name} one-sided", lambda name=name: static(Variant.parse(name), one_side))
        run("cc auto", lambda: static("auto"))

    for name in forest_variants(subset):
        run(
            f"forest {name}",
            lambda name=name: assert_spanning_forest(
                (src, dst),
                concomp.spanning_forest((s, d), num_nodes=n, device="gpu", algorithm=name),
            ),
        )

    w = np.random.default_rng(3).integers(1, 50, src.shape[0]).astype(np.float64)
    host_w = concomp.Graph.from_edges(src, dst, n, weights=w)
    dev_w = concomp.Graph.from_edges(s, d, n, weights=cp.asarray(w))
    msf_runs = (
        [("boruvka", True)]
        if subset == "tiny"
        else [
            ("boruvka", True),
            ("boruvka", False),
            ("prim", True),
        ]
    )
    for alg, packed in msf_runs:
        run(
            f"msf {alg} packed={packed}",
            lambda alg=alg, packed=packed: assert_minimum_spanning_forest(
                host_w,
                concomp.minimum_spanning_forest(
                    dev_w, device="gpu", algorithm=alg, options=Options(msf_packed_keys=packed)
                ),
            ),
        )

    def incremental(name: str, options: Options | None = None, streamed: bool = False) -> None:
        ic = concomp.IncrementalConnectivity(device="gpu", algorithm=name, options=options)
        half = src.shape[0] // 2
        if streamed:
            ic.insert_batches(s, d, batch_size=64)
        else:
            ic.insert(s[:half], d[:half])
            ops = cp.asarray((np.arange(src.shape[0] - half) % 3 == 0).astype(np.int8))
            ic.process(ops, s[half:], d[half:])
            ic.insert(s[half:], d[half:])
        ic.insert(cp.asarray([n - 1]), cp.asarray([n - 1]))  # grow to every vertex
        same_labels(ic.labels())

    for name in incremental_variants(subset):
        run(f"incremental {name}", lambda name=name: incremental(name))
    if subset != "tiny":
        run("incremental two-pass", lambda: incremental("auto", Options(two_pass="always")))
        run("incremental stream persistent", lambda: incremental("auto", streamed=True))
        run(
            "incremental stream graphs",
            lambda: incremental("auto", Options(stream_persistent_max=0), streamed=True),
        )

    def stream(chunks: list, num_nodes: int | None, options: Options | None = None, **kw) -> None:
        count, labels = concomp.stream_components(
            chunks, num_nodes=num_nodes, device="gpu", options=options, **kw
        )
        same_labels(labels, count)

    cuts = np.linspace(0, src.shape[0], 4).astype(int)
    # the last chunk names the last vertex: a stream without num_nodes grows to all n
    host_chunks = [(src[a:b], dst[a:b]) for a, b in itertools.pairwise(cuts)]
    host_chunks.append((np.array([n - 1]), np.array([n - 1])))
    run("stream host", lambda: stream(host_chunks, n, chunk_edges=256))
    if subset != "tiny":
        dev_chunks = [(cp.asarray(a), cp.asarray(b)) for a, b in host_chunks]
        run("stream device, growing", lambda: stream(dev_chunks, None, algorithm="rem"))
        run(
            "stream host, widening to int64",
            lambda: stream(host_chunks, None, Options(int32_ids=100), chunk_edges=256),
        )
        run(
            "host edges on the gpu",
            lambda: same_labels(
                concomp.connected_components((src, dst), num_nodes=n, device="gpu")[1]
            ),
        )
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subset", choices=SUBSETS, default="full")
    ap.add_argument("--stats", type=Path, help="write runs, launches and failures here (JSON)")
    ap.add_argument("--pool", action="store_true", help="keep CuPy's memory pools")
    args = ap.parse_args()
    import cupy as cp

    if not args.pool:
        cp.cuda.set_allocator(None)
        cp.cuda.set_pinned_memory_allocator(None)
    count_launches()
    t0 = time.perf_counter()
    runner = run_all(args.subset, cp)
    cp.cuda.runtime.deviceSynchronize()
    stats = {
        "subset": args.subset,
        "runs": runner.runs,
        "launches": LAUNCHES[0],
        "failures": runner.failures,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    if args.stats:
        args.stats.parent.mkdir(parents=True, exist_ok=True)
        args.stats.write_text(json.dumps(stats, indent=1))
    print(
        f"sanitize driver ({args.subset}): {runner.runs} runs, {LAUNCHES[0]} concomp launches, "
        f"{len(runner.failures)} failures, {stats['seconds']} s"
    )
    raise SystemExit(1 if runner.failures else 0)


if __name__ == "__main__":
    main()
