"""The GPU link order's choice (``concomp._gpu.link_order``): the probe runs on NumPy
graphs too, so it is checked here without a GPU; both orders run on the GPU in
``test_gpu_engine.py``."""

from __future__ import annotations

import numpy as np
import pytest

import concomp
from concomp._gpu.link_order import LOCAL_SHARE, keyed, keyed_stream, local_share
from concomp.errors import InvalidOptionsError
from concomp.generators import grid, path
from concomp.options import Options
from concomp.testing.adversarial import high_diameter_graphs


def _graph(src, dst, n):
    return concomp.Graph.from_edges(np.asarray(src), np.asarray(dst), n)


def test_ids_along_the_paths_are_keyed():
    for name, (src, dst, n) in high_diameter_graphs(1 << 12).items():
        g = _graph(src, dst, n)
        assert local_share(g) >= LOCAL_SHARE, name
        assert keyed(g, Options()), name


def test_permuted_and_random_ids_link_by_id():
    rng = np.random.default_rng(1)
    n = 1 << 14
    perm = rng.permutation(n)
    assert local_share(_graph(perm[:-1], perm[1:], n)) < 0.05
    assert not keyed(_graph(rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n), n), Options())
    assert not keyed(grid(128, 128, permute=True, seed=2), Options())


def test_csr_held_graphs_are_probed_from_their_rows():
    g = grid(200, 300)  # generated as a CSR, ids in row order
    assert not g.has_coo
    assert keyed(g, Options())
    assert not g.has_coo  # the probe does not expand the rows


def test_samples_do_not_alias_with_rows_of_one_length():
    """A CSR whose rows all hold two entries, a local one then a far one (as a one-way
    grid's rows), with 2 * 4095 * 64 entries: evenly spaced samples land on positions
    128 i - 1, every one a far entry after the first; one sample per stretch, placed by
    a hash, reads both kinds."""
    from concomp._shared.locality import sample_positions

    rows, width = 4095 * 64, 4096
    v = np.arange(rows)
    dst = np.stack([v + 1, v + width], axis=1).ravel()
    indptr = np.r_[np.arange(0, 2 * rows + 1, 2), np.full(width, 2 * rows)]
    g = concomp.Graph.from_csr(indptr, dst, rows + width, directed=True)
    even = np.linspace(0, dst.size - 1, 4096).astype(np.int64)
    assert np.all(even[1:] % 2 == 1)  # the trap: the far entry of every row sampled
    assert local_share(g) == pytest.approx(0.5, abs=0.05)
    for m, num in ((dst.size, 4096), (10, 10), (4097, 4096), (5, 1)):
        pos = sample_positions(np, m, num)
        stretch = (np.arange(num) * m) // num
        assert np.all(pos >= stretch) and np.all(pos < np.r_[stretch[1:], m])


def test_options_force_either_order_and_the_choice_is_cached():
    g = path(1000)
    assert not keyed(g, Options(link_order="id"))
    assert keyed(g, Options(link_order="keyed"))
    assert keyed(g, Options())
    assert g._device_cache["link_keyed"] is True
    empty = _graph(np.zeros(0, np.int64), np.zeros(0, np.int64), 5)
    assert local_share(empty) == 0.0 and not keyed(empty, Options())


def test_streams_are_keyed_unless_the_id_order_is_forced():
    assert keyed_stream(Options()) and keyed_stream(Options(link_order="keyed"))
    assert not keyed_stream(Options(link_order="id"))


@pytest.mark.parametrize("bad", ["ids", None, 1])
def test_link_order_option_is_validated(bad):
    with pytest.raises(InvalidOptionsError, match="link_order"):
        Options(link_order=bad)


def _probe_cases():
    from concomp.generators import gnm, rmat

    yield "grid-csr", grid(64, 64)
    yield "grid-permuted", grid(64, 64, permute=True)
    yield "rmat", rmat(12, 8, seed=3)
    yield "gnm-sparse", gnm(50_000, 20_000, seed=4)
    yield "path", path(100_000)
    src, dst, n = high_diameter_graphs(1 << 12)["comb"]
    yield "comb-coo", concomp.Graph.from_edges(src, dst, n)
    yield "comb-coo-int64", concomp.Graph.from_edges(src.astype(np.int64), dst, n)


@pytest.mark.gpu
@pytest.mark.parametrize("name", [name for name, _ in _probe_cases()])
def test_device_probe_matches_the_array_expressions(name):
    """The one-launch device probe (``concomp._gpu.probe``) gives the statistics the NumPy
    expressions give on the same graph, and caches them."""
    from concomp._gpu.autoselect import degree_cv

    host = dict(_probe_cases())[name]
    dev = host.to("gpu")
    want_share, want_cv = local_share(host), degree_cv(host)
    assert local_share(dev) == pytest.approx(want_share, abs=2 / 4096)
    assert degree_cv(dev) == pytest.approx(want_cv, rel=1e-9, abs=1e-12)
    assert "probe" in dev._device_cache
    assert keyed(dev, Options()) == keyed(host, Options())


def _device_arrays(host):
    """The arrays a user would hand over: a symmetric CSR and the one-direction pairs."""
    import cupy as cp

    indptr, indices, _ = host.undirected_csr()
    src, dst = host.coo()
    one = np.asarray(src) < np.asarray(dst)
    pairs = (cp.asarray(np.asarray(src)[one]), cp.asarray(np.asarray(dst)[one]))
    return (cp.asarray(indptr), cp.asarray(indices)), pairs


@pytest.mark.gpu
@pytest.mark.parametrize("name", [name for name, _ in _probe_cases()])
def test_validation_reads_the_probe_in_its_own_download(name, monkeypatch):
    """A graph built from device arrays knows its link order (and, a symmetric CSR large
    enough for auto to ask, its degree spread) from the input checks' one download: the
    first run launches no probe of its own, and the answers equal the probe's on the
    same graph."""
    import concomp.options
    from concomp._gpu import probe as probe_module
    from concomp._gpu.autoselect import degree_cv

    host = dict(_probe_cases())[name]
    (indptr, indices), (src, dst) = _device_arrays(host)
    n = host.num_nodes
    small = concomp.Graph.from_csr(indptr, indices, n, symmetric=True)
    assert "degree_cv" not in small._device_cache["probe"]  # auto would not ask for it
    # treat the test graph as large: auto reads its degrees, so validation does too
    monkeypatch.setattr(concomp.options, "DEFAULTS", Options(auto_small_entries=0))
    built = {
        "csr": concomp.Graph.from_csr(indptr, indices, n, symmetric=True),
        "pairs": concomp.Graph.from_edges(src, dst, n),
    }
    want = {}
    for kind in built:
        again = (
            concomp.Graph(n, indptr=indptr, indices=indices, symmetric=True)
            if kind == "csr"
            else concomp.Graph(n, src=src, dst=dst)
        )  # the same arrays, unvalidated: nothing cached
        want[kind] = (local_share(again), degree_cv(again))

    def no_probe(*args, **kwargs):
        raise AssertionError("the probe ran again after validation had read it")

    monkeypatch.setattr(probe_module, "launch", no_probe)
    for kind, g in built.items():
        assert local_share(g) == want[kind][0], kind
        assert keyed(g, Options()) == (want[kind][0] >= LOCAL_SHARE), kind
    assert degree_cv(built["csr"]) == pytest.approx(want["csr"][1], rel=1e-12, abs=1e-12)
    counts = {k: concomp.connected_components(g, device="gpu")[0] for k, g in built.items()}
    assert counts["csr"] == counts["pairs"] == concomp.connected_components(host)[0]


@pytest.mark.gpu
def test_invalid_device_input_caches_no_probe():
    """Input the fused checks reject goes to the general checks, which raise; a graph
    built without ``num_nodes`` reads no probe (its window depends on ``n``)."""
    import cupy as cp

    from concomp.errors import InvalidGraphError

    src, dst = cp.asarray([0, 1, 5]), cp.asarray([1, 2, 3])
    with pytest.raises(InvalidGraphError, match=r"dst|src"):
        concomp.Graph.from_edges(src, dst, 4)
    with pytest.raises(InvalidGraphError, match="indptr"):
        concomp.Graph.from_csr(cp.asarray([0, 2, 1, 3]), cp.asarray([1, 0, 2]), 3)
    g = concomp.Graph.from_edges(src, dst)
    assert "probe" not in g._device_cache
    # window 1 on 6 vertices: (0, 1) and (1, 2) are local, (5, 3) is not
    probed = concomp.Graph.from_edges(src, dst, 6)._device_cache["probe"]
    assert probed["local_share"] == pytest.approx(2 / 3)
