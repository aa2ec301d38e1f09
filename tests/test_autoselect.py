"""The GPU ``algorithm="auto"`` rules, checked on host graphs (the rules only read
cheap statistics, so they run without a GPU)."""

from __future__ import annotations

import pytest

import concomp
from concomp._gpu import autoselect


@pytest.fixture
def large(monkeypatch):
    """Treat the small test graphs as large, to reach the degree-based rules."""
    monkeypatch.setattr(autoselect, "SMALL_ENTRIES", 0)


def test_small_graphs_take_the_three_kernel_coo_variant():
    g = concomp.generators.rmat(12, 8, seed=1)
    assert str(autoselect.choose(g)) == "none-rem_cas-splice-coo"


def test_road_like_graphs_skip_sampling(large):
    g = concomp.generators.gnm(4096, 5000, seed=2)  # average degree 2.4
    assert str(autoselect.choose(g)) == "none-rem_cas-splice-csr"


def test_meshes_take_kout_over_lower_neighbours(large):
    g = concomp.generators.grid(64, 64, torus=True, permute=True, seed=2)  # degree 4
    assert autoselect.LOW_DEGREE <= 4.0 < autoselect.MESH_DEGREE
    assert autoselect.degree_cv(g) < autoselect.SKEWED_CV
    assert str(autoselect.choose(g)) == "koutl-rem_cas-splice-csr"


def test_skewed_graphs_take_hook_based_sampling(large):
    g = concomp.generators.rmat(14, 16, seed=3)
    assert autoselect.degree_cv(g) > autoselect.SKEWED_CV
    assert str(autoselect.choose(g)) == "hb3-rem_cas-splice-csr"


def test_uniform_graphs_take_hook_based_sampling_with_eight_edges(large):
    g = concomp.generators.erdos_renyi_rmat(14, 16, seed=4)
    assert autoselect.degree_cv(g) < autoselect.SKEWED_CV
    assert str(autoselect.choose(g)) == "hb8-rem_cas-splice-csr"


def test_choice_is_cached_on_the_graph(large):
    g = concomp.generators.erdos_renyi_rmat(12, 16, seed=5)
    first = autoselect.choose(g)
    assert g._device_cache["auto_variant"] is first
    assert autoselect.choose(g) is first
