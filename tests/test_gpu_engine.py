"""GPU engine: every variant of the registry, int32 and int64 kernels, against SciPy.

Marked ``gpu``: skipped with the reason where CuPy or a device is missing.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp.options import DEFAULTS, Options
from concomp.variants import all_variants

pytestmark = pytest.mark.gpu


def _opts(dtype, **changes) -> Options:
    """Options forcing the kernels' index type ``dtype`` (int64 kernels on small graphs)."""
    return Options(index_dtype=np.dtype(dtype).name, **changes)


def _graphs():
    rng = np.random.default_rng(42)
    out = {}
    out["empty_edges"] = (np.zeros(0, np.int64), np.zeros(0, np.int64), 7)
    out["single"] = (np.zeros(0, np.int64), np.zeros(0, np.int64), 1)
    out["self_loops"] = (np.arange(5), np.arange(5), 5)
    path = rng.permutation(3000)
    out["shuffled_path"] = (path[:-1], path[1:], 3000)
    out["star"] = (np.zeros(2000, np.int64), np.arange(1, 2001), 2001)
    r, c = 60, 70
    ids = rng.permutation(r * c).reshape(r, c)
    out["grid_permuted"] = (
        np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()]),
        np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()]),
        r * c,
    )
    for name, n, m in (("sparse", 5000, 2500), ("critical", 5000, 5000), ("dense", 3000, 60000)):
        out[name] = (rng.integers(0, n, m), rng.integers(0, n, m), n)
    # a hub joined to many small components plus duplicates
    s = np.concatenate([np.zeros(500, np.int64), rng.integers(1, 4000, 3000)])
    d = np.concatenate([rng.integers(1, 4000, 500), rng.integers(1, 4000, 3000)])
    out["hub_dups"] = (np.concatenate([s, s]), np.concatenate([d, d]), 4000)
    # hubs whose rows span one, two and three of finish_heavy's pieces (4096 entries),
    # each the only link of its leaves: a piece left out leaves leaves apart. The hubs'
    # ids are above their leaves' so the unsampled finish unites from the hub's row.
    leaves = rng.permutation(25000)
    sizes, start, s, d = (9000, 4097, 4096, 4095), 0, [], []
    for hub, size in enumerate(sizes, start=25000):
        s.append(np.full(size, hub))
        d.append(leaves[start : start + size])
        start += size
    out["hub_pieces"] = (np.concatenate(s), np.concatenate(d), 25010)
    return out


GRAPHS = _graphs()


def _reference(src, dst, n):
    a = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    return scipy_cc(a, directed=True, connection="weak")


@pytest.fixture(scope="module")
def device_graphs():
    return {
        k: (concomp.Graph.from_edges(s, d, n).to("gpu"), _reference(s, d, n))
        for k, (s, d, n) in GRAPHS.items()
    }


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("variant", all_variants("gpu"), ids=str)
def test_every_gpu_variant(variant, dtype, device_graphs):
    import cupy as cp

    from concomp._gpu.components import canonical_labels, run_variant

    for name, (g, (count, labels)) in device_graphs.items():
        roots, _ = run_variant(g, variant, _opts(dtype))
        assert roots.dtype == dtype
        got_count, got = canonical_labels(roots)
        assert got_count == count, (name, str(variant))
        np.testing.assert_array_equal(cp.asnumpy(got), labels, err_msg=f"{name} {variant}")


@pytest.mark.parametrize("order", ["id", "keyed"])
@pytest.mark.parametrize("variant", all_variants("gpu"), ids=str)
def test_every_gpu_variant_in_both_link_orders(variant, order, device_graphs):
    """The zoo's graphs here have permuted ids, which ``auto`` links by id: force each order."""
    import cupy as cp

    from concomp._gpu.components import canonical_labels, run_variant

    for name, (g, (count, labels)) in device_graphs.items():
        roots, _ = run_variant(g, variant, Options(link_order=order))
        got_count, got = canonical_labels(roots)
        assert got_count == count, (name, str(variant), order)
        np.testing.assert_array_equal(cp.asnumpy(got), labels, err_msg=f"{name} {variant} {order}")


@pytest.mark.parametrize("order", ["id", "keyed"])
@pytest.mark.parametrize(
    "alg",
    [
        "none-rem_cas-splice-coo",
        "none-rem_cas-splice-csr",
        "hb3-rem_cas-splice-csr",
        "hb8-rem_cas-splice-csr",
        "koutl-rem_cas-splice-csr",
        "kout-rem_cas-splice-csr",
        "auto",
    ],
)
def test_large_graphs_repeated_runs_in_both_orders(alg, order, large_graphs):
    """Races show on large graphs only (hook-based sampling in the keyed order lost
    unions on R-MAT and deep-tree graphs of 2^22 vertices): the variants ``auto``
    chooses, three calls on one graph object (direct, captured, replayed)."""
    import cupy as cp

    opts = Options(link_order=order)
    for name, (g, ref) in large_graphs.items():
        for _ in range(3):
            count, labels = concomp.connected_components(g, algorithm=alg, options=opts)
            assert count == ref[0], (name, alg, order)
            np.testing.assert_array_equal(cp.asnumpy(labels), ref[1], err_msg=name)


@pytest.fixture(scope="module")
def large_graphs():
    """An R-MAT graph and a deep tree in depth-first order, 2^20 vertices each, on the
    device, with the CPU engine's labels."""
    from concomp.generators import rmat
    from concomp.testing.adversarial import high_diameter_graphs

    src, dst, n = high_diameter_graphs(1 << 20)["tree_dfs"]
    graphs = {
        "rmat20": rmat(20, 16, a=0.45, b=0.15, c=0.15, seed=4, device="gpu"),
        "tree_dfs": concomp.Graph.from_edges(src, dst, n).to("gpu"),
    }
    cpu = {k: concomp.connected_components(g.to("cpu"), device="cpu") for k, g in graphs.items()}
    return {k: (g, cpu[k]) for k, g in graphs.items()}


@pytest.mark.parametrize("variant", all_variants("gpu")[::7], ids=str)
def test_gpu_public_api_keeps_data_on_device(variant):
    import cupy as cp

    s, d, n = GRAPHS["critical"]
    count, labels = concomp.connected_components(
        (cp.asarray(s), cp.asarray(d)), num_nodes=n, algorithm=variant
    )
    assert isinstance(labels, cp.ndarray) and labels.dtype == np.int32
    ref = _reference(s, d, n)
    assert count == ref[0]
    np.testing.assert_array_equal(labels.get(), ref[1])


def test_gpu_symmetric_csr_input_and_coo_layout():
    import cupy as cp

    s, d, n = GRAPHS["dense"]
    a = sp.coo_matrix((np.ones(len(s)), (s, d)), shape=(n, n)).tocsr()
    a = (a + a.T).tocsr()
    g = concomp.Graph.from_csr(cp.asarray(a.indptr), cp.asarray(a.indices), n, symmetric=True)
    ref = _reference(s, d, n)
    for alg in ("none-async-halve-coo", "kout-rem_cas-splice-coo", "hb-jtb-split-csr", "auto"):
        count, labels = concomp.connected_components(g, algorithm=alg)
        assert count == ref[0]
        np.testing.assert_array_equal(labels.get(), ref[1])


def test_gpu_auto_device_for_host_input_and_output_device():
    s, d, n = GRAPHS["sparse"]
    count, labels = concomp.connected_components((s, d), num_nodes=n, device="gpu")
    assert isinstance(labels, np.ndarray)
    assert count == _reference(s, d, n)[0]


@pytest.mark.parametrize(
    "alg", ["kout-rem_cas-splice-csr", "none-jtb-split-coo", "hb-hooks-compress-csr"]
)
def test_repeat_calls_replay_the_cached_plan(alg):
    import cupy as cp

    from concomp._gpu.components import canonical_labels, run_variant
    from concomp.variants import Variant

    s, d, n = GRAPHS["critical"]
    g = concomp.Graph.from_edges(s, d, n).to("gpu")
    ref = _reference(s, d, n)
    results = [run_variant(g, Variant.parse(alg), DEFAULTS)[0]]
    assert g._device_cache.get("cc_plan") is None  # a graph run once is never captured
    results += [run_variant(g, Variant.parse(alg), DEFAULTS)[0] for _ in range(2)]
    assert g._device_cache.get("cc_plan") is not None
    for roots in results:
        count, labels = canonical_labels(roots)
        assert count == ref[0]
        np.testing.assert_array_equal(cp.asnumpy(labels), ref[1])
    # a replayed result is a fresh array: the next replay must not overwrite it
    assert results[1].data.ptr != results[2].data.ptr
    g.clear_device_cache()
    assert not g._device_cache


@pytest.mark.parametrize(
    "alg",
    [
        "hb1-rem_cas-splice-csr",
        "hb2-async-halve-coo",
        "kout1-rem_cas-splice-csr",
        "kout3-jtb-split-csr",
        "koutr3-early-compress-csr",
    ],
)
def test_non_default_sampling_parameters(alg, device_graphs):
    import cupy as cp

    from concomp._gpu.components import canonical_labels, run_variant
    from concomp.variants import Variant

    for name, (g, (count, labels)) in device_graphs.items():
        got_count, got = canonical_labels(run_variant(g, Variant.parse(alg), DEFAULTS)[0])
        assert got_count == count, (name, alg)
        np.testing.assert_array_equal(cp.asnumpy(got), labels, err_msg=f"{name} {alg}")


def test_auto_on_the_gpu_matches_scipy_for_every_rule():
    import cupy as cp

    from concomp._gpu.components import auto_variant, canonical_labels, component_roots

    opts = Options(auto_small_entries=0)  # small graphs through the rules of large ones
    for gen in (
        lambda: concomp.generators.rmat(14, 16, seed=3),
        lambda: concomp.generators.erdos_renyi_rmat(14, 16, seed=4),
        lambda: concomp.generators.grid(64, 64, permute=True, seed=2),
    ):
        host = gen()
        g = host.to("gpu")
        ref = concomp.connected_components(host, device="cpu")
        count, labels = canonical_labels(component_roots(g, auto_variant(g, opts), opts))
        assert count == ref[0]
        np.testing.assert_array_equal(cp.asnumpy(labels), ref[1])


def _hb_race_gadgets(count: int = 2000):
    """Edges on which hook-based sampling races: v's first neighbour w is larger (so v
    is not hooked), a smaller x links v first, and w lies in the big star that the
    finish skips. Unless the finish unites v's edge 0 itself, {x, v} and the star stay
    apart whenever x's thread ran before v's: the v are placed late (beyond the first
    pass of the grid-stride loop) and the x early, so that ordering is the likely one."""
    n = 4 << 20
    center, leaves = n - 1, np.arange(n - (1 << 19), n - 1)
    x = np.arange(count)
    v = 3 * (1 << 20) + np.arange(count) * 97
    w = leaves[:count]
    # star edges first (lowest ids): every leaf's first neighbour is the larger centre
    src = np.concatenate([np.full(leaves.size, center), v, x])
    dst = np.concatenate([leaves, w, v])
    return src, dst, n


@pytest.mark.parametrize(
    "alg",
    [
        "hb-rem_cas-splice-csr",
        "hb1-rem_cas-splice-csr",
        "hb-async-halve-csr",
        "hb2-early-split-csr",
    ],
)
def test_hook_based_sampling_keeps_edge_zero_of_linked_vertices(alg):
    import cupy as cp

    src, dst, n = _hb_race_gadgets()
    g = concomp.Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
    indptr, indices, _ = (cp.asnumpy(a) for a in g.undirected_csr())
    v = 3 * (1 << 20) + np.arange(2000) * 97
    assert (indices[indptr[v]] > v).all()  # the premise: v's edge 0 goes to a larger w
    count, labels = _reference(src, dst, n)
    for _ in range(3):  # a race: repeat (the plan cache replays the same launches)
        got_count, got = concomp.connected_components(g, algorithm=alg, device="gpu")
        assert got_count == count
        np.testing.assert_array_equal(cp.asnumpy(got), labels)


#: The kernels that walk one-sided where parents overflow L2: the unsampled CSR
#: finish and k-out over lower neighbours (whose finish may run over the COO).
ONE_SIDED = [
    v
    for v in all_variants("gpu")
    if v.family == "unionfind"
    and ((str(v).startswith("none-") and str(v).endswith("-csr")) or str(v).startswith("koutl"))
]


@pytest.mark.parametrize("variant", ONE_SIDED, ids=str)
def test_one_sided_finish_on_small_graphs(variant, device_graphs):
    """The one-sided Rem walk (used where parents overflow L2) forced on the zoo."""
    import cupy as cp

    from concomp._gpu.components import canonical_labels, run_variant
    from concomp._gpu.forest import records_forest, spanning_forest_ids
    from concomp.forest import SpanningForest
    from concomp.testing import assert_spanning_forest

    for name, (g, (count, labels)) in device_graphs.items():
        for dtype in (np.int32, np.int64):
            g.clear_device_cache()
            roots, _ = run_variant(g, variant, _opts(dtype, one_side_above_bytes=0))
            got_count, got = canonical_labels(roots)
            assert got_count == count, (name, str(variant))
            np.testing.assert_array_equal(cp.asnumpy(got), labels, err_msg=f"{name} {variant}")
        if records_forest(variant):  # not concurrent splicing (see _gpu/forest.py)
            g.clear_device_cache()
            ids, forest_count = spanning_forest_ids(g, variant, Options(one_side_above_bytes=0))
            src, dst = g.coo()
            assert_spanning_forest(
                g, SpanningForest(src[ids], dst[ids], ids, g.num_nodes, forest_count)
            )


def test_calls_from_several_threads_at_once():
    """A Dask GPU worker with several threads runs the engine's host-data calls
    concurrently (partition forests, merges, labels): each thread's result equals the
    same call made alone."""
    import threading

    rng = np.random.default_rng(17)
    jobs = []
    for i in range(8):
        n = 20_000 + 5_000 * i
        m = 3 * n
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        w = rng.integers(0, 8, m).astype(np.float64)
        jobs.append((src, dst, w, n))

    def run(src, dst, w, n):
        count, labels = concomp.connected_components((src, dst), num_nodes=n, device="gpu")
        forest = concomp.spanning_forest((src, dst), num_nodes=n, device="gpu")
        msf = concomp.minimum_spanning_forest((src, dst), w, device="gpu")
        return count, np.asarray(labels), forest.num_edges, msf.total_weight, msf.edge_ids

    alone = [run(*job) for job in jobs]
    together: list = [None] * len(jobs)
    errors: list = []

    def worker(k):
        try:
            for _ in range(3):
                together[k] = run(*jobs[k])
        except Exception as exc:  # reported below, with the job
            errors.append((k, exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    for k, (want, got) in enumerate(zip(alone, together)):
        assert want[0] == got[0], k
        np.testing.assert_array_equal(want[1], got[1])
        assert want[2] == got[2] == jobs[k][3] - want[0]
        assert want[3] == got[3]
        np.testing.assert_array_equal(np.asarray(want[4]), np.asarray(got[4]))


@pytest.mark.parametrize("roots_dtype", [np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_device_canonical_numbers_equal_the_numpy_numbering(roots_dtype, label_dtype):
    """``probe.canonical_numbers`` (a scan counting the roots, then one numbering pass)
    numbers components by their smallest vertex, as the NumPy passes do."""
    import cupy as cp

    from concomp._gpu.probe import canonical_numbers

    rng = np.random.default_rng(4)
    for n in (1, 2, 1000, 60_000):  # uint16 roots hold ids below 65536
        parent = np.minimum(np.arange(n), rng.integers(0, n, n))  # a root below each vertex
        roots = parent.copy()
        while not np.array_equal(roots, roots[roots]):
            roots = roots[roots]
        roots = roots.astype(roots_dtype)
        count, labels = canonical_numbers(cp.asarray(roots), label_dtype)
        is_root = roots == np.arange(n)
        want = (np.cumsum(is_root) - 1)[roots]
        assert count == int(is_root.sum())
        assert labels.dtype == np.dtype(label_dtype)
        np.testing.assert_array_equal(cp.asnumpy(labels), want)


class _Recorder:
    """Stands in for a run's kernel set and records which kernels it hands out."""

    def __init__(self, kernels) -> None:
        self.kernels, self.used = kernels, set()

    def __getattr__(self, key):
        if key in self.kernels.names:
            self.used.add(key)
        return getattr(self.kernels, key)


@pytest.mark.parametrize(
    "options",
    [Options(), Options(link_order="keyed"), Options(one_side_above_bytes=0)],
    ids=["id-order", "keyed", "one-sided"],
)
@pytest.mark.parametrize(
    "variant",
    [
        v
        for v in all_variants("gpu")
        if v.family == "unionfind" and str(v.sampling) not in ("stages",)
    ],
    ids=str,
)
def test_kernel_plan_holds_every_kernel_a_run_launches(variant, options, device_graphs):
    """A run compiles its plan side by side before it starts (``_gpu/_build.py``); a
    kernel it launches outside the plan would compile alone, after the others."""
    from concomp._gpu.forest import records_forest
    from concomp._gpu.unionfind import UnionFindRun

    for record in (False, True) if records_forest(variant) else (False,):
        for name in ("shuffled_path", "grid_permuted", "dense", "hub_dups"):
            g = device_graphs[name][0]
            run = UnionFindRun(g, variant, record, options)
            recorder = _Recorder(run.k)
            run.k = recorder
            run.execute()
            assert recorder.used <= set(run.kernel_plan()), (name, record, recorder.used)
