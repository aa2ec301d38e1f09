"""Streaming connected components on the GPU: edges/s against the host-to-device bandwidth.

Usage (on a machine with a CUDA GPU and CuPy)::

    PYTHONPATH=src python benchmarks/bench_streaming.py --out benchmarks/results/streaming.json \
        [--edges 1000000000] [--scale 26] [--graphs uniform,rmat] [--reps 5] \
        [--variants none-async-halve-coo,none-rem_cas-splice-coo] [--no-pinned-input]

Measured in one run, on one machine:

* pinned host-to-device copy bandwidth (one 1 GiB cudaMemcpyAsync, median of 5
  after a warm-up), the reference; also pageable copies, for context;
* the host side alone: staging (copy + narrow + range check of a chunk into a
  pinned buffer, all cores) and, where the driver allows, page-locking in place;
* the kernel side alone: the same edges streamed from device memory;
* the whole pipeline: ``stream_components((src, dst), n, device="gpu")`` on an edge
  list held in ordinary (pageable) host memory, wall time from the call to the
  labels back on the host, median of ``--reps`` after a warm-up; and the same
  from page-locked host memory (no staging copy).

Per run: edges/s, edge bytes/s (2 ids of the label type per edge, the bytes that
must cross the bus) and their ratio to the pinned bandwidth (target >= 0.7).
Correctness: the labels of a prefix equal those of the in-memory GPU engine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numba as nb
import numpy as np

import concomp
from concomp._gpu._compat import cupy_or_raise, device_info
from concomp._shared.staging import stage_edges
from concomp.streaming import stream_components

GIB = 1 << 30


# ----------------------------------------------------------------------------- graphs
@nb.njit(inline="always")
def _mix(x):
    # splitmix64 finaliser: a counter-based generator, so threads need no shared state
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(parallel=True)
def _uniform(src, dst, scale, seed):
    mask = np.uint64((1 << scale) - 1)
    for i in nb.prange(src.shape[0]):
        k = np.uint64(2 * i) ^ np.uint64(seed)
        src[i] = _mix(k) & mask
        dst[i] = _mix(k + np.uint64(1)) & mask


@nb.njit(parallel=True)
def _rmat(src, dst, scale, seed):
    """R-MAT (a, b, c, d) = (0.57, 0.19, 0.19, 0.05), ids scrambled by an odd multiplier."""
    mask = np.uint64((1 << scale) - 1)
    ta, tb, tc = np.uint64(0.57 * 2**32), np.uint64(0.76 * 2**32), np.uint64(0.95 * 2**32)
    for i in nb.prange(src.shape[0]):
        u = np.uint64(0)
        v = np.uint64(0)
        for level in range(scale):
            key = np.uint64(i) * np.uint64(64) + np.uint64(level) + np.uint64(seed)
            r = _mix(key) >> np.uint64(32)
            bit = np.uint64(1) << np.uint64(level)
            if r >= ta:
                if r < tb:
                    v |= bit
                elif r < tc:
                    u |= bit
                else:
                    u |= bit
                    v |= bit
        src[i] = (u * np.uint64(0x9E3779B1) + np.uint64(12345)) & mask
        dst[i] = (v * np.uint64(0x9E3779B1) + np.uint64(12345)) & mask


def make_graph(kind: str, scale: int, m: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    src, dst = np.empty(m, np.int32), np.empty(m, np.int32)
    (_uniform if kind == "uniform" else _rmat)(src, dst, scale, seed)
    return src, dst


# ----------------------------------------------------------------------------- bandwidths
def h2d_pinned(cp, nbytes: int = GIB, reps: int = 5) -> float:
    """Pinned host -> device bytes/s: one async copy timed with CUDA events."""
    import cupyx

    host = cupyx.empty_pinned(nbytes, np.uint8)
    host[:] = 1
    dev = cp.empty(nbytes, np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    rt = cp.cuda.runtime
    times = []
    for _ in range(reps + 1):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record(stream)
        rt.memcpyAsync(dev.data.ptr, host.ctypes.data, nbytes, rt.memcpyHostToDevice, stream.ptr)
        stop.record(stream)
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return nbytes / statistics.median(times[1:])


def h2d_pageable(cp, host: np.ndarray, reps: int = 5) -> float:
    dev = cp.empty(host.shape, host.dtype)
    times = []
    for _ in range(reps + 1):
        t = time.perf_counter()
        dev.set(host)
        cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
    return host.nbytes / statistics.median(times[1:])


def staging_rate(src: np.ndarray, dst: np.ndarray, chunk: int, reps: int = 5) -> float:
    """Host bytes/s (ids read) of stage_edges into a pinned buffer, all cores."""
    import cupyx

    out_s, out_d = cupyx.empty_pinned(chunk, np.int32), cupyx.empty_pinned(chunk, np.int32)
    times = []
    for r in range(reps + 1):
        a = (r * chunk) % max(src.shape[0] - chunk, 1)
        t = time.perf_counter()
        stage_edges(src[a : a + chunk], dst[a : a + chunk], out_s, out_d)
        times.append(time.perf_counter() - t)
    return 2 * chunk * src.itemsize / statistics.median(times[1:])


def range_rate(src: np.ndarray, dst: np.ndarray, chunk: int, reps: int = 5) -> float:
    """Host bytes/s of the range check alone (the pinned-input path's only host pass)."""
    from concomp._shared.staging import edge_id_range

    times = []
    for r in range(reps + 1):
        a = (r * chunk) % max(src.shape[0] - chunk, 1)
        t = time.perf_counter()
        edge_id_range(src[a : a + chunk], dst[a : a + chunk])
        times.append(time.perf_counter() - t)
    return 2 * chunk * src.itemsize / statistics.median(times[1:])


def register_rate(cp, host: np.ndarray, nbytes: int = GIB) -> float | None:
    """Bytes/s of page-locking ordinary memory in place (cudaHostRegister + unregister)."""
    rt = cp.cuda.runtime
    view = host.view(np.uint8)[:nbytes]
    try:
        t = time.perf_counter()
        rt.hostRegister(view.ctypes.data, view.nbytes, 0)
        rt.hostUnregister(view.ctypes.data)
        return view.nbytes / (time.perf_counter() - t)
    except rt.CUDARuntimeError as exc:  # some drivers and VMs refuse: a diagnostic only
        print(f"hostRegister unavailable: {exc}", file=sys.stderr)
        return None


# ----------------------------------------------------------------------------- runs
def timed(fn, reps: int) -> tuple[float, list[float], object]:
    out = fn()  # warm-up: kernels compile, pinned pools fill
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times, out


def check_prefix(cp, src, dst, n: int, k: int, variant: str) -> bool:
    s, d = src[:k], dst[:k]
    want = concomp.connected_components((s, d), num_nodes=n, device="gpu")
    got = stream_components((s, d), n, device="gpu", algorithm=variant, chunk_edges=1 << 22)
    return want[0] == got[0] and bool(np.array_equal(want[1], got[1]))


def row(name: str, m: int, itemsize: int, seconds: float, times: list[float], h2d: float) -> dict:
    bytes_per_s = 2 * itemsize * m / seconds
    return {
        "run": name,
        "median_s": seconds,
        "runs_s": times,
        "edges_per_s": m / seconds,
        "edge_bytes_per_s": bytes_per_s,
        "ratio_to_h2d": bytes_per_s / h2d,
    }


def run(
    name: str,
    chunks,
    n: int,
    variant: str,
    m: int,
    reps: int,
    h2d: float,
    chunk_edges: int | None = None,
) -> dict:
    sec, times, res = timed(
        lambda: stream_components(
            chunks, n, device="gpu", algorithm=variant, chunk_edges=chunk_edges
        ),
        reps,
    )
    return {
        **row(name, m, 4, sec, times, h2d),
        "components": int(res[0]),
        "chunk_edges": chunk_edges,
    }


def bench_graph(cp, kind: str, args, h2d: float) -> dict:
    n, m = 1 << args.scale, args.edges
    t = time.perf_counter()
    src, dst = make_graph(kind, args.scale, m)
    gen_s = time.perf_counter() - t
    out = {"graph": kind, "num_nodes": n, "num_edges": m, "generate_s": gen_s, "runs": []}
    # host passes alone, on the graph's own arrays (first touched by all threads, as
    # the pipeline sees them; a single-threaded probe array measured far lower)
    out["staging_bytes_per_s"] = staging_rate(src, dst, 1 << 24)
    out["range_check_bytes_per_s"] = range_rate(src, dst, 1 << 24)
    print(
        f"{kind}: n=2^{args.scale} m={m:,} generated in {gen_s:.1f} s; host staging "
        f"{out['staging_bytes_per_s'] / 1e9:.1f} GB/s, range check "
        f"{out['range_check_bytes_per_s'] / 1e9:.1f} GB/s (ids read)",
        flush=True,
    )
    variants = args.variants.split(",")
    out["prefix_check"] = check_prefix(cp, src, dst, n, min(m, args.check_edges), variants[0])
    print(f"  prefix check vs in-memory GPU: {out['prefix_check']}", flush=True)
    dev_m = min(m, args.device_edges)
    ds, dd = cp.asarray(src[:dev_m]), cp.asarray(dst[:dev_m])
    step = 1 << 24
    dev_chunks = [(ds[a : a + step], dd[a : a + step]) for a in range(0, dev_m, step)]
    for v in variants:
        out["runs"].append(
            run(f"{v} device-resident (kernel only)", dev_chunks, n, v, dev_m, args.reps, h2d)
        )
    dev_chunks.clear()
    del ds, dd
    cp.get_default_memory_pool().free_all_blocks()
    for v in variants:
        for ce in args.chunk_edges:
            power = ce is not None and ce & (ce - 1) == 0
            label = (
                "" if ce is None else f" chunk=2^{ce.bit_length() - 1}" if power else f" chunk={ce}"
            )
            out["runs"].append(
                run(f"{v} pageable host{label}", (src, dst), n, v, m, args.reps, h2d, ce)
            )
    if args.pinned_input:
        import cupyx

        ps, pd = cupyx.empty_pinned(m, np.int32), cupyx.empty_pinned(m, np.int32)
        ps[:], pd[:] = src, dst
        out["runs"].append(
            run(f"{variants[0]} pinned host", (ps, pd), n, variants[0], m, args.reps, h2d)
        )
        del ps, pd
    for r in out["runs"]:
        print(
            f"  {r['run']:<58} {r['median_s'] * 1e3:9.1f} ms  {r['edges_per_s'] / 1e9:6.2f} "
            f"Gedges/s  {r['edge_bytes_per_s'] / 1e9:6.1f} GB/s  {r['ratio_to_h2d']:5.2f} of H2D",
            flush=True,
        )
    out["host_register_bytes_per_s"] = register_rate(cp, src)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="JSON file to write")
    ap.add_argument("--edges", type=int, default=1_000_000_000)
    ap.add_argument("--scale", type=int, default=26, help="n = 2**scale vertices")
    ap.add_argument("--graphs", default="uniform,rmat")
    ap.add_argument("--variants", default="none-async-halve-coo,none-rem_cas-splice-coo")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--check-edges", type=int, default=1 << 26)
    ap.add_argument(
        "--device-edges",
        type=int,
        default=1 << 28,
        help="edges kept on the device for the kernel-only runs",
    )
    ap.add_argument("--no-pinned-input", dest="pinned_input", action="store_false")
    ap.add_argument(
        "--chunk-edges",
        default="default",
        help="comma-separated edges per slot for the pageable runs "
        "('default': the library's choice)",
    )
    args = ap.parse_args(argv)
    args.chunk_edges = [None if c == "default" else int(c) for c in args.chunk_edges.split(",")]
    cp = cupy_or_raise()
    info = device_info()
    h2d = h2d_pinned(cp)
    probe = np.ones(GIB // 4, np.int32)
    result = {
        "device": info["name"],
        "cupy": cp.__version__,
        "numba_threads": nb.get_num_threads(),
        "h2d_pinned_bytes_per_s": h2d,
        "h2d_pageable_bytes_per_s": h2d_pageable(cp, probe),
        "target_ratio": 0.7,
        "graphs": [],
    }
    del probe
    print(
        f"{info['name']}: pinned H2D {h2d / 1e9:.1f} GB/s, pageable "
        f"{result['h2d_pageable_bytes_per_s'] / 1e9:.1f} GB/s; {result['numba_threads']} host "
        "threads",
        flush=True,
    )
    for kind in args.graphs.split(","):
        result["graphs"].append(bench_graph(cp, kind, args, h2d))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    best = max(
        r["ratio_to_h2d"] for g in result["graphs"] for r in g["runs"] if "pageable" in r["run"]
    )
    print(
        f"best pageable-host pipeline: {best:.2f} of pinned H2D (target >= 0.70); wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
