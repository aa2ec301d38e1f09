"""The CPU engine's union rules, taken from the registry through ``unite_for``.

Every (union rule, find rule) pair that ``concomp._rules`` gives the CPU runs
through the parallel COO kernel (on one thread and on all of numba's threads) and
as single unions, on graphs of the zoo, with int32 and int64 parents, and must
match SciPy's components.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from concomp import _rules
from concomp._cpu.rules import aux_for, unite_for
from concomp._cpu.unionfind import coo_unite, flatten, one_thread, rename_to_min
from concomp.testing import graph_zoo, reference_components

PAIRS = [(rule.name, c) for rule in _rules.union_rules_for("cpu") for c in rule.compress]
ZOO = graph_zoo(seed=3)
GRAPHS = [
    "empty",
    "self_loops",
    "duplicates",
    "path",
    "star",
    "two_cliques",
    "many_small",
    "gnm_1000_500",
    "gnm_3000_12000",
    "shuffled_path",
    "reversed_path",
    "star_tail",
]


def _min_roots(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """Each vertex's component's smallest vertex (what the CPU engine's roots are)."""
    count, labels = reference_components(src, dst, n)
    smallest = np.full(count, n, dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(n))
    return smallest[labels]


def _roots(p: np.ndarray, finish: str) -> np.ndarray:
    flatten(p)
    if _rules.union_rule(finish).reroots:
        rename_to_min(p)
    return p


def test_pairs_are_the_registry_rows_with_a_cpu_factory():
    assert ("async", "halve") in PAIRS and ("rem_cas", "splice") in PAIRS
    # the CPU runs every rule the GPU does
    assert {r.name for r in _rules.union_rules_for("cpu")} == set(_rules.UNION_RULES)
    for rule in _rules.UNION_RULES.values():
        for compress in rule.compress:
            if rule.supports("cpu"):
                assert callable(unite_for(rule.name, compress))
            else:
                with pytest.raises(KeyError, match="no union rule"):
                    unite_for(rule.name, compress)


@pytest.mark.parametrize("threads", ["one", "all"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize(("finish", "compress"), PAIRS, ids=[f"{f}-{c}" for f, c in PAIRS])
def test_kernel_roots_match_scipy(finish, compress, dtype, threads):
    unite = unite_for(finish, compress)
    no_hook = np.zeros(1, np.int64)
    for name in GRAPHS:
        src, dst, n = ZOO[name]
        p = np.arange(n, dtype=dtype)
        aux = aux_for(finish, n)
        with one_thread() if threads == "one" else contextlib.nullcontext():
            coo_unite(p, aux, src.astype(dtype), dst.astype(dtype), -1, no_hook, False, unite)
            _roots(p, finish)
        assert p.dtype == dtype
        np.testing.assert_array_equal(p, _min_roots(src, dst, n), err_msg=name)
        if _rules.union_rule(finish).aux:
            assert aux.shape == (max(n, 1),)


@pytest.mark.parametrize(("finish", "compress"), PAIRS, ids=[f"{f}-{c}" for f, c in PAIRS])
def test_each_link_returns_a_former_root(finish, compress):
    """``unite`` returns the root it linked (once per merge) or -1."""
    unite = unite_for(finish, compress)
    for name in ("two_cliques", "many_small", "gnm_1000_500", "star_tail"):
        src, dst, n = ZOO[name]
        p = np.arange(n, dtype=np.int64)
        aux = aux_for(finish, n)
        linked = []
        for u, v in zip(src.tolist(), dst.tolist()):
            r = int(unite(p, aux, u, v))
            if r >= 0:
                assert p[r] != r, (name, r)  # it stopped being a root
                linked.append(r)
        assert len(set(linked)) == len(linked) == n - reference_components(src, dst, n)[0]


_CACHE_PROBE = """
import numpy as np
from concomp._cpu.rules import unite_for
from concomp._cpu.unionfind import coo_unite
p, aux, hook = np.arange(4, dtype=np.int32), np.zeros(1, np.int32), np.zeros(1, np.int64)
e = (np.array([1, 3], np.int32), np.array([0, 2], np.int32))
coo_unite(p, aux, *e, -1, hook, False, unite_for("rem_cas", "halve"))
assert p.tolist() == [0, 0, 2, 2]
"""


def test_kernels_taking_a_rule_load_from_the_disk_cache(tmp_path):
    """A kernel specialised for a rule is compiled once, then loaded in the next process."""
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path),
        NUMBA_DEBUG_CACHE="1",
        PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"),
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", _CACHE_PROBE],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    loaded = [
        line
        for line in runs[1].stdout.splitlines()
        if "data loaded" in line and "coo_unite" in line
    ]
    assert loaded, runs[1].stdout[-3000:]
