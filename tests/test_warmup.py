"""``concomp.warmup`` and ``concomp warmup``: the kernels compiled ahead of time."""

from __future__ import annotations

import json

import pytest

import concomp
from concomp.cli import main
from concomp.warmup import WARMUP_TARGETS


def test_warmup_cpu_runs_every_target():
    from concomp._shared import staging

    took = concomp.warmup(device="cpu")
    assert list(took) == [f"cpu:{t}" for t in WARMUP_TARGETS]
    assert all(t >= 0 for t in took.values())
    assert staging.PARALLEL_MIN == 1 << 19  # staged through the kernels, then restored


def test_warmup_auto_without_gpu_compiles_the_cpu_kernels(gpu_available):
    if gpu_available:
        pytest.skip("a GPU is usable here: auto warms it up too")
    assert list(concomp.warmup(what=("components",))) == ["cpu:components"]


def test_warmup_gpu_without_gpu_raises(gpu_available):
    if gpu_available:
        pytest.skip("a GPU is usable here")
    with pytest.raises(concomp.DeviceUnavailableError):
        concomp.warmup(device="gpu", what=("components",))


def test_warmup_rejects_unknown_targets():
    with pytest.raises(concomp.InvalidOptionsError, match="components"):
        concomp.warmup(device="cpu", what=("components", "everything"))


def test_cli_warmup_reports_each_target(capsys):
    assert main(["warmup", "--device", "cpu", "--what", "components", "forest", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["command"] == "warmup"
    assert sorted(report["time_s"]) == ["cpu:components", "cpu:forest"]


def test_cli_warmup_rejects_unknown_targets(capsys):
    assert main(["warmup", "--what", "everything"]) == 2


@pytest.mark.gpu
def test_warmup_gpu_compiles_what_later_calls_launch():
    """After a warm-up, the default calls on a new graph compile no further kernel."""
    from concomp._gpu import _build

    def compiled() -> int:
        _build.wait()  # modules a call started on worker threads count when built
        return _build.built()

    took = concomp.warmup(device="gpu")
    assert {k for k in took if k.startswith("gpu:")} == {f"gpu:{t}" for t in WARMUP_TARGETS}
    g = concomp.generators.gnm(20_000, 60_000, clean=False, seed=7)
    src, dst = g.coo()
    w = concomp.generators.random_weights(src.shape[0], seed=3)
    before = compiled()
    concomp.connected_components((src, dst), device="gpu")
    concomp.spanning_forest((src, dst), device="gpu")
    concomp.minimum_spanning_forest(concomp.as_graph((src, dst), weights=w), device="gpu")
    ic = concomp.IncrementalConnectivity(g.num_nodes, device="gpu")
    ic.insert(src, dst)
    concomp.stream_components([(src, dst)], g.num_nodes, device="gpu")
    assert compiled() == before
