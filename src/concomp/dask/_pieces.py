"""What runs inside the tasks: a partition's forest, a merge of forests, the label structure.

Pieces travel as NumPy arrays; each task calls the public single-machine API
(:func:`concomp.spanning_forest`, :func:`concomp.minimum_spanning_forest`,
:func:`concomp.connected_components`) on the engine it resolves to, as the public call on
host data of that many edges would (the GPU on a GPU worker). On the GPU a task moves
its edges to the device once and does everything there (id checks, relabelling, the
forest, the gather of the forest's edges): only the forest comes back to the host.

Edge ids travel as packed keys ``partition << KEY_BITS | position``: their order is the
order of the edges in the whole collection, so the minimum spanning forest's tie rule
(weight, min(u, v), max(u, v), edge id) breaks ties exactly as the single-machine engine
does, without knowing the partitions' sizes in advance. Vertex ids are relabelled by a
monotone map (``np.unique``) when they are sparse, which preserves min/max in the tie rule.
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from dask.sizeof import sizeof

from .._arrays import get_xp, is_cupy_array, to_device, to_numpy
from .._checks import MAX_NODES
from .._dispatch import GPU_MIN_EDGES, resolve_device
from ..components import component_roots, connected_components
from ..errors import ConcompError, InvalidGraphError
from ..forest import spanning_forest
from ..msf import GPU_MIN_EDGES as MSF_GPU_MIN_EDGES
from ..msf import minimum_spanning_forest
from ..streaming import EdgeChunk, chunk_ids, range_check

__all__ = [
    "KEY_BITS",
    "Piece",
    "Labeling",
    "leaf",
    "merge",
    "labeling",
    "label_block",
    "edge_bytes",
]

#: Low bits of a packed edge key that hold the position inside its partition.
KEY_BITS = 40
#: Ids are used as they are (no relabelling) while the largest id is below this many
#: times the number of endpoints: the engine's O(n) state then costs no more than the edges.
DENSE_FACTOR = 4


@dataclass
class Piece:
    """A forest (or an error) on its way up the merge tree.

    ``records`` holds one row per task that contributed: (key, level, start, stop,
    worker, edges in, edges out); ``sizes`` maps partition -> edge count.
    """

    src: np.ndarray
    dst: np.ndarray
    keys: np.ndarray
    weights: np.ndarray | None
    max_id: int
    sizes: dict[int, int]
    records: list[tuple] = field(default_factory=list)
    error: ConcompError | None = None

    @property
    def num_edges(self) -> int:
        return int(self.keys.shape[0])


@dataclass
class Labeling:
    """Enough to label every vertex.

    Dense ids (the largest id within :data:`DENSE_FACTOR` of the forest's endpoints):
    ``dense`` holds the canonical labels of vertices ``0 .. max_id`` and ``dense_count``
    their number of components; vertices above ``max_id`` are components of their own.
    Sparse ids: the forest's sorted vertices ``verts``, their component minima ``roots``
    and the sorted vertices that are not the minimum of their component, ``nonmin``.
    """

    verts: np.ndarray
    roots: np.ndarray
    nonmin: np.ndarray
    max_id: int
    sizes: dict[int, int]
    records: list[tuple]
    error: ConcompError | None = None
    dense: np.ndarray | None = None
    dense_count: int = 0

    def num_components(self, n: int) -> int:
        """Components among vertices ``0 .. n - 1`` (``n > max_id``)."""
        if self.dense is not None:
            return self.dense_count + n - int(self.dense.shape[0])
        return n - int(self.nonmin.shape[0])


def _piece_nbytes(p: Piece) -> int:
    arrays = [p.src, p.dst, p.keys] + ([p.weights] if p.weights is not None else [])
    return sum(int(a.nbytes) for a in arrays) + 64 * (len(p.sizes) + len(p.records)) + 256


def _labeling_nbytes(p: Labeling) -> int:
    dense = int(p.dense.nbytes) if p.dense is not None else 0
    return (
        int(p.verts.nbytes + p.roots.nbytes + p.nonmin.nbytes) + dense + 64 * len(p.records) + 256
    )


sizeof.register(Piece)(_piece_nbytes)
sizeof.register(Labeling)(_labeling_nbytes)

_ARRAY_FIELDS = {
    Piece: ("src", "dst", "keys", "weights"),
    Labeling: ("verts", "roots", "nonmin", "dense"),
}


def _register_serializers() -> None:
    """Pieces and labelings travel with their arrays as Dask's own NumPy frames.

    Pickled whole, a dataclass of arrays took several times as long per byte to reach
    the client as a bare array does (one 64 MiB labelling: 0.27 s against 0.08 s on one
    machine); the arrays go out of band as distributed sends NumPy arrays, the few
    scalars, dicts and records pickled in the header.
    """
    try:
        from distributed.protocol import dask_deserialize, dask_serialize, deserialize, serialize
    except ImportError:  # local schedulers pass objects without serializing them
        return

    def register(cls: type) -> None:
        names = _ARRAY_FIELDS[cls]

        def dump(obj: Any) -> tuple[dict, list]:
            arrays = {k: getattr(obj, k) for k in names if getattr(obj, k) is not None}
            rest = {k: v for k, v in vars(obj).items() if k not in arrays}
            header, frames = serialize(arrays, serializers=("dask",))
            return {"arrays": header, "rest": pickle.dumps(rest, protocol=5)}, frames

        def load(header: dict, frames: list) -> Any:
            fields = pickle.loads(header["rest"])
            fields.update(deserialize(header["arrays"], frames))
            return cls(**fields)

        dask_serialize.register(cls)(dump)
        dask_deserialize.register(cls)(load)

    register(Piece)
    register(Labeling)


_register_serializers()


def edge_bytes(weighted: bool) -> int:
    """Bytes one forest edge takes in a piece (src, dst, key and the weight)."""
    return 8 * (3 + int(weighted))


def _worker() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return "local"


def empty(weighted: bool) -> Piece:
    """The forest of no edges at all."""
    return _empty(weighted)


def _empty(weighted: bool) -> Piece:
    z = np.zeros(0, np.int64)
    return Piece(z, z, z, np.zeros(0) if weighted else None, -1, {})


def _engine(device: str, kind: str, m: int, on_gpu: bool, what: str) -> str:
    """``"cpu"`` or ``"gpu"`` for a task of ``m`` edges, as the public call would pick."""
    return resolve_device(
        device,
        data_device="gpu" if on_gpu else "cpu",
        num_edges=m,
        min_edges=MSF_GPU_MIN_EDGES if kind == "msf" else GPU_MIN_EDGES,
        what=what,
    )


def _to_gpu(pairs: list[tuple[np.ndarray, np.ndarray]]) -> tuple[Any, Any, int, int]:
    """Host id pairs concatenated on the GPU, and their range (staged through pinned slots)."""
    from .._gpu._compat import staged_edges_to_device

    return staged_edges_to_device(pairs)


def _on(dev: str, a: Any) -> Any:
    """``a`` on the engine's device (None stays None)."""
    if a is None:
        return None
    return to_device(a) if dev == "gpu" else to_numpy(a)


def _local_forest(
    src: Any,
    dst: Any,
    weights: Any,
    kind: str,
    device: str,
    maximum: bool,
    hi: int,
) -> Any:
    """Ascending positions of a spanning forest (``kind="forest"``) or of the minimum
    spanning forest (``kind="msf"``) of the edges given, on their device (``device`` is
    the resolved engine; ``hi`` bounds the ids)."""
    xp = get_xp(src)
    m = src.shape[0]
    if m == 0:
        return xp.zeros(0, np.int64)
    if hi + 1 > DENSE_FACTOR * 2 * m + 1024:  # sparse ids: relabel, keeping their order
        verts, inverse = xp.unique(xp.concatenate([src, dst]), return_inverse=True)
        inverse = inverse.reshape(-1)
        src, dst, n = inverse[:m], inverse[m:], int(verts.shape[0])
    else:
        n = hi + 1
    if kind == "msf":
        ids = minimum_spanning_forest((src, dst), weights, maximum=maximum, device=device).edge_ids
    else:
        ids = spanning_forest((src, dst), num_nodes=n, device=device).edge_ids
    return ids.astype(np.int64, copy=False)


def _column(a: Any) -> Any:
    if is_cupy_array(a):  # a Dask array of CuPy blocks: checked where it is
        return a
    if hasattr(a, "to_numpy"):
        try:  # pandas nullable and pyarrow columns: missing values become NaN
            return a.to_numpy(dtype="float64", na_value=np.nan) if _has_missing(a) else a.to_numpy()
        except TypeError:
            return a.to_numpy()
    return np.asarray(a)


def _has_missing(a: Any) -> bool:
    try:
        return bool(a.isna().any())
    except AttributeError:
        return bool(a.null_count) if hasattr(a, "null_count") else False


def leaf(
    data: Any,
    *,
    part: int,
    label: str,
    key: str,
    num_nodes: int | None,
    kind: str,
    device: str,
    maximum: bool = False,
    columns: tuple[str, str, str | None] | None = None,
) -> Piece:
    """The forest of one partition. ``data`` is ``(src, dst, weights)``, a data frame
    whose ``columns`` are (source, target, weight or None), or a loader (an object with
    ``load() -> (src, dst, weights)``, e.g. a Parquet row group).

    Bad ids or weights give a piece carrying the error (named by ``label``), which the
    merges pass up unchanged: a deterministic error is not worth a retry.
    """
    start = time.time()
    if columns is not None:
        s, t, wc = columns
        src, dst, w = data[s], data[t], (data[wc] if wc is not None else None)
    else:
        src, dst, w = data.load() if hasattr(data, "load") else data
    try:
        src, dst, w, hi, dev = _checked(src, dst, w, label, num_nodes, device, kind)
        ids = _local_forest(src, dst, w, kind, dev, maximum, hi)
    except ConcompError as exc:  # bad input, no GPU: the same on every retry
        text = str(exc) if str(exc).startswith(label) else f"{label}: {exc}"
        bad = _empty(w is not None)
        bad.error, bad.sizes = type(exc)(text), {part: 0}
        return bad
    m = int(src.shape[0])
    keys = (np.int64(part) << np.int64(KEY_BITS)) + to_numpy(ids)
    weights = None if w is None else to_numpy(w[ids])
    out = Piece(
        to_numpy(src[ids].astype(np.int64, copy=False)),
        to_numpy(dst[ids].astype(np.int64, copy=False)),
        keys,
        weights,
        hi,
        {part: m},
    )
    out.records = [(key, 0, start, time.time(), _worker(), m, out.num_edges)]
    return out


def _checked(
    src: Any, dst: Any, w: Any, label: str, num_nodes: int | None, device: str, kind: str
) -> tuple[Any, Any, Any, int, str]:
    """Ids checked (integer, no NaN, in range), weights counted; the largest id and the
    engine. The arrays come back on the engine's device, checked there."""
    chunk = EdgeChunk(label, _column(src), _column(dst))
    s, d = chunk_ids(chunk)
    dev = _engine(device, kind, int(s.shape[0]), is_cupy_array(s), label)
    staged = dev == "gpu" and not is_cupy_array(s)
    if staged:  # staged through pinned slots, narrowed while ids fit, the range found on the way
        s, d, lo, hi = _to_gpu([(s, d)])
    else:
        s, d = _on(dev, s), _on(dev, d)
    if w is not None:
        w = _column(w)
        if w.shape[0] != s.shape[0]:
            raise InvalidGraphError(
                f"{label}: {w.shape[0]} weights for {s.shape[0]} edges. Fix: give one "
                "weight per edge, chunked like the edges."
            )
        if w.dtype.kind not in "biuf":
            raise InvalidGraphError(
                f"{label}: weights of dtype {w.dtype} are not numbers. Fix: give numeric "
                "weights (e.g. .astype(numpy.float64))."
            )
        w = _on(dev, w)
    if s.shape[0] == 0:
        return s, d, w, -1, dev
    if not staged:
        lo, hi = min(int(s.min()), int(d.min())), max(int(s.max()), int(d.max()))
    # without num_nodes only the sign is checked: sparse ids far beyond memory are fine here
    range_check(chunk, s, d, MAX_NODES if num_nodes is None else num_nodes)(lo, hi)
    return s, d, w, hi, dev


def _gathered(pieces: tuple[Piece, ...]) -> tuple[dict[int, int], list[tuple]]:
    """The partitions' edge counts and the task records of ``pieces``, together."""
    sizes: dict[int, int] = {}
    records: list[tuple] = []
    for p in pieces:
        sizes.update(p.sizes)
        records.extend(p.records)
    return sizes, records


def _first_error(pieces: list[Piece]) -> Piece | None:
    """The piece with an error from the earliest partition, if any."""
    bad = [p for p in pieces if p.error is not None]
    return min(bad, key=lambda p: min(p.sizes, default=0)) if bad else None


def merge(*pieces: Piece, key: str, level: int, kind: str, device: str, maximum: bool) -> Piece:
    """The forest of the union of ``pieces``' forests (one more local run, on the
    engine's device: the pieces are concatenated there in key order)."""
    start = time.time()
    bad = _first_error(list(pieces))
    if bad is not None:
        return bad
    sizes, records = _gathered(pieces)
    order = sorted(pieces, key=lambda p: int(p.keys[0]) if p.num_edges else 0)
    m = sum(p.num_edges for p in order)
    max_id = max(p.max_id for p in pieces)
    try:
        dev = _engine(device, kind, m, False, "merge")
    except ConcompError as exc:
        failed = _empty(kind == "msf")
        failed.error, failed.sizes, failed.records = exc, sizes, records
        return failed

    def cat(arrays: list[Any]) -> Any:
        moved = [_on(dev, a) for a in arrays]
        return get_xp(*moved).concatenate(moved)

    if dev == "gpu":
        src, dst, _, _ = _to_gpu([(p.src, p.dst) for p in order])
    else:
        src, dst = cat([p.src for p in order]), cat([p.dst for p in order])
    keys = cat([p.keys for p in order])
    w = cat([p.weights for p in order]) if kind == "msf" else None
    if m > 1 and not bool((keys[1:] > keys[:-1]).all()):  # pieces of interleaved ranges
        perm = get_xp(keys).argsort(keys)  # keys are unique: any sort gives one order
        src, dst, keys = src[perm], dst[perm], keys[perm]
        w = None if w is None else w[perm]
    ids = _local_forest(src, dst, w, kind, dev, maximum, max_id)
    out = Piece(
        to_numpy(src[ids].astype(np.int64, copy=False)),
        to_numpy(dst[ids].astype(np.int64, copy=False)),
        to_numpy(keys[ids]),
        None if w is None else to_numpy(w[ids]),
        max_id,
        sizes,
        records,
    )
    out.records.append((key, level, start, time.time(), _worker(), m, out.num_edges))
    return out


def labeling(*pieces: Piece, key: str, level: int, device: str) -> Labeling:
    """The components of the union of the top round's forests (one more local run, in
    place of a last merge: labels need no forest of their own): canonical labels of
    every vertex up to the largest id when ids are dense, else the component minima of
    the forests' vertices."""
    start = time.time()
    z = np.zeros(0, np.int64)
    sizes, records = _gathered(pieces)
    max_id = max((p.max_id for p in pieces), default=-1)
    bad = _first_error(list(pieces))
    if bad is not None:
        return Labeling(z, z, z, max_id, sizes, records, bad.error)
    m = sum(p.num_edges for p in pieces)
    k = max_id + 1
    if k <= DENSE_FACTOR * 2 * m + 1024:  # one engine run numbers every vertex 0 .. max_id
        dev = resolve_device(device, num_edges=m, what="labels")
        if dev == "gpu":
            src, dst, _, _ = _to_gpu([(p.src, p.dst) for p in pieces])
        else:
            src = np.concatenate([p.src for p in pieces]) if pieces else z
            dst = np.concatenate([p.dst for p in pieces]) if pieces else z
        count, dense = connected_components((src, dst), num_nodes=k, device=dev, renumber=False)
        host = to_numpy(dense)  # the labels on the host (the GPU's work done) before the stamp
        records.append((key, level, start, time.time(), _worker(), m, 0))
        out = Labeling(z, z, z, max_id, sizes, records)
        out.dense, out.dense_count = host, int(count)
        return out
    ends = [p.src for p in pieces] + [p.dst for p in pieces]
    verts, inverse = np.unique(np.concatenate(ends), return_inverse=True)
    if m:
        local = component_roots(
            (inverse[:m], inverse[m:]), device=device, algorithm="auto"
        )  # smallest compact id of each component = smallest vertex id (the map is monotone)
        roots = verts[to_numpy(local)]  # the GPU engine returns CuPy roots
    else:
        roots = verts
    nonmin = verts[roots != verts]
    records.append((key, level, start, time.time(), _worker(), m, 0))
    return Labeling(verts, roots, nonmin, max_id, sizes, records)


def label_block(lab: Labeling, start: int, stop: int, dtype: Any) -> np.ndarray:
    """Canonical (SciPy-numbered) labels of vertices ``start .. stop - 1``.

    Dense: the engine's labels, then one new component per vertex above ``max_id``.
    Sparse: a vertex's component is numbered by how many components have a smaller
    minimum, ``r - #(non-minimum vertices below r)`` for its component minimum ``r``.
    """
    if lab.dense is not None:
        k = int(lab.dense.shape[0])
        out = np.empty(stop - start, dtype)
        mid = min(max(start, k), stop)  # labels below `mid` come from the engine
        out[: mid - start] = lab.dense[start:mid]
        out[mid - start :] = np.arange(mid - k + lab.dense_count, stop - k + lab.dense_count)
        return out
    v = np.arange(start, stop, dtype=np.int64)
    pos = np.searchsorted(lab.verts, v)
    found = pos < lab.verts.shape[0]
    found[found] = lab.verts[pos[found]] == v[found]
    r = v.copy()
    r[found] = lab.roots[pos[found]]
    return (r - np.searchsorted(lab.nonmin, r)).astype(dtype)
