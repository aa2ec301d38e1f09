"""GPU fuzz run (issue 31): every public GPU entry point on small random graphs, compared
with the CPU engine, and hostile input on the device.

Graphs come from :func:`fuzz_strategies.graphs` (up to 200 vertices and 600 edges,
int32 and int64 ids, self loops, duplicates, isolated vertices). Each GPU result is
held to the CPU engine's: labels and counts exactly; spanning forests by the forest
checker (which forest a concurrent run returns is not fixed); minimum spanning
forests by edge id (the tie rule makes them unique); incremental batches by their
queries, the number of joining inserts per batch, the labels and the forest.
Hostile input draws from the CPU fuzz run's strategies and must end in a documented
error with the device still answering.

Derandomised with a fixed budget so that the file stays near a minute on a GPU; the
algorithms are a few named variants per family, so that few kernels compile.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import concomp  # noqa: E402
from concomp.options import Options  # noqa: E402
from concomp.testing import assert_minimum_spanning_forest, assert_spanning_forest  # noqa: E402
from fuzz_strategies import (  # noqa: E402
    FUZZ,
    NUM_NODES,
    graphs,
    id_arrays,
    only_documented,
    weights,
)

pytestmark = pytest.mark.gpu

#: ``auto`` (Rem-CAS on graphs this small), a sampler of each kind and the families.
CC_ALGORITHMS = [
    "auto",
    "afforest",
    "hb3-rem_cas-splice-csr",
    "koutl-rem_cas-splice-csr",
    "bfs-async-halve-csr",
    "union-find",
    "sv",
    "lp",
    "soman",
    "stages",
]
FOREST_ALGORITHMS = ["auto", "union-find", "soman"]
STREAM_ALGORITHMS = ["auto", "rem", "none-hooks-halve-coo"]


@pytest.fixture(scope="module")
def cp() -> Any:
    import cupy

    return cupy


def _form(cp: Any, g: Any, form: str) -> Any:
    s, d = cp.asarray(g.src), cp.asarray(g.dst)
    if form == "2xm":
        return cp.stack([s, d])
    if form == "graph":
        return concomp.Graph.from_edges(s, d, g.n)
    return (s, d)


@settings(FUZZ, max_examples=60)
@given(
    g=graphs(),
    algorithm=st.sampled_from(CC_ALGORITHMS),
    form=st.sampled_from(["pair", "2xm", "graph"]),
    wide=st.booleans(),
)
def test_gpu_connected_components_match_the_cpu(cp, g, algorithm, form, wide) -> None:
    # 64-bit kernels on a small graph for the default algorithm only: each variant
    # compiles its kernels once per index type
    opts = Options(index_dtype="int64") if wide and algorithm == "auto" else None
    count, labels = concomp.connected_components(
        _form(cp, g, form),
        num_nodes=None if form == "graph" else g.n,
        device="gpu",
        algorithm=algorithm,
        options=opts,
    )
    ref_count, ref = concomp.connected_components((g.src, g.dst), num_nodes=g.n, device="cpu")
    assert count == ref_count
    np.testing.assert_array_equal(cp.asnumpy(labels), ref)


@settings(FUZZ, max_examples=40)
@given(g=graphs(), algorithm=st.sampled_from(FOREST_ALGORITHMS))
def test_gpu_spanning_forest_is_a_spanning_forest(cp, g, algorithm) -> None:
    f = concomp.spanning_forest(
        _form(cp, g, "pair"), num_nodes=g.n, device="gpu", algorithm=algorithm
    )
    assert_spanning_forest((g.src, g.dst), f)
    ref = concomp.spanning_forest((g.src, g.dst), num_nodes=g.n, device="cpu")
    assert f.num_components == ref.num_components


@settings(FUZZ, max_examples=40)
@given(
    data=st.data(),
    g=graphs(),
    algorithm=st.sampled_from(["auto", "boruvka", "prim"]),
    packed=st.booleans(),
)
def test_gpu_minimum_spanning_forest_matches_the_cpu(cp, data, g, algorithm, packed) -> None:
    w = data.draw(weights(g.src.shape[0]))
    host = concomp.Graph.from_edges(g.src, g.dst, g.n, weights=w)
    dev = concomp.Graph.from_edges(cp.asarray(g.src), cp.asarray(g.dst), g.n, weights=cp.asarray(w))
    f = concomp.minimum_spanning_forest(
        dev, device="gpu", algorithm=algorithm, options=Options(msf_packed_keys=packed)
    )
    assert_minimum_spanning_forest(host, f)
    ref = concomp.minimum_spanning_forest(host, device="cpu")
    np.testing.assert_array_equal(cp.asnumpy(f.edge_ids), ref.edge_ids)


@settings(FUZZ, max_examples=40)
@given(
    data=st.data(),
    g=graphs(max_edges=300),
    batches=st.integers(1, 6),
    streamed=st.booleans(),
    declared=st.booleans(),
)
def test_gpu_incremental_batches_match_the_cpu(cp, data, g, batches, streamed, declared) -> None:
    m = int(g.src.shape[0])
    ops = np.array(
        data.draw(st.lists(st.integers(0, 1), min_size=m, max_size=m)), dtype=np.int8
    ).reshape(m)
    size = max(1, -(-m // batches))
    n0 = g.n if declared else None
    cpu = concomp.IncrementalConnectivity(n0, device="cpu")
    gpu = concomp.IncrementalConnectivity(n0, device="gpu")
    if streamed:
        want = cpu.process_batches(ops, g.src, g.dst, size)
        got = cp.asnumpy(
            gpu.process_batches(cp.asarray(ops), cp.asarray(g.src), cp.asarray(g.dst), size)
        )
    else:
        want = np.zeros(m, bool)
        got = np.zeros(m, bool)
        for a in range(0, m, size):
            part = slice(a, a + size)
            want[part] = cpu.process(ops[part], g.src[part], g.dst[part])
            got[part] = cp.asnumpy(
                gpu.process(cp.asarray(ops[part]), cp.asarray(g.src[part]), cp.asarray(g.dst[part]))
            )
    queries = ops == 1
    np.testing.assert_array_equal(got[queries], want[queries])
    for a in range(0, m, size):  # which insert joins is up to the threads; how many is not
        part = slice(a, a + size)
        assert got[part][~queries[part]].sum() == want[part][~queries[part]].sum()
    assert gpu.num_nodes == cpu.num_nodes and gpu.num_components == cpu.num_components
    np.testing.assert_array_equal(cp.asnumpy(gpu.labels()), cpu.labels())
    inserted = (g.src[~queries], g.dst[~queries])
    assert_spanning_forest(inserted, gpu.spanning_forest())


@settings(FUZZ, max_examples=40)
@given(
    g=graphs(),
    pieces=st.integers(1, 5),
    on_device=st.booleans(),
    declared=st.booleans(),
    algorithm=st.sampled_from(STREAM_ALGORITHMS),
)
def test_gpu_stream_components_match_the_cpu(cp, g, pieces, on_device, declared, algorithm):
    m = int(g.src.shape[0])
    cuts = np.linspace(0, m, pieces + 1).astype(int)
    host = [(g.src[a:b], g.dst[a:b]) for a, b in itertools.pairwise(cuts)]
    chunks = [(cp.asarray(s), cp.asarray(d)) for s, d in host] if on_device else host
    n = g.n if declared else None
    count, labels = concomp.stream_components(
        chunks, num_nodes=n, device="gpu", algorithm=algorithm, chunk_edges=256
    )
    ref_count, ref = concomp.stream_components(host, num_nodes=n, device="cpu")
    assert count == ref_count
    np.testing.assert_array_equal(cp.asnumpy(labels), ref)


ENTRIES = ["cc", "forest", "msf", "stream", "incremental", "csr", "graph"]


def _on_device(cp: Any, a: Any) -> Any:
    """``a`` as a CuPy array where CuPy holds its dtype (object arrays stay on the host)."""
    return a if a is None or a.dtype == object else cp.asarray(a)


@settings(FUZZ, max_examples=60)
@given(
    data=st.data(),
    m=st.integers(0, 12),
    extra=st.integers(-1, 1),
    n=NUM_NODES,
    which=st.sampled_from(ENTRIES),
    on_device=st.booleans(),
)
def test_gpu_hostile_input_raises_documented_errors(cp, data, m, extra, n, which, on_device):
    src = data.draw(id_arrays(m))
    dst = data.draw(id_arrays(max(0, m + extra)))
    w = data.draw(st.one_of(st.none(), id_arrays(m)))
    if on_device:
        src, dst, w = (_on_device(cp, a) for a in (src, dst, w))
    small = n if isinstance(n, int) and 0 <= n <= 80 else None
    calls = {
        "cc": lambda: concomp.connected_components((src, dst), num_nodes=n, device="gpu"),
        "forest": lambda: concomp.spanning_forest((src, dst), num_nodes=n, device="gpu"),
        "msf": lambda: concomp.minimum_spanning_forest(
            (src, dst) if w is None else (src, dst, w),
            device="gpu",
            algorithm=data.draw(st.sampled_from(["boruvka", "prim"])),
        ),
        "stream": lambda: concomp.stream_components([(src, dst)], num_nodes=n, device="gpu"),
        "incremental": lambda: concomp.IncrementalConnectivity(small, device="gpu").insert(
            src, dst
        ),
        "csr": lambda: concomp.connected_components(
            concomp.Graph.from_csr(src, dst, num_nodes=n), device="gpu"
        ),
        "graph": lambda: concomp.connected_components(
            concomp.Graph.from_edges(src, dst, num_nodes=n), device="gpu"
        ),
    }
    only_documented(calls[which])
    assert int(cp.arange(4).sum()) == 6  # the device still answers in this process
