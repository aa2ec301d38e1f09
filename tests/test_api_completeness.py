"""Completeness guard: the public surface is documented and tested, and the test matrix
covers every variant the engines implement (taken from ``all_variants``, never a hand list).
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import concomp
from concomp import all_variants, csgraph, testing

TESTS = Path(__file__).resolve().parent


def _public_functions(module, names):
    return [n for n in names if inspect.isfunction(getattr(module, n))]


def _test_text() -> str:
    """Text of every test file except this guard (which names everything it checks)."""
    me = Path(__file__).name
    return "\n".join(
        p.read_text(encoding="utf-8") for p in sorted(TESTS.glob("test_*.py")) if p.name != me
    )


def _load_test_module(name: str):
    spec = importlib.util.spec_from_file_location(f"_guard_{name}", TESTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", concomp.__all__)
def test_public_name_is_importable_and_documented(name):
    obj = getattr(concomp, name)
    if name == "__version__":
        assert isinstance(obj, str) and obj
        return
    assert inspect.getdoc(obj), f"concomp.{name} has no docstring"


@pytest.mark.parametrize(
    ("module", "names"),
    [(concomp, concomp.__all__), (csgraph, csgraph.__all__), (testing, testing.__all__)],
    ids=["concomp", "csgraph", "testing"],
)
def test_every_public_function_is_named_in_a_test(module, names):
    text = _test_text()
    missing = [
        n for n in _public_functions(module, names) if not re.search(rf"\b{re.escape(n)}\b", text)
    ]
    assert not missing, f"{module.__name__}: no test mentions {missing}"


def _parametrized_values(test_function, argname: str) -> list:
    for mark in getattr(test_function, "pytestmark", []):
        if mark.name == "parametrize" and mark.args[0] == argname:
            return [getattr(v, "values", (v,))[0] for v in mark.args[1]]
    raise AssertionError(f"{test_function.__name__} is not parametrized over {argname!r}")


@pytest.mark.parametrize(
    ("device", "test_name"), [("cpu", "test_zoo_cpu"), ("gpu", "test_zoo_gpu")]
)
def test_matrix_covers_every_variant(device, test_name):
    module = _load_test_module("test_components")
    covered = {str(v) for v in _parametrized_values(getattr(module, test_name), "variant")}
    expected = {str(v) for v in all_variants(device)}
    assert covered == expected, f"{test_name} misses {sorted(expected - covered)}"


def test_zoo_covers_the_guides_graph_kinds():
    zoo = testing.graph_zoo()
    kinds = [
        "empty",
        "single_vertex",
        "isolated",
        "self_loops",
        "duplicates",
        "path",
        "star",
        "cycle",
        "grid",
        "two_cliques",
        "many_small",
        "gnm",
        "shuffled_path",
    ]
    missing = [k for k in kinds if not any(name.startswith(k) for name in zoo)]
    assert not missing, missing
