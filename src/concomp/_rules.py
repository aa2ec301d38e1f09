"""The rule registry: one row per find rule and per union (link) rule.

A row holds everything concomp knows about a rule: its name (the value of its
enum member in :mod:`concomp.variants`), the C++ policy the GPU kernels are
instantiated with (``_gpu/cuda/uf.cuh``), the numba function that implements it
on the CPU (``_cpu/rules.py``), the auxiliary state it needs, whether a
concurrent run of it records a spanning forest, and which drivers of which
engine run it. Drivers ask this table; nothing else keeps a list of rules.

Adding a union rule touches three places: the enum value (``Finish`` in
``variants.py``), its policy (a C++ struct in ``_gpu/cuda/uf.cuh`` and a numba
function in ``_cpu/rules.py``) and one :class:`UnionRule` row below.
``tests/test_rules.py`` registers a toy rule that way, end to end.

This module imports nothing from the rest of concomp, so that ``variants``,
both engines and the public layer can all read it without an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "DRIVERS",
    "ENGINES",
    "FIND_RULES",
    "FOREST_FAMILIES",
    "UNION_RULES",
    "FindRule",
    "UnionRule",
    "family_records_forest",
    "find_rule",
    "union_rule",
    "union_rules_for",
]

#: The engines, and the drivers a union rule can serve on each.
ENGINES = ("cpu", "gpu")
DRIVERS = ("static", "forest", "incremental", "streaming")


@dataclass(frozen=True)
class FindRule:
    """A find / path-compression rule.

    Attributes
    ----------
    name : str
        The ``Compress`` value (``"halve"``).
    cpp : str or None
        The C++ find policy (``FindHalve``) the non-Rem union rules take; None
        where the rule exists only as one of Rem's steps (``splice``).
    rem_cpp : str or None
        The C++ step policy of Rem's walk (``HalveAtomicOne``); None where Rem
        has no such step (``naive``, ``compress``).
    cpu : str or None
        Name of the numba find function in ``_cpu/rules.py``.
    rem_cpu : str or None
        Name of the numba Rem step in ``_cpu/rules.py``.
    """

    name: str
    cpp: str | None
    rem_cpp: str | None
    cpu: str | None
    rem_cpu: str | None


@dataclass(frozen=True)
class UnionRule:
    """A union-find link rule (a root-based ``Finish`` of the design space).

    Attributes
    ----------
    name : str
        The ``Finish`` value (``"rem_cas"``).
    compress : tuple of str
        The find rules it is proven correct with (ConnectIt), in canonical order.
    cpp : str
        C++ union policy as a template: ``{find}`` is replaced by the find rule's
        ``cpp`` policy, ``{rem}`` by its ``rem_cpp`` step and ``{split}`` by
        ``true`` / ``false`` (whether the find rule is ``split``).
    cpu : str or None
        Name of the numba union factory in ``_cpu/rules.py`` (None: GPU only).
    walks_rem : bool
        The rule is Rem's walk (its compression is one of Rem's steps).
    aux : bool
        Needs the per-vertex int32 auxiliary array (hooks, locks).
    packed : bool
        Keeps JTB's 64-bit packed (rank, parent) words beside the parents.
    reroots : bool
        Re-roots trees (JTB): "owns a forest edge" is "its slot is set", not "is
        a non-root".
    unsafe_concurrent_forest : tuple of str
        Find rules with which a *concurrent* run does not record a spanning
        forest: Rem's splice moves subtrees between trees without a root link, so
        a later root link may join two parts of one component.
    drivers : mapping of engine to frozenset of driver names
        Which drivers (``static``, ``forest``, ``incremental``, ``streaming``)
        of which engine run the rule.
    """

    name: str
    compress: tuple[str, ...]
    cpp: str
    cpu: str | None
    walks_rem: bool = False
    aux: bool = False
    packed: bool = False
    reroots: bool = False
    unsafe_concurrent_forest: tuple[str, ...] = ()
    drivers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def supports(self, engine: str, driver: str = "static") -> bool:
        """Whether ``engine``'s ``driver`` runs this rule."""
        return driver in self.drivers.get(engine, frozenset())

    def records_forest(self, engine: str, compress: str, *, concurrent: bool) -> bool:
        """Whether a run with ``compress`` records a spanning forest on ``engine``."""
        if not self.supports(engine, "forest"):
            return False
        return not (concurrent and compress in self.unsafe_concurrent_forest)

    def cpp_policy(self, compress: str) -> str:
        """The C++ type of this rule with find rule ``compress``: ``UniteAsync<FindHalve>``."""
        find = FIND_RULES[compress]
        return self.cpp.format(
            find=find.cpp, rem=find.rem_cpp, split="true" if compress == "split" else "false"
        )


FIND_RULES: dict[str, FindRule] = {
    row.name: row
    for row in (
        FindRule("naive", "FindNaive", None, "find_naive", None),
        FindRule("split", "FindSplit", "SplitAtomicOne", "find_split", "rem_split"),
        FindRule("halve", "FindHalve", "HalveAtomicOne", "find_halve", "rem_halve"),
        FindRule("compress", "FindCompress", None, "find_compress", None),
        FindRule("splice", None, "SpliceAtomic", None, "rem_splice"),
    )
}

_ALL = frozenset(DRIVERS)
_BOTH = {"cpu": _ALL, "gpu": _ALL}
_UF4 = ("naive", "split", "halve", "compress")
_REM3 = ("split", "halve", "splice")
# JTB's roots are renamed to the component minimum after a run, which the incremental
# engines' persistent state has no step for
_NO_INCREMENTAL = frozenset({"static", "forest", "streaming"})

UNION_RULES: dict[str, UnionRule] = {
    row.name: row
    for row in (
        UnionRule("async", _UF4, "UniteAsync<{find}>", "union_async", drivers=_BOTH),
        UnionRule("early", _UF4, "UniteEarly<{find}>", "union_early", drivers=_BOTH),
        UnionRule("hooks", _UF4, "UniteHooks<{find}>", "union_hooks", aux=True, drivers=_BOTH),
        UnionRule(
            "rem_cas",
            _REM3,
            "UniteRem<{rem}, false>",
            "union_rem",
            walks_rem=True,
            unsafe_concurrent_forest=("splice",),
            drivers=_BOTH,
        ),
        UnionRule(
            "rem_lock",
            _REM3,
            "UniteRem<{rem}, true>",
            "union_rem_lock",
            walks_rem=True,
            aux=True,
            unsafe_concurrent_forest=("splice",),
            drivers=_BOTH,
        ),
        UnionRule(
            "jtb",
            ("naive", "split"),
            "UniteJTB<{split}>",
            "union_jtb",
            packed=True,
            reroots=True,
            drivers={"cpu": _NO_INCREMENTAL, "gpu": _NO_INCREMENTAL},
        ),
    )
}


#: Finish families other than the union-find rules that record a spanning forest, and
#: on which engines. Soman et al.'s hooking, whose winning edge per tree is its
#: spanning-tree edge (Soman, Kishore & Narayanan, section 3), and GConn's root-based
#: families, each root hooked once (by a compare-and-swap) and recording the edge
#: that hooked it: Shiloach-Vishkin, the root-update Liu-Tarjan rules
#: (:func:`family_records_forest` picks those), ECL-CC (its init hooks too),
#: Afforest, Cong & Muzio's CC and CC-updt; and BFS-CC, whose BFS trees are the
#: forest. Not ECL_af (its plain-store hooks may be overwritten), Stergiou or label
#: propagation (labels, not roots, move between trees).
_CPU_GPU = frozenset({"cpu", "gpu"})
FOREST_FAMILIES: dict[str, frozenset[str]] = {
    f: _CPU_GPU for f in ("soman", "sv", "lt", "ecl", "afforest", "graft", "graft_updt", "bfs_cc")
}

#: Liu-Tarjan's connect rules by letter, in the order both engines' kernels number
#: them: (c)onnect, (p)arent-connect, (e)xtended-connect.
LT_CONNECT = "cpe"


@dataclass(frozen=True)
class LiuTarjanRule:
    """A Liu-Tarjan rule name ("cru", "prfa", ...) read once for every engine."""

    connect: int  #: index into :data:`LT_CONNECT`
    root_only: bool  #: "r": the update changes roots only ("u": any vertex)
    full: bool  #: "f": full shortcut ("s": one level)
    alter: bool  #: a trailing "a": every edge is replaced by its endpoints' parents


def liu_tarjan_rule(rule: str) -> LiuTarjanRule:
    """The parts of the Liu-Tarjan rule name ``rule``.

    Examples
    --------
    >>> liu_tarjan_rule("prfa")
    LiuTarjanRule(connect=1, root_only=True, full=True, alter=True)
    """
    return LiuTarjanRule(
        LT_CONNECT.index(rule[0]), rule[1] == "r", rule[2] == "f", rule.endswith("a")
    )


def family_records_forest(engine: str, finish: str, rule: str) -> bool:
    """Whether family ``finish`` with rule ``rule`` records a spanning forest on ``engine``
    (Stages aside): listed in :data:`FOREST_FAMILIES`, and of Liu-Tarjan only the
    root-update rules, since the others move vertices that are not roots between trees."""
    if engine not in FOREST_FAMILIES.get(finish, ()):
        return False
    return finish != "lt" or liu_tarjan_rule(rule).root_only


def union_rule(name: object) -> UnionRule:
    """The row of union rule ``name`` (a ``Finish`` member or its value)."""
    return UNION_RULES[str(name)]


def find_rule(name: object) -> FindRule:
    """The row of find rule ``name`` (a ``Compress`` member or its value)."""
    return FIND_RULES[str(name)]


def union_rules_for(engine: str, driver: str = "static") -> tuple[UnionRule, ...]:
    """Rows of the union rules that ``engine``'s ``driver`` runs, in registry order."""
    return tuple(row for row in UNION_RULES.values() if row.supports(engine, driver))
