"""The connectivity design space, named once.

GConn (Hong, Dhulipala & Shun) and ConnectIt decompose static connectivity into
a *sampling* phase, a *finish* (linking) rule, a *find / compression* rule and
an input *layout*. Each axis is one enum below; :class:`Variant` is one point
of the product, validated (an illegal combination raises and lists the legal
choices), with a canonical string form that round-trips through
:meth:`Variant.parse`. That string is the API argument, the benchmark row, the
pytest id and the log line::

    kout-async-halve-csr      k-out sampling (k=2), Union-Async, path halving, CSR
    kout3-rem_cas-splice-coo  k=3, Union-Rem-CAS with splicing, edge-parallel COO
    koutl-rem_cas-splice-csr  k-out over lower neighbours (k=2), Rem-CAS, splicing, CSR
    none-jtb-split-csr        no sampling, Union-JTB with two-try splitting

:func:`all_variants` generates the product for a device; nothing keeps a hand list.

References
----------
Hong, Dhulipala, Shun. "Exploring the design space of static and incremental
graph connectivity algorithms on GPUs" (PACT 2020), ``../shared/papers/``.
"""

from __future__ import annotations

import enum
import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from ._rules import LT_CONNECT, UNION_RULES, union_rules_for
from .errors import InvalidVariantError

__all__ = [
    "Sampling",
    "Finish",
    "Compress",
    "Layout",
    "Variant",
    "all_variants",
    "PRESETS",
    "resolve_variant",
]


class _StrEnum(str, enum.Enum):
    """``enum.StrEnum`` for Python 3.10: members compare equal to their value."""

    def __str__(self) -> str:
        return self.value


class Sampling(_StrEnum):
    """Sampling phase (GConn section 3.3)."""

    NONE = "none"  #: no sampling: the finish sees every edge
    KOUT = "kout"  #: k-out: union each vertex with its first k neighbours (Afforest)
    KOUT_RANDOM = "koutr"  #: k-out with k neighbours drawn uniformly at random
    #: k-out over lower neighbours (concomp): each vertex, in id order, unites its
    #: first k neighbours with smaller ids
    KOUT_LOWER = "koutl"
    HB = "hb"  #: hook-based: hook to the first neighbour, then union N edges of each root
    BFS = "bfs"  #: direction-optimising BFS from a sampled high-degree vertex
    STAGES = "stages"  #: Cong & Muzio's Stages: permuted edge groups of k*n edges (meta algorithm)


class Finish(_StrEnum):
    """Finish rule. Union-find rules link the larger root id under the smaller."""

    ASYNC = "async"  #: Union-Async: CAS on the labels array (randomised linking by index)
    EARLY = "early"  #: Union-Early: walk both paths together, stop at a common node
    HOOKS = "hooks"  #: Union-Hooks: CAS on an auxiliary hooks array
    REM_CAS = "rem_cas"  #: Rem's algorithm with lock-free CAS splicing
    REM_LOCK = "rem_lock"  #: Rem's algorithm with per-vertex spin locks
    JTB = "jtb"  #: Jayanti-Tarjan-Boix-Adsera: randomised linking by rank, 64-bit CAS
    SV = "sv"  #: Shiloach-Vishkin, root-based: atomic-min hooking + full compression
    LT = "lt"  #: Liu-Tarjan; the rule combination is the third field (e.g. "prfa")
    STERGIOU = "stergiou"  #: Stergiou et al.: min-label rounds over two label arrays
    LP = "lp"  #: label propagation (min label, data-driven frontier)
    ECL = "ecl"  #: ECL-CC: first-smaller-neighbour init, intermediate pointer jumping
    ECL_AF = "ecl_af"  #: ECL_af: atomic-free synchronous ECL-CC
    AFFOREST = "afforest"  #: G_Afforest: Afforest's link + compress finish
    SOMAN = "soman"  #: Soman et al. GPU-CC: COO hooking with alternating orientation
    GRAFT = "graft"  #: Cong & Muzio CC: graft larger under smaller, shortcut to stars
    GRAFT_UPDT = "graft_updt"  #: Cong & Muzio CC-updt: graft, shortcut, update edges
    BFS_CC = "bfs_cc"  #: one direction-optimising BFS per component


#: The root-based union-find rules: every finish with a row in the rule registry
#: (:data:`concomp._rules.UNION_RULES`).
UNION_FIND = frozenset(Finish(name) for name in UNION_RULES)


class Compress(_StrEnum):
    """Find / path-compression rule applied on the fly."""

    NAIVE = "naive"  #: no compression
    SPLIT = "split"  #: path splitting (for Rem: SplitAtomicOne; for JTB: two-try split)
    HALVE = "halve"  #: path halving (for Rem: HalveAtomicOne)
    COMPRESS = "compress"  #: full path compression (a second pass over the path)
    SPLICE = "splice"  #: Rem's splicing (SpliceAtomic)


class Layout(_StrEnum):
    """Input layout of the finish phase."""

    CSR = "csr"  #: vertex-parallel over the CSR, load balanced by degree
    COO = "coo"  #: edge-parallel over the edge list


#: Legal values of the third field of each finish rule. For union-find rules it is
#: the find / compression rule (ConnectIt proves these correct); for the other
#: families it names the family's own rule or rule combination.
COMPRESS_RULES: dict[Finish, tuple[str, ...]] = {
    **{f: tuple(Compress(c) for c in UNION_RULES[f.value].compress) for f in UNION_FIND},
    Finish.SV: ("compress",),
    # Liu-Tarjan: (c)onnect / (p)arent-connect / (e)xtended-connect, (u)pdate /
    # (r)oot-update, (s)hortcut / (f)ull-shortcut, optional (a)lter. Connect (which
    # sends min(u, v) to max(u, v) by vertex id, never by label) needs alter with
    # either update: without it a vertex only ever hears from its own neighbours,
    # so labels stop at local minima (path 0-2-1: vertex 1 keeps label 1). The
    # other 20 combinations converge (checked against SciPy, sampled or not).
    Finish.LT: tuple(
        c + u + sc + a
        for c in LT_CONNECT
        for u in "ur"
        for sc in "sf"
        for a in ("a", "")
        if not (c == "c" and a == "")
    ),
    Finish.STERGIOU: ("min",),
    Finish.LP: ("min",),
    Finish.ECL: ("jump",),
    Finish.ECL_AF: ("jump",),
    Finish.AFFOREST: ("compress",),
    Finish.SOMAN: ("jump",),
    Finish.GRAFT: ("shortcut",),
    Finish.GRAFT_UPDT: ("shortcut",),
    Finish.BFS_CC: ("diropt",),
}

#: Layouts each finish supports (edge-list algorithms are COO only, ECL-CC CSR only).
LAYOUTS: dict[Finish, tuple[Layout, ...]] = {
    **{f: (Layout.CSR, Layout.COO) for f in UNION_FIND},
    Finish.SV: (Layout.CSR, Layout.COO),
    Finish.LT: (Layout.COO,),
    Finish.STERGIOU: (Layout.COO,),
    Finish.LP: (Layout.CSR,),
    Finish.ECL: (Layout.CSR,),
    Finish.ECL_AF: (Layout.CSR,),
    Finish.AFFOREST: (Layout.CSR,),
    Finish.SOMAN: (Layout.COO,),
    Finish.GRAFT: (Layout.COO,),
    Finish.GRAFT_UPDT: (Layout.COO,),
    Finish.BFS_CC: (Layout.CSR,),
}

#: The GConn samplers; each combines with every finish that has no fixed schedule
#: of its own in the papers (GConn's G_ECL-CC and G_Afforest included).
GCONN_SAMPLERS = (Sampling.NONE, Sampling.KOUT, Sampling.KOUT_RANDOM, Sampling.HB, Sampling.BFS)
#: ... and concomp's k-out over lower neighbours, which combines with the same finishes.
SAMPLERS: dict[Finish, tuple[Sampling, ...]] = {
    f: GCONN_SAMPLERS + (Sampling.KOUT_LOWER,) for f in Finish
}
# Stages is Cong & Muzio's meta algorithm: it wraps their CC / CC-updt, SV, and the
# root-based union-find rules, one permuted edge group at a time.
for _f in (Finish.SV, Finish.ASYNC, Finish.REM_CAS):
    SAMPLERS[_f] = SAMPLERS[_f] + (Sampling.STAGES,)
for _f in (Finish.GRAFT, Finish.GRAFT_UPDT):
    SAMPLERS[_f] = (Sampling.NONE, Sampling.STAGES)
for _f in (Finish.SOMAN, Finish.ECL_AF, Finish.BFS_CC):
    SAMPLERS[_f] = (Sampling.NONE,)

#: Default parameter of each sampler: k for k-out, N for hook-based, q for Stages.
DEFAULT_K: dict[Sampling, int | None] = {
    Sampling.NONE: None,
    Sampling.KOUT: 2,
    Sampling.KOUT_RANDOM: 2,
    Sampling.KOUT_LOWER: 2,
    Sampling.HB: 4,
    Sampling.BFS: None,
    Sampling.STAGES: 1,
}


def _static_rules(engine: str) -> set[Finish]:
    return {Finish(row.name) for row in union_rules_for(engine, "static")}


#: Finish rules and samplers the GPU engine implements: every union-find rule the
#: registry gives it (``_gpu/components.py``) and every other family and Stages
#: (``_gpu/families*.py``).
GPU_FINISHES: set[Finish] = (set(Finish) - UNION_FIND) | _static_rules("gpu")
GPU_SAMPLINGS: set[Sampling] = set(Sampling)
#: The CPU engine implements the same space: every union-find rule the registry gives
#: it (``_cpu/unionfind.py``, on all of numba's threads with compare-and-swap links)
#: and every other family and Stages (``_cpu/families*.py``, as parallel rounds). No
#: combination is GPU-only: each of them is a well-defined algorithm on any shared-
#: memory machine (ECL_af and Soman's atomic-free hooking included), so
#: ``all_variants("cpu") == all_variants("gpu")``.
CPU_FINISHES: set[Finish] = (set(Finish) - UNION_FIND) | _static_rules("cpu")
CPU_SAMPLINGS: set[Sampling] = set(Sampling)

_NAME_RE = re.compile(r"^(?P<s>[a-z]+?)(?P<k>\d+)?-(?P<f>[a-z_]+)-(?P<c>[a-z]+)-(?P<l>[a-z]+)$")
#: Variants parsed from their names (immutable, so one object serves every caller).
_PARSED: dict[str, Variant] = {}


def _choices(enum_cls: type[enum.Enum]) -> str:
    return ", ".join(repr(m.value) for m in enum_cls)


_E = TypeVar("_E", bound=_StrEnum)


def _coerce(enum_cls: type[_E], value: object, axis: str) -> _E:
    try:
        return enum_cls(value)
    except ValueError:
        raise InvalidVariantError(
            f"{axis}={value!r} is not a valid {axis}; choose one of {_choices(enum_cls)}."
        ) from None


def _check(value: object, legal: tuple, axis: str, finish: Finish) -> None:
    if value not in legal:
        raise InvalidVariantError(
            f"{axis}={str(value)!r} is not valid with finish={finish.value!r}; legal choices: "
            + ", ".join(repr(str(x)) for x in legal)
            + "."
        )


@dataclass(frozen=True, order=True)
class Variant:
    """One point of the design space.

    Parameters
    ----------
    sampling, finish, compress, layout : str or enum
        The four axes (see :class:`Sampling`, :class:`Finish`, :class:`Compress`,
        :class:`Layout`). For union-find finishes ``compress`` is a
        :class:`Compress` rule; for the other families it names the family's rule
        (see :data:`COMPRESS_RULES`).
    k : int, optional
        k for k-out sampling (default 2), N for hook-based sampling (default 4),
        q for Stages (groups of q*n edges, default 1).

    Examples
    --------
    >>> from concomp.variants import Variant
    >>> v = Variant("kout", "async", "halve", "csr")
    >>> str(v)
    'kout-async-halve-csr'
    >>> Variant.parse("kout3-rem_cas-splice-coo").k
    3
    >>> Variant("none", "jtb", "halve", "csr")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidVariantError: compress='halve' is not valid with finish='jtb'; legal
    choices: 'naive', 'split'.
    """

    sampling: Sampling = Sampling.KOUT
    finish: Finish = Finish.ASYNC
    compress: str = Compress.HALVE
    layout: Layout = Layout.CSR
    k: int | None = field(default=None, compare=True)

    if TYPE_CHECKING:
        # the generated __init__ also takes the axes as strings; __post_init__ coerces them
        def __init__(
            self,
            sampling: Sampling | str = ...,
            finish: Finish | str = ...,
            compress: str = ...,
            layout: Layout | str = ...,
            k: int | None = ...,
        ) -> None: ...

    def __post_init__(self) -> None:
        s = _coerce(Sampling, self.sampling, "sampling")
        f = _coerce(Finish, self.finish, "finish")
        lay = _coerce(Layout, self.layout, "layout")
        c = self.compress.value if isinstance(self.compress, enum.Enum) else str(self.compress)
        _check(c, COMPRESS_RULES[f], "compress", f)
        _check(lay, LAYOUTS[f], "layout", f)
        _check(s, SAMPLERS[f], "sampling", f)
        k = self.k if self.k is not None else DEFAULT_K[s]
        if DEFAULT_K[s] is None and self.k is not None:
            raise InvalidVariantError(
                f"k={self.k} given but sampling={s.value!r} takes no k; "
                "only 'kout', 'koutr', 'koutl', 'hb' and 'stages' do."
            )
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise InvalidVariantError(f"k={k!r} must be a positive int.")
        c = Compress(c) if f in UNION_FIND else c
        for name, val in (
            ("sampling", s),
            ("finish", f),
            ("compress", c),
            ("layout", lay),
            ("k", k),
        ):
            object.__setattr__(self, name, val)

    def __str__(self) -> str:
        k = "" if self.k == DEFAULT_K[self.sampling] else str(self.k)
        return f"{self.sampling.value}{k}-{self.finish.value}-{self.compress}-{self.layout.value}"

    @property
    def family(self) -> str:
        """``"unionfind"`` for the CAS union-find rules, else ``"minbased"``."""
        return "unionfind" if self.finish in UNION_FIND else "minbased"

    @classmethod
    def parse(cls, text: str) -> Variant:
        """Inverse of ``str()``; also accepts preset names such as ``"afforest"``."""
        if isinstance(text, Variant):
            return text
        key = str(text).strip().lower()
        if key in PRESETS:
            return PRESETS[key]
        parsed = _PARSED.get(key) if cls is Variant else None
        if parsed is not None:  # auto parses its choice on every fresh graph
            return parsed
        m = _NAME_RE.match(key)
        if not m:
            raise InvalidVariantError(
                f"algorithm={text!r} is neither a preset ({', '.join(sorted(PRESETS))}) nor a "
                "variant string 'SAMPLING[k]-FINISH-COMPRESS-LAYOUT' such as "
                "'kout-async-halve-csr'."
            )
        k = int(m["k"]) if m["k"] else None
        parsed = cls(m["s"], m["f"], m["c"], m["l"], k)
        if cls is Variant and len(_PARSED) < 4096:  # valid names only: a bounded set
            _PARSED[key] = parsed
        return parsed

    def supported_on(self, device: str) -> bool:
        """Whether the engine of ``device`` ("cpu" or "gpu") implements this variant."""
        if device == "gpu":
            return self.finish in GPU_FINISHES and self.sampling in GPU_SAMPLINGS
        return self.finish in CPU_FINISHES and self.sampling in CPU_SAMPLINGS


def all_variants(device: str = "gpu") -> list[Variant]:
    """Every valid variant that ``device``'s engine implements, in a stable order.

    Both engines implement the whole design space, so the two lists are equal; a
    variant one engine lacked would be left out of its list, and
    ``connected_components`` would refuse it with that engine named.

    Examples
    --------
    >>> from concomp.variants import all_variants
    >>> len(all_variants("gpu")) >= 200
    True
    >>> all_variants("cpu") == all_variants("gpu")
    True
    """
    if device not in ("cpu", "gpu"):
        raise InvalidVariantError(f"device={device!r} is not valid; use 'cpu' or 'gpu'.")
    out = []
    for f in Finish:
        for s, lay, c in itertools.product(SAMPLERS[f], LAYOUTS[f], COMPRESS_RULES[f]):
            v = Variant(s, f, c, lay)
            if v.supported_on(device):
                out.append(v)
    return out


#: Named presets (the papers' algorithms that are points of this space).
PRESETS: dict[str, Variant] = {
    "afforest": Variant(Sampling.KOUT, Finish.ASYNC, Compress.HALVE, Layout.CSR),
    "union-find": Variant(Sampling.NONE, Finish.ASYNC, Compress.HALVE, Layout.COO),
    "rem": Variant(Sampling.NONE, Finish.REM_CAS, Compress.SPLICE, Layout.COO),
    "gconn": Variant(Sampling.KOUT, Finish.ASYNC, Compress.SPLIT, Layout.CSR),
    # Soman et al.'s GPU-CC; Cong & Muzio's CC, CC-updt and Stages (q = 1, over CC)
    "soman": Variant(Sampling.NONE, Finish.SOMAN, "jump", Layout.COO),
    "cc": Variant(Sampling.NONE, Finish.GRAFT, "shortcut", Layout.COO),
    "graft": Variant(Sampling.NONE, Finish.GRAFT, "shortcut", Layout.COO),
    "cc-updt": Variant(Sampling.NONE, Finish.GRAFT_UPDT, "shortcut", Layout.COO),
    "stages": Variant(Sampling.STAGES, Finish.GRAFT, "shortcut", Layout.COO),
    # ECL-CC and its atomic-free version (Jaiganesh & Burtscher)
    "ecl": Variant(Sampling.NONE, Finish.ECL, "jump", Layout.CSR),
    "ecl_af": Variant(Sampling.NONE, Finish.ECL_AF, "jump", Layout.CSR),
    # GConn's other min-based finishes, without sampling
    "sv": Variant(Sampling.NONE, Finish.SV, "compress", Layout.COO),
    "lt": Variant(Sampling.NONE, Finish.LT, "prf", Layout.COO),
    "stergiou": Variant(Sampling.NONE, Finish.STERGIOU, "min", Layout.COO),
    "lp": Variant(Sampling.NONE, Finish.LP, "min", Layout.CSR),
    "bfs-cc": Variant(Sampling.NONE, Finish.BFS_CC, "diropt", Layout.CSR),
    "g-afforest": Variant(Sampling.KOUT, Finish.AFFOREST, "compress", Layout.CSR),
}


def resolve_variant(algorithm: object) -> Variant | None:
    """``None`` for ``"auto"``, else the :class:`Variant` named by ``algorithm``."""
    if algorithm is None or (isinstance(algorithm, str) and algorithm.lower() == "auto"):
        return None
    if isinstance(algorithm, Variant):
        return algorithm
    if not isinstance(algorithm, str):
        raise InvalidVariantError(
            f"algorithm={algorithm!r} must be 'auto', a preset name or a "
            "variant string such as 'kout-async-halve-csr'."
        )
    return Variant.parse(algorithm)
