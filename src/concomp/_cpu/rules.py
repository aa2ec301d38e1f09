"""The CPU engine's union-find rules: the numba functions named in :mod:`concomp._rules`.

Every rule is safe to run from many threads at once (numba ``prange``): roots are
linked with the compare-and-swap intrinsic of :mod:`concomp._cpu.atomics`, parents
are read with atomic loads, and compression stores only ever move a non-root's
pointer to one of its ancestors (a lost or stale one is harmless), as in the GPU
policies of ``_gpu/cuda/uf.cuh``. Run on one thread they are the sequential rules.
Every rule but JTB links the larger root under the smaller, so each final root is
its component's smallest vertex id; JTB's roots are renamed to that afterwards.

- find rules ``(p, x) -> root``: :func:`find_naive`, :func:`find_split`,
  :func:`find_halve`, :func:`find_compress` (a registry row's ``cpu``);
- Rem's steps ``(p, rx, prx, pry) -> next rx``: :func:`rem_split`, :func:`rem_halve`,
  :func:`rem_splice` (a row's ``rem_cpu``), one move up ``rx``'s path;
- union factories ``factory(find_or_step) -> unite``: :func:`union_async`,
  :func:`union_early`, :func:`union_hooks`, :func:`union_rem`, :func:`union_rem_lock`,
  :func:`union_jtb` (a :class:`~concomp._rules.UnionRule`'s ``cpu``). A
  ``unite(p, aux, u, v)`` returns the root that stopped being one (the owner of the
  edge in a spanning forest), or -1 when ``u`` and ``v`` were already connected.
  ``aux`` is the rule's int32 auxiliary array (hooks, locks) where its registry row
  says ``aux``, else a one-element dummy (:func:`aux_for`).

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
import numpy as np

from .. import _rules
from .atomics import atomic_load, cas

__all__ = [
    "aux_for",
    "find_compress",
    "find_halve",
    "find_naive",
    "find_split",
    "mix64",
    "rem_halve",
    "rem_splice",
    "rem_split",
    "union_async",
    "union_early",
    "union_hooks",
    "union_jtb",
    "union_rem",
    "union_rem_lock",
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


def aux_for(finish: object, n: int) -> np.ndarray:
    """The auxiliary int32 array of union rule ``finish`` for ``n`` vertices (zeros), or a
    one-element dummy where the registry row needs none."""
    return np.zeros(max(n, 1) if _rules.union_rule(finish).aux else 1, dtype=np.int32)


# ------------------------------------------------------------------ find rules
@nb.njit(cache=True, inline="always")
def find_naive(p, x):
    """Root of ``x``; the path stays as it is."""
    px = atomic_load(p, x)
    while px != x:
        x = px
        px = atomic_load(p, x)
    return x


@nb.njit(cache=True, inline="always")
def find_split(p, x):
    """Root of ``x``; path splitting (every node on the path skips to its grandparent)."""
    while True:
        px = atomic_load(p, x)
        ppx = atomic_load(p, px)
        if px == ppx:
            return px
        p[x] = ppx
        x = px


@nb.njit(cache=True, inline="always")
def find_halve(p, x):
    """Root of ``x``; path halving (every other node skips to its grandparent)."""
    while True:
        px = atomic_load(p, x)
        ppx = atomic_load(p, px)
        if px == ppx:
            return px
        p[x] = ppx
        x = ppx


@nb.njit(cache=True, inline="always")
def find_compress(p, x):
    """Root of ``x``; full compression (a second pass points the path at the root).

    Parents have smaller ids than their children, so ``px > root`` means "x still
    points below the root": a concurrent compression may already have lifted x
    higher, and it must not be pulled back down.
    """
    root = find_naive(p, x)
    px = atomic_load(p, x)
    while px > root:
        p[x] = root
        x = px
        px = atomic_load(p, x)
    return root


# ------------------------------------------------------------------ Rem's steps
# Called with rx not a root and prx = p[rx] > pry; each moves rx one step up its path
# and changes p[rx] only by a CAS from the value read (ConnectIt's atomic steps).
@nb.njit(cache=True, inline="always")
def rem_split(p, rx, prx, pry):
    """SplitAtomicOne: ``rx`` skips to its grandparent, the walk moves to its parent."""
    cas(p, rx, prx, atomic_load(p, prx))
    return prx


@nb.njit(cache=True, inline="always")
def rem_halve(p, rx, prx, pry):
    """HalveAtomicOne: ``rx`` skips to its grandparent, the walk moves there."""
    pp = atomic_load(p, prx)
    cas(p, rx, prx, pp)
    return pp


@nb.njit(cache=True, inline="always")
def rem_splice(p, rx, prx, pry):
    """Rem's splice: ``rx`` moves under the other side's (smaller) parent, the walk to its
    old parent."""
    cas(p, rx, prx, pry)
    return prx


for _f in (find_naive, find_split, find_halve, find_compress, rem_split, rem_halve, rem_splice):
    _stable_identity(_f, _f.__name__)


# ------------------------------------------------------------------ helpers
@nb.njit(cache=True, inline="always")
def _link(p, root, to):
    """Hang ``root`` under ``to`` if it is still a root; True on success."""
    return atomic_load(p, root) == root and cas(p, root, root, to) == root


@nb.njit(cache=True, inline="always")
def mix64(x):
    """The splitmix64 finaliser of ``x`` as uint64: JTB's random priority of a vertex,
    and the random draws of k-out sampling."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


_stable_identity(_link, "_link")
_stable_identity(mix64, "mix64")


# ------------------------------------------------------------------ union factories
def union_async(find):
    """Union-Async with ``find``: CAS the larger root under the smaller, retry on a lost race."""

    @nb.njit(cache=True, inline="always")
    def unite(p, aux, u, v):
        while True:
            ru = find(p, u)
            rv = find(p, v)
            if ru == rv:
                return -1
            if ru < rv:
                ru, rv = rv, ru
            if _link(p, ru, rv):
                return ru
            u, v = ru, rv

    return unite


def union_early(find):
    """Union-Early: walk both paths together from the endpoints, one splitting step at a
    time, and stop where they meet or a root is linked; then ``find`` compresses the two
    paths walked (ConnectIt applies the find rule after the early-terminating walk)."""

    @nb.njit(cache=True, inline="always")
    def unite(p, aux, u0, v0):
        u, v = u0, v0
        linked = -1
        while u != v:
            if u < v:
                u, v = v, u
            pu = atomic_load(p, u)
            if pu == u:
                if cas(p, u, u, v) == u:
                    linked = u
                    break
                continue
            ppu = atomic_load(p, pu)
            if ppu != pu:
                p[u] = ppu
            u = pu
        find(p, u0)
        find(p, v0)
        return linked

    return unite


def union_hooks(find):
    """Union-Hooks: the CAS that decides a link is on ``aux`` (the hooks array), so the
    parent store itself is uncontended."""

    @nb.njit(cache=True, inline="always")
    def unite(p, aux, u, v):
        while True:
            ru = find(p, u)
            rv = find(p, v)
            if ru == rv:
                return -1
            if ru < rv:
                ru, rv = rv, ru
            if atomic_load(aux, ru) == 0 and cas(aux, ru, 0, 1) == 0:
                p[ru] = rv
                return ru
            u, v = ru, rv

    return unite


def _rem(step, lock: bool):
    @nb.njit(cache=True, inline="always")
    def unite(p, aux, x, y):
        rx, ry = x, y
        while True:
            prx = atomic_load(p, rx)
            pry = atomic_load(p, ry)
            if prx == pry:
                return -1
            if prx < pry:
                rx, ry = ry, rx
                prx, pry = pry, prx
            if rx == prx:
                if lock:
                    while cas(aux, rx, 0, 1) != 0:
                        pass
                    old = atomic_load(p, rx)
                    if old == rx:
                        p[rx] = pry
                    cas(aux, rx, 1, 0)
                else:
                    old = cas(p, rx, rx, pry)
                if old == rx:
                    return rx
                rx = old  # linked by another thread meanwhile: go on from its new parent
                continue
            rx = step(p, rx, prx, pry)

    return unite


def union_rem(step):
    """Rem's algorithm with lock-free CAS links and ``step`` (Rem-CAS).

    Parents have smaller ids than their children, so equal parents (even read at
    different times) are a common ancestor, and every iteration that does not
    return moves ``rx`` to a smaller node. A step may move non-root pointers across
    trees; only the final root link merges two sets.
    """
    return _rem(step, False)


def union_rem_lock(step):
    """Rem's algorithm whose root link holds ``aux[rx]`` as a spin lock (Rem-Lock)."""
    return _rem(step, True)


def union_jtb(find):
    """Jayanti-Tarjan-Boix-Adsera: link by a random total order of the vertices.

    The root of lower priority (:func:`mix64` of its id) goes under the other (ties by id), so
    concurrent links cannot close a cycle. The GPU keeps a rank in a 64-bit word
    beside each parent instead; on the CPU a fixed random order needs no second
    word to update atomically. Roots are not the smallest vertex: drivers rename
    them (the row's ``reroots``).
    """

    @nb.njit(cache=True, inline="always")
    def unite(p, aux, u, v):
        while True:
            ru = find(p, u)
            rv = find(p, v)
            if ru == rv:
                return -1
            ku, kv = mix64(ru), mix64(rv)
            if ku > kv or (ku == kv and ru < rv):
                ru, rv = rv, ru
            if _link(p, ru, rv):
                return ru
            u, v = ru, rv

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
    """The ``@njit`` ``unite(p, aux, u, v) -> int`` of union rule ``finish`` with ``compress``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.rules import aux_for, unite_for
    >>> unite = unite_for("rem_cas", "splice")
    >>> p, aux = np.arange(4), aux_for("rem_cas", 4)
    >>> int(unite(p, aux, 3, 1)), int(unite(p, aux, 1, 3)), p.tolist()
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
