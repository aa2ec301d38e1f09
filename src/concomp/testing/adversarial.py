"""High-diameter graphs whose vertex ids follow their long paths.

Data often arrives this way: a polyline, a trajectory or a time series linked frame
to frame, a linked list, a mesh or an image in file order. Union-find rules that link
by raw id build parent chains as long as those paths when many links run at once, so
these shapes are the worst case of every linking rule; each is listed with its edges
in id order, as a file would hold them.

Examples
--------
>>> from concomp.testing.adversarial import high_diameter_graphs
>>> g = high_diameter_graphs(64)
>>> sorted(g)[:3]
['caterpillar', 'comb', 'grid_row']
>>> src, dst, n = g["path_natural"]
>>> n, src[:3].tolist(), dst[:3].tolist()
(64, [0, 1, 2], [1, 2, 3])

Their directed counterparts, for strongly connected components:

>>> from concomp.testing.adversarial import high_diameter_digraphs
>>> src, dst, n = high_diameter_digraphs(8)["ring_descending"]
>>> sorted(zip(src.tolist(), dst.tolist()))[:3]
[(0, 7), (1, 0), (2, 1)]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._base import ZooGraph

__all__ = ["high_diameter_digraphs", "high_diameter_graphs"]


def _g(src: np.ndarray, dst: np.ndarray, n: int) -> ZooGraph:
    src = np.asarray(src, np.int64).ravel()
    dst = np.asarray(dst, np.int64).ravel()
    # edges in id order, as a file lists them (a stable sort finds the runs they are
    # mostly in already)
    order = np.argsort(src * max(n, 1) + dst, kind="stable")
    return ZooGraph(src[order], dst[order], int(n))


def _path_by_order(order: np.ndarray) -> ZooGraph:
    """A path visiting the vertex ids ``order[0], order[1], ...``."""
    return _g(order[:-1], order[1:], order.shape[0])


def _grid(ids: np.ndarray) -> ZooGraph:
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return _g(src, dst, ids.size)


def _morton(rows: int, cols: int) -> np.ndarray:
    """Ids of a rows x cols grid numbered along the Z-order curve (rank of the
    interleaved row and column bits)."""
    r, c = np.meshgrid(
        np.arange(rows, dtype=np.uint64), np.arange(cols, dtype=np.uint64), indexing="ij"
    )
    code = np.zeros(r.shape, np.uint64)
    for bit in range(max(rows, cols).bit_length()):
        b = np.uint64(bit)
        code |= ((r >> b) & np.uint64(1)) << (np.uint64(2) * b + np.uint64(1))
        code |= ((c >> b) & np.uint64(1)) << (np.uint64(2) * b)
    rank = np.empty(code.size, np.int64)
    rank[np.argsort(code.ravel(), kind="stable")] = np.arange(code.size)
    return rank.reshape(rows, cols)


@nb.njit(cache=True)
def _dfs_parents(jumps: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """Parents of a tree whose ids are its depth-first preorder: vertex v hangs off
    v - 1, or (where ``jumps[v]``) off an ancestor of v - 1 picked by ``picks[v]``."""
    n = jumps.shape[0]
    parent = np.empty(n, np.int64)
    parent[0] = -1
    stack = np.empty(n, np.int64)  # the path from the root to v - 1
    depth = 0
    stack[0] = 0
    for v in range(1, n):
        if jumps[v] and depth > 0:
            depth = int(picks[v] * depth)  # keep the ancestors up to this depth
        parent[v] = stack[depth]
        depth += 1
        stack[depth] = v
    return parent


def _dfs_tree(n: int, rng: np.random.Generator) -> ZooGraph:
    """A deep random tree in depth-first preorder: each vertex is a child of the one
    before it nine times in ten, else of a random ancestor of it."""
    parent = _dfs_parents(rng.random(n) < 0.1, rng.random(n))
    return _g(parent[1:], np.arange(1, n), n)


def high_diameter_graphs(n: int, seed: int = 0) -> dict[str, ZooGraph]:
    """About ``n`` vertices of each high-diameter shape, ids along the paths.

    ``path_natural`` (ids 0, 1, 2, ...), ``path_descending``, ``path_block_local``
    (runs of 1024 consecutive ids, the runs in random order), ``caterpillar`` (a
    spine in id order, one leaf per spine vertex), ``comb`` (a spine with a tooth of
    15 vertices at every 16th vertex), ``ladder`` (two rails, a rung per step),
    ``tree_dfs`` (a deep random tree in depth-first preorder), and square grids in
    row-major (``grid_row``), boustrophedon (``grid_snake``) and Z-curve
    (``grid_zorder``) order.
    """
    if n < 4:
        raise ValueError(f"argument `n`: {n} is too small; pass n >= 4.")
    rng = np.random.default_rng(seed)
    ids = np.arange(n)
    out: dict[str, ZooGraph] = {}
    out["path_natural"] = _path_by_order(ids)
    out["path_descending"] = _path_by_order(ids[::-1].copy())
    block = min(1024, max(n // 4, 1))
    blocks = [ids[i : i + block] for i in range(0, n, block)]
    out["path_block_local"] = _path_by_order(
        np.concatenate([blocks[i] for i in rng.permutation(len(blocks))])
    )
    s = n // 2
    spine = np.arange(s)
    out["caterpillar"] = _g(np.r_[spine[:-1], spine], np.r_[spine[1:], spine + s], 2 * s)
    teeth_at = np.arange(0, n, 16)
    tooth = np.arange(15)
    tooth_ids = (teeth_at[:, None] + 1 + tooth[None, :]).ravel()
    tooth_ids = tooth_ids[tooth_ids < n]
    on_spine = np.setdiff1d(ids, tooth_ids)  # the spine runs through every 16th id
    # each tooth hangs off its spine vertex: every tooth vertex links to the id before it
    out["comb"] = _g(np.r_[on_spine[:-1], tooth_ids - 1], np.r_[on_spine[1:], tooth_ids], n)
    half = n // 2
    rail = np.arange(half)
    out["ladder"] = _g(
        np.r_[rail[:-1], rail[:-1] + half, rail],
        np.r_[rail[1:], rail[1:] + half, rail + half],
        2 * half,
    )
    out["tree_dfs"] = _dfs_tree(n, rng)
    side = max(int(np.sqrt(n)), 2)
    grid = np.arange(side * side).reshape(side, side)
    out["grid_row"] = _grid(grid)
    snake = grid.copy()
    snake[1::2] = snake[1::2, ::-1]
    out["grid_snake"] = _grid(snake)
    out["grid_zorder"] = _grid(_morton(side, side))
    return dict(sorted(out.items()))


def _lanes(n: int) -> ZooGraph:
    """Four rings of ``n // 4`` vertices whose arcs point to the next smaller id, each
    vertex also joined both ways to its twin on the next ring."""
    k = n // 4
    r = np.arange(k)
    src, dst = [], []
    for lane in range(4):
        nxt = (lane + 1) % 4
        src += [lane * k + r, lane * k + r, nxt * k + r]
        dst += [lane * k + (r - 1) % k, nxt * k + r, lane * k + r]
    return _g(np.concatenate(src), np.concatenate(dst), 4 * k)


def high_diameter_digraphs(n: int, seed: int = 0) -> dict[str, ZooGraph]:
    """About ``n`` vertices of each high-diameter directed shape (arcs ``src -> dst``).

    ``path_ascending`` (``0 -> 1 -> ...``: every vertex its own component),
    ``path_descending``, rings (one component) numbered along their arcs
    (``ring_ascending``), against them (``ring_descending``) and at random
    (``ring_shuffled``), ``lanes_descending`` (four descending rings joined rung by
    rung both ways: a front four vertices wide travelling against the numbering), and
    ``grid_oneway`` (a square grid of one-way streets alternating in direction, as the
    benchmark corpus's ``grid-oneway``: one component and up to four corners that
    only enter or only leave).
    """
    if n < 8:
        raise ValueError(f"argument `n`: {n} is too small; pass n >= 8.")
    rng = np.random.default_rng(seed)
    v = np.arange(n)
    perm = rng.permutation(n)
    out = {
        "path_ascending": _g(v[:-1], v[1:], n),
        "path_descending": _g(v[1:], v[:-1], n),
        "ring_ascending": _g(v, np.roll(v, -1), n),
        "ring_descending": _g(v, np.roll(v, 1), n),
        "ring_shuffled": _g(perm, np.roll(perm, -1), n),
        "lanes_descending": _lanes(n),
    }
    side = max(int(np.sqrt(n)), 2)
    ids = np.arange(side * side).reshape(side, side)
    east = (np.arange(side) % 2 == 0)[:, None]
    south = np.arange(side) % 2 == 0
    h_src, h_dst = ids[:, :-1], ids[:, 1:]
    v_src, v_dst = ids[:-1, :], ids[1:, :]
    out["grid_oneway"] = _g(
        np.r_[np.where(east, h_src, h_dst).ravel(), np.where(south, v_src, v_dst).ravel()],
        np.r_[np.where(east, h_dst, h_src).ravel(), np.where(south, v_dst, v_src).ravel()],
        side * side,
    )
    return dict(sorted(out.items()))
