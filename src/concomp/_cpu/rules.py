"""The CPU engine's union-find rules: the numba functions named in :mod:`concomp._rules`.

numba has no compare-and-swap on the CPU, so these unions run on one thread.
Every union links the larger root under the smaller, so each final root is its
component's smallest vertex id: SciPy's label order is then a prefix sum away.

- find rules ``(p, x) -> root``: :func:`find_naive`, :func:`find_split`,
  :func:`find_halve`, :func:`find_compress` (a registry row's ``cpu``);
- Rem's steps ``(p, rx, ry) -> next rx``: :func:`rem_split`, :func:`rem_halve`,
  :func:`rem_splice` (a row's ``rem_cpu``), one move up ``rx``'s path;
- union factories ``factory(find_or_step) -> unite``: :func:`union_async`,
  :func:`union_rem` (a :class:`~concomp._rules.UnionRule`'s ``cpu``). A
  ``unite(p, u, v)`` returns the root that stopped being one (the owner of the
  edge in a spanning forest), or -1 when ``u`` and ``v`` were already connected.

:func:`unite_for` builds every ``unite`` the registry gives the CPU and hands out
the one of a ``(finish, compress)`` pair. Kernels take it as an argument, so numba
compiles one specialisation per rule pair, with no branch on the rule inside the
loops.

Adding a union rule: write its factory here, name it in the rule's registry row
(see :mod:`concomp._rules`); ``tests/test_rules.py`` does that with a toy rule.
"""

from __future__ import annotations

import functools
import uuid

import numba as nb

from .. import _rules

__all__ = [
    "find_compress",
    "find_halve",
    "find_naive",
    "find_split",
    "rem_halve",
    "rem_splice",
    "rem_split",
    "union_async",
    "union_rem",
    "unite_for",
]


def _stable_identity(dispatcher, key: str):
    """Give ``dispatcher`` an identity that is the same in every process.

    A kernel that takes a dispatcher argument is cached on disk under a
    signature that holds the dispatcher's type, which numba pickles by the
    dispatcher's uuid (random per process unless set). A name-derived uuid makes
    the signature match in the next process, so ``cache=True`` loads the kernel
    instead of compiling it again. Without the (private) hook, kernels still
    work; they only compile once per process.
    """
    set_uuid = getattr(dispatcher, "_set_uuid", None)
    if set_uuid is not None:
        set_uuid(str(uuid.uuid5(uuid.NAMESPACE_URL, "concomp._cpu.rules:" + key)))
    return dispatcher


# ------------------------------------------------------------------ find rules
@nb.njit(cache=True, inline="always")
def find_naive(p, x):
    """Root of ``x``; the path stays as it is."""
    while p[x] != x:
        x = p[x]
    return x


@nb.njit(cache=True, inline="always")
def find_split(p, x):
    """Root of ``x``; path splitting (every node on the path skips to its grandparent)."""
    while p[x] != x:
        nxt = p[x]
        p[x] = p[nxt]
        x = nxt
    return x


@nb.njit(cache=True, inline="always")
def find_halve(p, x):
    """Root of ``x``; path halving (every other node skips to its grandparent)."""
    while p[x] != x:
        gp = p[p[x]]
        p[x] = gp
        x = gp
    return x


@nb.njit(cache=True, inline="always")
def find_compress(p, x):
    """Root of ``x``; full compression (a second pass points the path at the root)."""
    root = x
    while p[root] != root:
        root = p[root]
    while p[x] != root:
        nxt = p[x]
        p[x] = root
        x = nxt
    return root


# ------------------------------------------------------------------ Rem's steps
# Called with p[rx] > p[ry] and rx not a root; each moves rx one step up its path.
@nb.njit(cache=True, inline="always")
def rem_split(p, rx, ry):
    """SplitAtomicOne: ``rx`` skips to its grandparent, the walk moves to its parent."""
    z = p[rx]
    p[rx] = p[z]
    return z


@nb.njit(cache=True, inline="always")
def rem_halve(p, rx, ry):
    """HalveAtomicOne: ``rx`` skips to its grandparent, the walk moves there."""
    z = p[rx]
    p[rx] = p[z]
    return p[rx]


@nb.njit(cache=True, inline="always")
def rem_splice(p, rx, ry):
    """Rem's splice: ``rx`` moves under ``ry``'s (smaller) parent, the walk to its old parent."""
    z = p[rx]
    p[rx] = p[ry]
    return z


for _f in (find_naive, find_split, find_halve, find_compress, rem_split, rem_halve, rem_splice):
    _stable_identity(_f, _f.__name__)


# ------------------------------------------------------------------ union factories
def union_async(find):
    """Union-Async with ``find``: link the larger root under the smaller."""

    @nb.njit(cache=True, inline="always")
    def unite(p, u, v):
        ru = find(p, u)
        rv = find(p, v)
        if ru < rv:
            p[rv] = ru
            return rv
        if rv < ru:
            p[ru] = rv
            return ru
        return -1

    return unite


def union_rem(step):
    """Rem's algorithm with ``step``: walk both paths up by parent order.

    Relies on ``p[x] <= x``. Returns the root that was linked, or -1: a step may
    move non-root pointers across trees, but only the final root link merges
    two sets.
    """

    @nb.njit(cache=True, inline="always")
    def unite(p, x, y):
        rx, ry = x, y
        while p[rx] != p[ry]:
            if p[rx] < p[ry]:
                rx, ry = ry, rx
            if rx == p[rx]:
                p[rx] = p[ry]
                return rx
            rx = step(p, rx, ry)
        return -1

    return unite


# ------------------------------------------------------------------ the table
@functools.cache
def _unites() -> dict[tuple[str, str], object]:
    """``unite`` of every (union rule, find rule) pair the registry gives the CPU.

    Built whole on first use (after every factory of this module is defined) so
    that each dispatcher exists, with its stable identity, before a kernel's
    disk cache is read.
    """
    table = {}
    for rule in _rules.UNION_RULES.values():
        if rule.cpu is None or "cpu" not in rule.drivers:
            continue
        factory = globals()[rule.cpu]
        for compress in rule.compress:
            find = _rules.find_rule(compress)
            name = find.rem_cpu if rule.walks_rem else find.cpu
            # the registry pairs a CPU union rule only with finds that have a CPU version
            assert name is not None, f"find rule {compress!r} has no CPU version"
            arg = globals()[name]
            table[rule.name, compress] = _stable_identity(factory(arg), f"{rule.name}-{compress}")
    return table


def unite_for(finish: object, compress: object):
    """The ``@njit`` ``unite(p, u, v) -> int`` of union rule ``finish`` with ``compress``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.rules import unite_for
    >>> unite = unite_for("rem_cas", "splice")
    >>> p = np.arange(4)
    >>> int(unite(p, 3, 1)), int(unite(p, 1, 3)), p.tolist()
    (3, -1, [0, 1, 2, 1])
    """
    key = (str(finish), str(compress))
    try:
        return _unites()[key]
    except KeyError:
        raise KeyError(
            f"the CPU engine has no union rule {key[0]!r} with find rule "
            f"{key[1]!r}; see concomp._rules.union_rules_for('cpu')"
        ) from None
