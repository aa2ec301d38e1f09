"""Connected-component labelling of images and volumes: concomp.label against its peers.

Corpus: random masks at several foreground probabilities (including about 0.59, the
2-D site-percolation threshold, and 0.31, the 3-D one), ``skimage.data.binary_blobs``
when scikit-image is installed, a one-pixel spiral and a perfect maze (one component
through the whole image); 2-D 4096^2 and 8192^2, 3-D 256^3 and 512^3 (``--quick``:
2048^2 and 64^3). Each image is labelled at connectivity 1 and ``ndim``.

Peers in the same run: on the CPU scipy.ndimage, scikit-image, connected-components-3d
and OpenCV (each when installed); on the GPU cupyx.scipy.ndimage. On the CPU every
system runs once per round, each round starting one system further on (medians of the
rounds). Every result is checked: concomp's labels equal SciPy's exactly, a peer's
equal them up to numbering. GPU rows carry the memory floor, (mask bytes + label bytes)
/ the measured device-to-device copy bandwidth. One JSON document goes to ``--out``,
rewritten after every row.

    PYTHONPATH=src python benchmarks/bench_label.py --device cpu --sizes 4096,256 --out r.json
"""

from __future__ import annotations

import argparse
import datetime
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from concomp.bench import results
from concomp.bench.timing import measure, measure_rounds
from concomp.testing.images import label_reference, maze, random_mask, spiral

P_2D = (0.3, 0.55, 0.59, 0.8)
P_3D = (0.1, 0.3, 0.31, 0.5)


def corpus(sizes: list[int]) -> Iterator[tuple[str, np.ndarray]]:
    """``(name, image)`` pairs, generated one at a time (a 512^3 volume is 128 MiB)."""
    try:
        from skimage.data import binary_blobs
    except ImportError:
        binary_blobs = None
    for size in sizes:
        three_d = size <= 1024  # 2-D sizes are given as 4096, 8192; 3-D ones as 256, 512
        shape = (size,) * (3 if three_d else 2)
        tag = "x".join(map(str, shape))
        for p in P_3D if three_d else P_2D:
            yield f"random-p{p}-{tag}", random_mask(shape, p, seed=size)
        if binary_blobs is not None:
            blobs = binary_blobs(size, blob_size_fraction=0.05, n_dim=len(shape), rng=size)
            yield f"blobs-{tag}", blobs
        if not three_d:
            yield f"spiral-{tag}", spiral(size)
            yield f"maze-{tag}", maze(shape, seed=size)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labellings have the same background and the same regions."""
    a, b = a.ravel().astype(np.int64), b.ravel().astype(np.int64)
    if not np.array_equal(a == 0, b == 0):
        return False
    fg = a != 0
    pairs = np.unique(a[fg] * (int(b.max()) + 1) + b[fg])
    return pairs.size == np.unique(a[fg]).size == np.unique(b[fg]).size


def cpu_peers(image: np.ndarray, connectivity: int) -> dict[str, Callable[[], Any]]:
    """The CPU labellers installed here, each returning its labels."""
    from scipy import ndimage

    structure = ndimage.generate_binary_structure(image.ndim, connectivity)
    peers: dict[str, Callable[[], Any]] = {
        "scipy.ndimage": lambda: ndimage.label(image, structure)[0]
    }
    try:
        from skimage import measure as skm

        peers["skimage"] = lambda: skm.label(image, connectivity=connectivity)
    except ImportError:
        pass
    try:
        import cc3d

        cc3d_conn = {2: (4, 8), 3: (6, 18, 26)}[image.ndim][connectivity - 1]
        peers["cc3d"] = lambda: cc3d.connected_components(image, connectivity=cc3d_conn)
    except ImportError:
        pass
    if image.ndim == 2:
        try:
            import cv2

            view = image.view(np.uint8)
            cv_conn = 4 if connectivity == 1 else 8
            peers["opencv"] = lambda: cv2.connectedComponents(view, connectivity=cv_conn)[1]
        except ImportError:
            pass
    return peers


def copy_bandwidth(reps: int) -> float:
    """Device-to-device copy bandwidth in bytes/s (read + write of a 1 GiB buffer)."""
    import cupy as cp

    src = cp.ones(1 << 30, dtype=np.uint8)
    dst = cp.empty_like(src)
    t = measure(lambda: dst.__setitem__(Ellipsis, src), device="gpu", reps=reps)
    return 2 * src.nbytes / (t.median_ms / 1e3)


def run_cpu(name: str, image: np.ndarray, connectivity: int, reps: int) -> dict[str, Any]:
    import concomp

    row: dict[str, Any] = {"image": name, "shape": list(image.shape)}
    row["connectivity"] = connectivity
    row["foreground"] = float(image.mean())
    want, count = label_reference(image, connectivity)
    row["components"] = count
    ours = concomp.label(image, connectivity, device="cpu")
    row["concomp_labels_equal_scipy"] = bool(np.array_equal(ours, want))
    fns = {"concomp": lambda: concomp.label(image, connectivity, device="cpu")}
    for peer, fn in cpu_peers(image, connectivity).items():
        row[f"{peer}_same_regions"] = bool(same_partition(fn(), want))
        fns[peer] = fn
    # one call of each system per round: a large image's first calls wait on the OS
    # (fresh memory to zero and compact), and that must not land on one system's series
    for system, timing in measure_rounds(fns, reps=reps).items():
        row[f"{system}_ms"] = timing.median_ms
    return row


def run_gpu(
    name: str, image: np.ndarray, connectivity: int, reps: int, bandwidth: float
) -> dict[str, Any]:
    import cupy as cp
    from cupyx.scipy import ndimage as cnd

    import concomp

    row: dict[str, Any] = {"image": name, "shape": list(image.shape)}
    row["connectivity"] = connectivity
    want, count = label_reference(image, connectivity)
    row["components"] = count
    dev = cp.asarray(image)
    ours = concomp.label(dev, connectivity, device="gpu")
    row["concomp_labels_equal_scipy"] = bool(np.array_equal(ours.get(), want))
    row["concomp_ms"] = measure(
        lambda: concomp.label(dev, connectivity, device="gpu"), device="gpu", reps=reps
    ).median_ms
    floor_bytes = image.nbytes + ours.nbytes
    row["floor_ms"] = floor_bytes / bandwidth * 1e3
    row["concomp_over_floor"] = row["concomp_ms"] / row["floor_ms"]
    from scipy.ndimage import generate_binary_structure

    structure = cp.asarray(generate_binary_structure(image.ndim, connectivity))
    peer = cnd.label(dev, structure)[0]
    row["cupyx_same_regions"] = bool(same_partition(peer.get(), want))
    row["cupyx_ms"] = measure(lambda: cnd.label(dev, structure), device="gpu", reps=reps).median_ms
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--sizes", default="4096,8192,256,512", help="2-D edges > 1024, 3-D <= 1024")
    ap.add_argument("--quick", action="store_true", help="2048^2 and 64^3 only")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    sizes = [2048, 64] if args.quick else [int(s) for s in args.sizes.split(",")]
    import numba

    bandwidth = copy_bandwidth(args.reps) if args.device == "gpu" else None
    rows: list[dict[str, Any]] = []
    doc = {
        "schema": results.SCHEMA,
        "benchmark": "label",
        "date": datetime.date.today().isoformat(),
        "device": args.device,
        "numba_threads": numba.get_num_threads(),
        "copy_bandwidth_bytes_per_s": bandwidth,
        "machine": results.machine(args.device),
        "versions": results.versions(),
        "rows": rows,
    }
    for name, image in corpus(sizes):
        for connectivity in sorted({1, image.ndim}):
            if args.device == "gpu":
                row = run_gpu(name, image, connectivity, args.reps, bandwidth)
            else:
                row = run_cpu(name, image, connectivity, args.reps)
            rows.append(row)
            times = " ".join(f"{k[:-3]}={v:.1f}" for k, v in row.items() if k.endswith("_ms"))
            print(f"{name:28s} c={connectivity} {times}", flush=True)
            if args.out:  # after every row: a run cut by a time limit keeps what it measured
                results.write(doc, args.out)
    if args.out:
        results.write(doc, args.out)
    else:
        print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
