"""The package's shape, checked from its source: layers, no import cycles, CuPy in one place.

The import graph is read from every ``import`` statement of every module (at module
level or inside functions), so a cycle held apart by a function-local import still
counts. A package's ``__init__`` is its facade: it may import its own submodules, and
a submodule that imports the facade back (explicitly) makes a cycle. The root
``concomp`` package, which re-exports the public API, is left out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "concomp"
ENGINES = ("concomp._cpu", "concomp._gpu")
#: Public modules and subpackages: engines never import them (that would be an
#: engine calling up into the API).
PUBLIC = (
    "concomp.components",
    "concomp.membership",
    "concomp.results",
    "concomp.forest",
    "concomp.msf",
    "concomp.streaming",
    "concomp.incremental",
    "concomp.csgraph",
    "concomp.cli",
    "concomp.io",
    "concomp.generators",
    "concomp.bench",
    "concomp.testing",
    "concomp.dask",
    "concomp.nx",
    "concomp.image",
    "concomp.ndimage",
    "concomp.measure",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """concomp modules ``module`` imports (explicitly, anywhere in its source)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = (
                _resolve(module, is_package, node.level, node.module)
                if node.level
                else (node.module or "")
            )
            # ``from pkg import mod`` depends on the module, ``from mod import name`` on mod
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != module:
                found.add(t)
    return found


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    graph = {m: _imports(m, p, known) for m, p in mods.items()}
    for edges in graph.values():
        edges.discard("concomp")
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_engines_do_not_call_up_into_the_api_or_each_other():
    bad = []
    for module, edges in _graph().items():
        engine = next((e for e in ENGINES if module == e or module.startswith(e + ".")), None)
        if engine is None:
            continue
        other = ENGINES[1 - ENGINES.index(engine)]
        for target in edges:
            if target.startswith(other) or any(
                target == p or target.startswith(p + ".") for p in PUBLIC
            ):
                bad.append(f"{module} -> {target}")
    assert bad == []


def test_cupy_is_imported_only_by_the_compat_module():
    offenders = []
    for module, path in _modules().items():
        if module == "concomp._gpu._compat":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            if any(n.split(".")[0] in ("cupy", "cupyx") for n in names):
                offenders.append(f"{module}:{node.lineno}")
    assert offenders == []


def test_public_modules_do_not_import_engine_modules():
    """Only the dispatch layer reaches an engine (``_gpu._compat`` aside: the array
    helpers ask it whether a GPU is usable and for the CuPy module)."""
    bad = []
    for module, edges in _graph().items():
        if module.startswith(ENGINES) or module in ("concomp._dispatch",):
            continue
        if not (module.startswith(PUBLIC) or module.count(".") == 1):
            continue
        for target in edges:
            if (
                target.startswith(ENGINES)
                and target != "concomp._gpu._compat"
                and target not in ENGINES
            ):
                bad.append(f"{module} -> {target}")
    assert bad == []


@pytest.mark.parametrize("module", sorted(_modules()))
def test_every_module_imports_alone_in_a_fresh_interpreter(module):
    if module.startswith("concomp._gpu") and module not in ("concomp._gpu", "concomp._gpu._compat"):
        pytest.importorskip("cupy", reason="the GPU engine modules need CuPy")
    if module.startswith("concomp.dask"):
        pytest.importorskip("distributed", reason="concomp.dask needs dask and distributed")
    out = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
