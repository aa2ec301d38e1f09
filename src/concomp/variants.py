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
    HB = "hb"  #: hook-based: hook to the first neighbour, then union N edges of each root
    BFS = "bfs"  #: direction-optimising BFS from a sampled high-degree vertex


class Finish(_StrEnum):
    """Finish (linking) rule; every union links the larger root id under the smaller."""

    ASYNC = "async"  #: Union-Async: CAS on the labels array (randomised linking by index)
    EARLY = "early"  #: Union-Early: walk both paths together, stop at a common node
    HOOKS = "hooks"  #: Union-Hooks: CAS on an auxiliary hooks array
    REM_CAS = "rem_cas"  #: Rem's algorithm with lock-free CAS splicing
    REM_LOCK = "rem_lock"  #: Rem's algorithm with per-vertex spin locks
    JTB = "jtb"  #: Jayanti-Tarjan-Boix-Adsera: randomised linking by rank, 64-bit CAS


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


#: Legal compression rules of each finish rule (ConnectIt proves these correct).
COMPRESS_RULES: dict[Finish, tuple[Compress, ...]] = {
    Finish.ASYNC: (Compress.NAIVE, Compress.SPLIT, Compress.HALVE, Compress.COMPRESS),
    Finish.EARLY: (Compress.NAIVE, Compress.SPLIT, Compress.HALVE, Compress.COMPRESS),
    Finish.HOOKS: (Compress.NAIVE, Compress.SPLIT, Compress.HALVE, Compress.COMPRESS),
    Finish.REM_CAS: (Compress.SPLIT, Compress.HALVE, Compress.SPLICE),
    Finish.REM_LOCK: (Compress.SPLIT, Compress.HALVE, Compress.SPLICE),
    Finish.JTB: (Compress.NAIVE, Compress.SPLIT),
}

#: Default parameter of each sampler: k for k-out, N for hook-based.
DEFAULT_K: dict[Sampling, int | None] = {
    Sampling.NONE: None,
    Sampling.KOUT: 2,
    Sampling.KOUT_RANDOM: 2,
    Sampling.HB: 4,
    Sampling.BFS: None,
}

#: What the CPU engine implements (numba has no CAS on the CPU, so its unions
#: are sequential; Rem's splicing is the serial algorithm Cong & Muzio rank).
CPU_SUPPORT: dict[str, tuple] = {
    "sampling": (Sampling.NONE, Sampling.KOUT),
    "finish": (Finish.ASYNC, Finish.REM_CAS),
    "layout": (Layout.COO, Layout.CSR),
}

_NAME_RE = re.compile(r"^(?P<s>[a-z]+?)(?P<k>\d+)?-(?P<f>[a-z_]+)-(?P<c>[a-z]+)-(?P<l>[a-z]+)$")


def _choices(enum_cls: type[enum.Enum]) -> str:
    return ", ".join(repr(m.value) for m in enum_cls)


def _coerce(enum_cls: type[_StrEnum], value: object, axis: str) -> _StrEnum:
    try:
        return enum_cls(value)
    except ValueError:
        raise InvalidVariantError(
            f"{axis}={value!r} is not a valid {axis}; choose one of {_choices(enum_cls)}."
        ) from None


@dataclass(frozen=True, order=True)
class Variant:
    """One point of the design space.

    Parameters
    ----------
    sampling, finish, compress, layout : str or enum
        The four axes (see :class:`Sampling`, :class:`Finish`, :class:`Compress`,
        :class:`Layout`).
    k : int, optional
        k for k-out sampling (default 2), N for hook-based sampling (default 4).

    Examples
    --------
    >>> from concomp.variants import Variant
    >>> v = Variant("kout", "async", "halve", "csr")
    >>> str(v)
    'kout-async-halve-csr'
    >>> Variant.parse("kout3-rem_cas-splice-coo").k
    3
    >>> Variant("none", "jtb", "halve", "csr")
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidVariantError: compress='halve' is not valid with finish='jtb'; legal choices: 'naive', 'split'.
    """

    sampling: Sampling = Sampling.KOUT
    finish: Finish = Finish.ASYNC
    compress: Compress = Compress.HALVE
    layout: Layout = Layout.CSR
    k: int | None = field(default=None, compare=True)

    def __post_init__(self) -> None:
        s = _coerce(Sampling, self.sampling, "sampling")
        f = _coerce(Finish, self.finish, "finish")
        c = _coerce(Compress, self.compress, "compress")
        lay = _coerce(Layout, self.layout, "layout")
        legal = COMPRESS_RULES[f]
        if c not in legal:
            raise InvalidVariantError(
                f"compress={c.value!r} is not valid with finish={f.value!r}; legal choices: "
                + ", ".join(repr(x.value) for x in legal) + "."
            )
        k = self.k if self.k is not None else DEFAULT_K[s]
        if DEFAULT_K[s] is None and self.k is not None:
            raise InvalidVariantError(f"k={self.k} given but sampling={s.value!r} takes no k; "
                                      "only 'kout', 'koutr' and 'hb' do.")
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise InvalidVariantError(f"k={k!r} must be a positive int.")
        for name, val in (("sampling", s), ("finish", f), ("compress", c), ("layout", lay),
                          ("k", k)):
            object.__setattr__(self, name, val)

    def __str__(self) -> str:
        k = "" if self.k == DEFAULT_K[self.sampling] else str(self.k)
        return f"{self.sampling.value}{k}-{self.finish.value}-{self.compress.value}-{self.layout.value}"

    @classmethod
    def parse(cls, text: str) -> Variant:
        """Inverse of ``str()``; also accepts preset names such as ``"afforest"``."""
        if isinstance(text, Variant):
            return text
        key = str(text).strip().lower()
        if key in PRESETS:
            return PRESETS[key]
        m = _NAME_RE.match(key)
        if not m:
            raise InvalidVariantError(
                f"algorithm={text!r} is neither a preset ({', '.join(sorted(PRESETS))}) nor a "
                "variant string 'SAMPLING[k]-FINISH-COMPRESS-LAYOUT' such as "
                "'kout-async-halve-csr'.")
        k = int(m["k"]) if m["k"] else None
        return cls(m["s"], m["f"], m["c"], m["l"], k)

    def supported_on(self, device: str) -> bool:
        """Whether the engine of ``device`` ("cpu" or "gpu") implements this variant."""
        if device == "gpu":
            return True
        return (self.sampling in CPU_SUPPORT["sampling"] and self.finish in CPU_SUPPORT["finish"]
                and self.layout in CPU_SUPPORT["layout"])


def all_variants(device: str = "gpu") -> list[Variant]:
    """Every valid variant that ``device``'s engine implements, in a stable order.

    Examples
    --------
    >>> from concomp.variants import all_variants
    >>> len(all_variants("gpu")) >= 200
    True
    >>> all(v.supported_on("cpu") for v in all_variants("cpu"))
    True
    """
    if device not in ("cpu", "gpu"):
        raise InvalidVariantError(f"device={device!r} is not valid; use 'cpu' or 'gpu'.")
    out = []
    for s, f, lay in itertools.product(Sampling, Finish, Layout):
        for c in COMPRESS_RULES[f]:
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
}


def resolve_variant(algorithm: object) -> Variant | None:
    """``None`` for ``"auto"``, else the :class:`Variant` named by ``algorithm``."""
    if algorithm is None or (isinstance(algorithm, str) and algorithm.lower() == "auto"):
        return None
    if isinstance(algorithm, Variant):
        return algorithm
    if not isinstance(algorithm, str):
        raise InvalidVariantError(f"algorithm={algorithm!r} must be 'auto', a preset name or a "
                                  "variant string such as 'kout-async-halve-csr'.")
    return Variant.parse(algorithm)
