"""Both engines implement the engine contract (``concomp._engine``) with one signature.

Read from the source (the GPU engine needs CuPy to import), so the check runs on
every machine: each engine module defines every name of the contract with the
signature of the contract's specification, or the engine's package declares the
name unsupported in ``UNSUPPORTED`` with a reason, which the dispatcher raises.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

import concomp
from concomp import _dispatch, _engine
from concomp.errors import EngineCapabilityError

PACKAGE = Path(concomp.__file__).resolve().parent
ENGINES = {"cpu": PACKAGE / "_cpu", "gpu": PACKAGE / "_gpu"}


def _unsupported(engine: str) -> dict[str, str]:
    tree = ast.parse((ENGINES[engine] / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(target, ast.Name) and target.id == "UNSUPPORTED" and node.value is not None:
            return ast.literal_eval(node.value)
    return {}


def _definitions(engine: str, module: str) -> dict[str, ast.AST]:
    path = ENGINES[engine] / f"{module}.py"
    if not path.exists():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }


def _params(fn: ast.FunctionDef) -> list[tuple[str, str]]:
    a = fn.args
    out = [(p.arg, "positional") for p in a.posonlyargs + a.args]
    out += [(p.arg, "keyword") for p in a.kwonlyargs]
    return [p for p in out if p[0] != "self"]


def _spec_params(obj) -> list[tuple[str, str]]:
    sig = inspect.signature(obj)
    kind = {inspect.Parameter.KEYWORD_ONLY: "keyword"}
    return [(n, kind.get(p.kind, "positional")) for n, p in sig.parameters.items() if n != "self"]


CASES = [
    (engine, module, name)
    for engine in ENGINES
    for module, names in _engine.CONTRACT.items()
    for name in names
]


@pytest.mark.parametrize(
    ("engine", "module", "name"), CASES, ids=[f"{e}-{m}.{n}" for e, m, n in CASES]
)
def test_engine_defines_the_contract(engine, module, name):
    declared = _unsupported(engine)
    if f"{module}.{name}" in declared:
        assert declared[f"{module}.{name}"].strip(), "an unsupported capability names its reason"
        return
    defs = _definitions(engine, module)
    assert name in defs, (
        f"_{engine}/{module}.py lacks {name} and _{engine}/__init__.py does "
        "not declare it in UNSUPPORTED"
    )
    spec = getattr(_engine, name)
    node = defs[name]
    if inspect.isclass(spec):
        assert isinstance(node, ast.ClassDef)
        methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
        for meth in [
            m
            for m in vars(spec)
            if callable(vars(spec)[m]) and (not m.startswith("_") or m == "__init__")
        ]:
            if meth == "__init__" and "__init__" not in methods:
                continue  # inherited constructor: checked through the base class elsewhere
            assert meth in methods or _inherited(engine, node, meth), (
                f"_{engine}/{module}.{name} lacks method {meth}"
            )
            if meth in methods:
                assert _params(methods[meth]) == _spec_params(getattr(spec, meth)), (
                    f"_{engine}/{module}.{name}.{meth} signature differs from the contract"
                )
    else:
        assert isinstance(node, ast.FunctionDef)
        assert _params(node) == _spec_params(spec), (
            f"_{engine}/{module}.{name} signature differs from the contract"
        )


def _inherited(engine: str, node: ast.ClassDef, meth: str) -> bool:
    """Whether a base class from ``concomp._shared`` defines ``meth``."""
    from concomp._shared import state

    return any(
        isinstance(b, ast.Name) and hasattr(getattr(state, b.id, None), meth) for b in node.bases
    )


def test_every_declared_unsupported_name_is_in_the_contract():
    names = {f"{m}.{n}" for m, ns in _engine.CONTRACT.items() for n in ns}
    for engine in ENGINES:
        assert set(_unsupported(engine)) <= names


def test_a_missing_capability_raises_naming_it():
    declared = _unsupported("cpu")
    key = next(iter(declared))
    module, name = key.split(".")
    with pytest.raises(EngineCapabilityError, match=f"cpu engine does not implement {key}"):
        _dispatch.driver("cpu", module, name)


def test_dispatch_finds_the_cpu_drivers():
    roots = _dispatch.driver("cpu", "components", "component_roots")(
        concomp.as_graph((np.array([0, 2]), np.array([1, 3]))),
        concomp.variants.Variant.parse("none-async-halve-coo"),
        concomp.Options(),
    )
    assert roots.tolist() == [0, 0, 2, 2]
