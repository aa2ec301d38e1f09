"""The benchmark harness: the timer, the corpus, a quick run end to end, the renderer.

No timing is asserted: the timer is checked with an injected clock, the run for the
structure of its result file and for counts that agree with SciPy.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from concomp.bench import render
from concomp.bench.runners import ResultMismatchError, check_results
from concomp.bench.stats import bfs_depths, graph_statistics
from concomp.bench.timing import Timing, TooSlowError, measure, measure_rounds
from concomp.generators import grid, path
from concomp.generators.corpus import CORPUS, select


# --------------------------------------------------------------------------- timing
class FakeClock:
    """Returns the given readings one after another (seconds)."""

    def __init__(self, readings):
        self.readings = list(readings)

    def __call__(self):
        return self.readings.pop(0)


@pytest.mark.parametrize("reps", [0, 1, 4, True, 5.0])
def test_timing_rejects_fewer_than_five_reps(reps):
    with pytest.raises(ValueError, match="reps"):
        measure(lambda: None, reps=reps)


def test_timing_median_min_max_of_a_known_sequence():
    # warm-up reads the clock twice, then each of the 5 runs twice
    durations = [0.004, 0.001, 0.003, 0.010, 0.002]
    readings = [0.0, 0.5]
    t = 1.0
    for d in durations:
        readings += [t, t + d]
        t += 1.0
    calls = []
    timing = measure(lambda: calls.append(1), reps=5, clock=FakeClock(readings))
    assert len(calls) == 6  # one warm-up, five timed
    assert timing.times_ms == pytest.approx([4.0, 1.0, 3.0, 10.0, 2.0])
    assert timing.median_ms == pytest.approx(3.0)
    assert (timing.min_ms, timing.max_ms) == pytest.approx((1.0, 10.0))
    d = timing.to_dict()
    assert d["times_ms"] == pytest.approx([4.0, 1.0, 3.0, 10.0, 2.0])
    assert d["clock"] == "perf_counter" and d["warmup"] == 1


def test_rounds_time_each_call_once_a_round_starting_one_further_on():
    order = []
    fns = {k: (lambda k=k: order.append(k)) for k in "abc"}
    # each timed run reads the clock twice; call c of round r takes r + 1 ms
    readings, t = [], 0.0
    for r in range(5):
        for _ in "abc":
            readings += [t, t + (r + 1) / 1e3]
            t += 1.0
    timings = measure_rounds(fns, reps=5, clock=FakeClock(readings))
    assert order[:3] == list("abc")  # the warm-up: each once, untimed
    rounds = ["".join(order[3 + 3 * r : 6 + 3 * r]) for r in range(5)]
    assert rounds == ["abc", "bca", "cab", "abc", "bca"]
    for key in "abc":
        assert timings[key].times_ms == pytest.approx([1.0, 2.0, 3.0, 4.0, 5.0])
        assert timings[key].median_ms == pytest.approx(3.0)
    with pytest.raises(ValueError, match="reps"):
        measure_rounds(fns, reps=4)


def test_timing_setup_runs_untimed_and_feeds_the_call():
    seen = []
    made = iter(range(100))
    timing = measure(seen.append, reps=5, warmup=2, setup=lambda: next(made))
    assert seen == list(range(7)) and isinstance(timing, Timing)


def test_timing_gives_up_on_a_slow_warmup():
    with pytest.raises(TooSlowError, match="over the limit"):
        measure(lambda: None, reps=5, limit_s=1.0, clock=FakeClock([0.0, 2.5]))


# --------------------------------------------------------------------------- corpus
def test_corpus_names_unique_and_tags_cover_the_kinds():
    names = [e.name for e in CORPUS.values()]
    assert len(names) == len(set(names)) and len(names) >= 25
    tags = set().union(*(e.tags for e in CORPUS.values()))
    kinds = {
        "rmat", "isolated", "uniform", "sparse", "dense", "grid-natural", "grid-permuted",
        "grid3d", "knn", "mesh", "delaunay", "preferential", "path", "chain", "forest",
        "many-components", "stars", "hubs", "high-diameter", "suite", "real", "road",
        "social", "citation", "web-like",
    }  # fmt: skip
    assert kinds <= tags, kinds - tags
    assert [e.name for e in select(tags=["suite"])] == ["rmat22", "er22", "gridp4k", "cong22"]
    ef = {e.full["edge_factor"] for e in CORPUS.values() if e.source == "rmat"}
    assert min(ef) == 4 and max(ef) == 32


def test_suite_graphs_keep_their_parameters():
    assert CORPUS["rmat22"].full == {"scale": 22, "edge_factor": 16, "a": 0.57, "b": 0.19,
                                     "c": 0.19}  # fmt: skip
    assert CORPUS["er22"].full["a"] == CORPUS["er22"].full["c"] == 0.25
    assert CORPUS["cong22"].full["a"] == 0.45
    assert CORPUS["gridp4k"].full == {"rows": 4096, "cols": 4096, "permute": True}


@pytest.mark.parametrize("name", [e.name for e in CORPUS.values() if not e.is_real])
def test_every_generated_entry_builds_at_quick_size(name):
    entry = CORPUS[name]
    g = entry.build("cpu", quick=True)
    assert g.device == "cpu" and 0 < g.num_nodes <= 1 << 17
    if entry.directed:  # arcs as generated, for strongly connected components
        assert g.directed and not g.symmetric and "directed" in entry.tags
        return
    assert g.symmetric
    gw = entry.build("cpu", quick=True, weights="int")
    w = np.asarray(gw.weights)
    assert w.shape[0] == g.num_edges and w.min() >= 1


def test_real_entries_skip_with_a_reason_when_the_folder_is_absent(monkeypatch, tmp_path):
    monkeypatch.setenv("CONCOMP_REAL_DATA", str(tmp_path / "none"))
    real = [e for e in CORPUS.values() if e.is_real]
    assert real and all("absent" in e.skip_reason() for e in real)
    with pytest.raises(FileNotFoundError, match="absent"):
        real[0].build()
    monkeypatch.setenv("CONCOMP_REAL_DATA", str(tmp_path))
    assert "is not in" in real[0].skip_reason()


def test_select_rejects_unknown_tags():
    with pytest.raises(ValueError, match="unknown tag"):
        select(tags=["nope"])


# --------------------------------------------------------------------------- statistics
def test_statistics_of_known_graphs():
    s = graph_statistics(grid(5, 7))
    assert (s["n"], s["m"], s["components"], s["diameter_estimate"]) == (35, 58, 1, 10)
    assert s["max_degree"] == 4 and s["largest_component_share"] == 1.0
    p = graph_statistics(path(100, permute=True))
    assert p["diameter_estimate"] == 99 and p["id_locality"] > 0.1
    assert graph_statistics(path(100))["id_locality"] == pytest.approx(0.01)


def test_bfs_depths_match_scipy_shortest_paths():
    from scipy.sparse.csgraph import shortest_path

    g = CORPUS["tree-forest"].build(quick=True)
    indptr, indices, _ = g.csr()
    a = sp.csr_array((np.ones(indices.shape[0]), indices, indptr), shape=(g.num_nodes,) * 2)
    want = shortest_path(a, unweighted=True, indices=5, directed=False)
    got = bfs_depths(a, 5)
    np.testing.assert_array_equal(got, np.where(np.isinf(want), -1, want).astype(np.int64))


# --------------------------------------------------------------------------- result check
def test_check_results_raises_with_every_result_side_by_side():
    rows = [
        {"system": "concomp", "mode": "prebuilt", "variant": None, "result": {"components": 3}},
        {"system": "scipy", "mode": "peer", "variant": None, "result": {"components": 4}},
    ]
    with pytest.raises(ResultMismatchError) as err:
        check_results("cc", "g", rows, {"components": 4})
    text = str(err.value)
    assert "concomp prebuilt" in text and "<- differs" in text and "scipy" in text
    check_results("cc", "g", rows[1:], {"components": 4})


# --------------------------------------------------------------------------- a quick run
QUICK_GRAPHS = ["gridp4k", "tree-forest", "stars-many"]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    from concomp.bench.cli import main

    out = tmp_path_factory.mktemp("bench") / "run.json"
    argv = ["cc", "forest", "incremental", "streaming", "msf", "--quick", "--graphs",
            *QUICK_GRAPHS, "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    return out, json.loads(out.read_text())


def test_quick_run_writes_one_file_with_everything(quick_run):
    _, doc = quick_run
    assert doc["schema"] == 1 and doc["device"] == "cpu" and doc["quick"] is True
    assert doc["problems"] == ["cc", "forest", "incremental", "streaming", "msf"]
    assert {"cpu", "cores"} <= set(doc["machine"])
    assert {"python", "numpy", "scipy", "numba", "concomp", "concomp_commit"} <= set(
        doc["versions"]
    )
    assert list(doc["graphs"]) == QUICK_GRAPHS
    for g in doc["graphs"].values():
        assert {"n", "m", "components", "largest_component_share", "max_degree", "mean_degree",
                "degree_cv", "diameter_estimate", "id_locality"} <= set(g["stats"])  # fmt: skip
    for problem in doc["problems"]:
        for graph in QUICK_GRAPHS:
            rows = [r for r in doc["rows"] if r["problem"] == problem and r["graph"] == graph]
            modes = {r["mode"] for r in rows if r["system"] == "concomp"}
            assert "internal" in modes and len(modes) >= 2, (problem, graph, modes)
            for r in rows:
                t = r["timing"]
                assert len(t["times_ms"]) == 5 and t["min_ms"] <= t["median_ms"] <= t["max_ms"]
    systems = {r["system"] for r in doc["rows"] if r["problem"] == "cc"}
    assert {"concomp", "scipy", "networkx"} <= systems
    assert doc["machine"]["numba_threads"] >= 1


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc (Linux)")
def test_quick_run_reports_host_memory_of_concomp_and_scipy(quick_run):
    """The cc rows of concomp's public call and of SciPy carry the host bytes one call
    adds at its peak, in all and per CSR entry."""
    _, doc = quick_run
    for graph in QUICK_GRAPHS:
        for system, mode in (("concomp", "prebuilt"), ("scipy", "peer")):
            (r,) = [x for x in doc["rows"] if (x["problem"], x["graph"], x["system"], x["mode"])
                    == ("cc", graph, system, mode)]  # fmt: skip
            mem = r["memory"]
            assert mem["peak_added_bytes"] >= 0 and mem["memory_method"]
            assert mem["peak_bytes_per_entry"] * 2 * doc["graphs"][graph]["stats"]["m"] == (
                pytest.approx(mem["peak_added_bytes"])
            )


def test_checkpoints_leave_every_finished_graph(tmp_path):
    from concomp.bench.harness import Settings, run_benchmark
    from concomp.bench.render import render

    seen: list[tuple[list[str], bool]] = []
    entries = [CORPUS[name] for name in QUICK_GRAPHS[1:]]
    doc = run_benchmark(
        ["cc"],
        entries,
        Settings(device="cpu", reps=5, cpu_peers=False),
        quick=True,
        checkpoint=lambda d: seen.append((list(d["graphs"]), d["complete"])),
    )
    assert seen == [(QUICK_GRAPHS[1:2], False), (QUICK_GRAPHS[1:], False)]
    assert doc["complete"] is True
    partial = dict(doc, complete=False)
    out = tmp_path / "partial.json"
    out.write_text(json.dumps(partial))
    render(out, out_dir=tmp_path, summary=False)
    assert "incomplete run" in (tmp_path / "RESULTS.md").read_text()


def test_quick_run_counts_agree_with_scipy(quick_run):
    _, doc = quick_run
    for name in QUICK_GRAPHS:
        g = CORPUS[name].build(quick=True, weights="int")
        indptr, indices, _ = g.csr()
        n = g.num_nodes
        a = sp.csr_array((np.asarray(g.weights, np.float64), indices, indptr), shape=(n, n))
        count = connected_components(a, directed=False)[0]
        tree = minimum_spanning_tree(a)
        assert doc["graphs"][name]["stats"]["components"] == count
        for r in doc["rows"]:
            if r["graph"] != name:
                continue
            if r["problem"] == "msf":
                assert r["result"]["msf_weight"] == int(tree.sum())
            else:
                assert r["result"] == {"components": count}


def test_renderer_writes_results_page_and_readme_table(quick_run, tmp_path):
    path, doc = quick_run
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\nbefore\n{render.README_START}\nold\n{render.README_END}\nafter\n")
    page = render.render(path, tmp_path / "benchmarks", readme)
    text = page.read_text()
    assert path.name in text.splitlines()[2]
    for problem in doc["problems"]:
        assert f"## {problem}" in text
    scipy_ms = next(
        r["timing"]["median_ms"]
        for r in doc["rows"]
        if r["problem"] == "cc" and r["graph"] == "gridp4k" and r["system"] == "scipy"
    )
    assert render._ms(scipy_ms) in text
    new = readme.read_text()
    assert "old" not in new and "before" in new and "after" in new and path.name in new
    assert "| gridp4k |" in new


def test_renderer_closes_results_page_with_the_host_input_table(quick_run, tmp_path):
    path, _ = quick_run
    host = tmp_path / "host-input.json"
    times = {"numpy pair int64 / cpu": [3.0], "stream_components cpu": [6.0]}
    graph = {"n": 16, "m": 20, "count": 2, "times_ms": times}
    host.write_text(json.dumps({"benchmark": "host-input", "graphs": {"rmat4": graph}}))
    assert render.main([str(path), "--out-dir", str(tmp_path), "--no-readme",
                        "--host-input", str(host)]) == 0  # fmt: skip
    text = (tmp_path / "RESULTS.md").read_text()
    section = text[text.index("## Host input") :]
    assert text.index("## cc") < text.index("## Host input") and f"`{host.name}`" in section
    assert "| numpy pair int64 | cpu | 3.00 | 0.50 | - | - | - |" in section.splitlines()
    host.write_text(json.dumps({"benchmark": "renumber", "graphs": {}}))
    assert render.main([str(path), "--out-dir", str(tmp_path), "--host-input", str(host)]) == 2


def test_renderer_refuses_a_file_it_did_not_write(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"rows": []}))
    assert render.main([str(bad), "--out-dir", str(tmp_path)]) == 2


def test_readme_has_the_summary_markers():
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert text.index(render.README_START) < text.index(render.README_END)


def test_igraph_runs_start_from_an_empty_property_cache():
    """igraph answers a graph it has cached as connected without a search: every timed
    igraph call empties that cache first, so the warm-up cannot do the timed runs' work."""
    from concomp.bench.cpu_peers import _uncached

    events: list[str] = []

    class CachingGraph:  # stands in for an igraph.Graph
        def __init__(self) -> None:
            setattr(self, "__invalidate_cache", lambda: events.append("invalidate"))

        def connected_components(self) -> str:
            events.append("search")
            return "clusters"

    g = CachingGraph()
    measure(_uncached(g, g.connected_components), reps=5)
    assert events == ["invalidate", "search"] * 6  # the warm-up and five timed runs


def test_igraph_without_a_cache_reset_is_refused(monkeypatch):
    """An igraph that cannot empty its cache would be timed on cached answers: refused."""
    from concomp.bench import cpu_peers

    monkeypatch.setattr(cpu_peers, "_igraph_version", lambda: "0.9.0")

    class OldGraph:
        def connected_components(self) -> str:
            return "clusters"

    with pytest.raises(RuntimeError, match=r"0\.9\.0 has no Graph.__invalidate_cache"):
        cpu_peers._uncached(OldGraph(), OldGraph().connected_components)


def test_cpu_runs_load_the_compiled_kernels_before_timing(monkeypatch):
    """Every CPU row times the compiled kernels: the harness loads them first, so a small
    graph is not answered by the NumPy start in one run and by the kernels in another."""
    import importlib

    from concomp.bench.harness import Settings, run_benchmark

    module = importlib.import_module("concomp.warmup")  # `concomp.warmup` is the function
    calls: list[tuple] = []
    monkeypatch.setattr(module, "warmup", lambda device, what: calls.append((device, tuple(what))))
    run_benchmark(
        ["cc"], [CORPUS[QUICK_GRAPHS[1]]], Settings(device="cpu", reps=5, cpu_peers=False),
        quick=True,
    )  # fmt: skip
    assert calls == [("cpu", ("components",))]
