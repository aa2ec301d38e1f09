"""The GPU ``algorithm="auto"`` rules, checked on host graphs (the rules only read
cheap statistics, so they run without a GPU)."""

from __future__ import annotations

import pytest

import concomp
from concomp._gpu import autoselect
from concomp.options import DEFAULTS, Options


@pytest.fixture
def large():
    """Options that treat the small test graphs as large, to reach the degree-based rules."""
    return Options(auto_small_entries=0)


def test_small_graphs_take_the_unsampled_finish_on_the_layout_they_hold():
    g = concomp.generators.rmat(12, 8, seed=1)  # a symmetric CSR
    assert autoselect.held_layout(g) == "csr"
    assert str(autoselect.choose(g, DEFAULTS)) == "none-rem_cas-splice-csr"
    pairs = concomp.as_graph(g.coo())  # the same edges as pairs: no CSR held
    assert autoselect.held_layout(pairs) == "coo"
    assert str(autoselect.choose(pairs, DEFAULTS)) == "none-rem_cas-splice-coo"
    assert pairs._ucsr is None  # choosing built nothing


def test_a_csr_not_flagged_symmetric_holds_no_symmetric_csr():
    g = concomp.generators.rmat(12, 8, seed=1)
    indptr, indices, _ = g.csr()
    one_way = concomp.Graph.from_csr(indptr, indices)  # not flagged symmetric
    assert autoselect.held_layout(one_way) == "coo"
    one_way.undirected_rows()
    assert autoselect.held_layout(one_way) == "csr"


def test_road_like_graphs_skip_sampling(large):
    g = concomp.generators.gnm(4096, 5000, seed=2)  # average degree 2.4
    assert str(autoselect.choose(g, large)) == "none-rem_cas-splice-csr"
    src, dst = g.coo()
    one_way = src < dst  # each edge once, as an edge list gives it
    pairs = concomp.as_graph((src[one_way], dst[one_way]))
    assert str(autoselect.choose(pairs, large)) == "none-rem_cas-splice-coo"


def test_meshes_take_kout_over_lower_neighbours(large):
    g = concomp.generators.grid(64, 64, torus=True, permute=True, seed=2)  # degree 4
    assert autoselect.LOW_DEGREE <= 4.0 < autoselect.MESH_DEGREE
    assert autoselect.degree_cv(g) < autoselect.SKEWED_CV
    assert str(autoselect.choose(g, large)) == "koutl-rem_cas-splice-csr"


def test_skewed_graphs_take_hook_based_sampling(large):
    g = concomp.generators.rmat(14, 16, seed=3)
    assert autoselect.degree_cv(g) > autoselect.SKEWED_CV
    assert str(autoselect.choose(g, large)) == "hb3-rem_cas-splice-csr"


def test_uniform_graphs_take_hook_based_sampling_with_eight_edges(large):
    g = concomp.generators.erdos_renyi_rmat(14, 16, seed=4)
    assert autoselect.degree_cv(g) < autoselect.SKEWED_CV
    assert str(autoselect.choose(g, large)) == "hb8-rem_cas-splice-csr"


def test_choice_is_cached_on_the_graph(large):
    g = concomp.generators.erdos_renyi_rmat(12, 16, seed=5)
    first = autoselect.choose(g, large)
    assert autoselect.choose(g, large) is first
    assert autoselect.choose(g, Options(auto_small_entries=0)) is first  # equal options
    assert str(autoselect.choose(g, DEFAULTS)) == "none-rem_cas-splice-csr"  # not the cache


def test_edge_lists_whose_csr_would_not_fit_take_the_coo_finish(large, monkeypatch):
    """Building the symmetric CSR (a sort of every entry) must fit half the free device
    memory; an edge list beyond that runs the unsampled COO finish, which needs none."""
    src, dst = concomp.generators.rmat(14, 16, seed=3).coo()
    g = concomp.as_graph((src, dst))  # an edge list: no CSR yet
    need = autoselect.csr_build_bytes(g)
    assert need > 2 * g.num_edges * 40
    monkeypatch.setattr(autoselect, "_device_free", lambda graph: 2 * need)
    assert str(autoselect.choose(g, large)) == "none-rem_cas-splice-coo"  # its first run
    assert str(autoselect.choose(g, large)) == "hb3-rem_cas-splice-csr"
    g2 = concomp.as_graph((src, dst))
    monkeypatch.setattr(autoselect, "_device_free", lambda graph: 2 * need - 1)
    autoselect.choose(g2, large)
    assert str(autoselect.choose(g2, large)) == "none-rem_cas-splice-coo"
    g2.undirected_csr()  # a graph that holds its CSR costs nothing more
    assert autoselect.csr_build_bytes(g2) == 0


def test_host_graphs_ignore_device_memory():
    g = concomp.generators.rmat(10, 8, seed=1)
    assert autoselect._device_free(g) is None


def test_an_edge_list_runs_the_coo_finish_first_and_the_rules_when_run_again(large):
    """Sampling needs the symmetric CSR, whose sort costs more than the unsampled COO
    finish: a graph held as pairs is run without it the first time, and builds it only
    when the rules pick a sampled variant for a later run (then cached)."""
    src, dst = concomp.generators.rmat(14, 16, seed=3).coo()
    g = concomp.as_graph((src, dst))
    assert str(autoselect.choose(g, large)) == "none-rem_cas-splice-coo"
    assert g._ucsr is None  # the first choice built nothing
    second = autoselect.choose(g, large)
    assert str(second) == "hb3-rem_cas-splice-csr"
    assert autoselect.choose(g, large) is second
    held = concomp.generators.rmat(14, 16, seed=3)  # holds its symmetric CSR
    assert str(autoselect.choose(held, large)) == "hb3-rem_cas-splice-csr"


@pytest.mark.gpu
def test_device_edge_lists_run_the_coo_finish_first(caplog):
    """Through the public call on device pairs: the first run takes the COO finish and
    builds no CSR, the second the sampled rule's variant; both give SciPy's labels."""
    import logging

    import cupy as cp

    host = concomp.generators.rmat(16, 16, seed=3)
    src, dst = host.coo()
    one = src < dst
    g = concomp.Graph.from_edges(cp.asarray(src[one]), cp.asarray(dst[one]), host.num_nodes)
    want = concomp.connected_components(host)[1]
    opts = Options(auto_small_entries=0)
    with caplog.at_level(logging.DEBUG, logger="concomp"):
        first = concomp.connected_components(g, device="gpu", options=opts)[1]
        assert g._ucsr is None
        second = concomp.connected_components(g, device="gpu", options=opts)[1]
    ran = [r.getMessage() for r in caplog.records if "algorithm=auto ->" in r.getMessage()]
    assert "none-rem_cas-splice-coo" in ran[0] and "hb3-rem_cas-splice-csr" in ran[1]
    assert (cp.asnumpy(first) == want).all() and (cp.asnumpy(second) == want).all()
