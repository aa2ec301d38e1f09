"""CPU user paths of ``connected_components`` and ``spanning_forest``, a fresh input object
each call, medians of 5 after a warm-up (ms): host NumPy pairs, a one-way SciPy CSR and a
fresh ``Graph`` of R-MAT scale 20; a path with ids in order; a 2048 x 2048 grid as an edge
list with ids in order and as a graph flagged symmetric (``concomp.generators.grid``).
``--dask`` adds ``concomp.dask`` components of that path and grid (synchronous scheduler).

Run once per source tree and compare (``PYTHONPATH=<tree>/src python
benchmarks/ab_user_paths_cpu.py [--dask]``, trees alternated); prints one JSON line.
``--corpus NAME ...`` times instead ``connected_components`` on prebuilt corpus graphs
(``concomp.generators.corpus``), the count alone and with labels, on one and on two
threads; ``--forest-corpus NAME ...`` times ``spanning_forest`` on them (two threads,
its CSR built before the clock, as a prebuilt graph keeps it). The default run also
times both calls on a graph flagged symmetric of the same grid with permuted ids, and
``--scc`` adds ``strongly_connected_components`` on arcs as users pass them: R-MAT
scale 20 arcs as drawn (NumPy pairs, a SciPy CSR, a fresh directed ``Graph``), a
directed path of 2**22 vertices with ids along it and a 2048 x 2048 grid of one-way
streets in row order (NumPy pairs). ``--label`` times instead ``concomp.label``, called
again and again on one image as a user labelling frames or slices would: a spiral, a
maze and random masks at 30% and 80% foreground of 4096 x 4096 at 4- and 8-connectivity,
and a 256^3 volume at 10% at 6- and 26-connectivity.
"""

import json
import sys

import numpy as np
import scipy.sparse as sp

import concomp
from concomp.bench.timing import measure


def med(f):
    return round(measure(f, reps=5).median_ms, 1)


if "--label" in sys.argv[1:]:
    from concomp.testing.images import maze, random_mask, spiral

    images = {
        "spiral 4096^2": spiral(4096),
        "maze 4096^2": maze((4096, 4096), seed=4096),
        "random 30% 4096^2": random_mask((4096, 4096), 0.3, seed=4096),
        "random 80% 4096^2": random_mask((4096, 4096), 0.8, seed=4096),
        "random 10% 256^3": random_mask((256, 256, 256), 0.1, seed=256),
    }
    out = {}
    for name, image in images.items():
        for c in (1, image.ndim):
            out[f"label {name} c{c}"] = med(
                lambda im=image, c=c: concomp.label(im, c, device="cpu")
            )
    print(json.dumps(out))
    sys.exit()

if "--forest-corpus" in sys.argv[1:]:
    from concomp.generators.corpus import CORPUS

    concomp.warmup(device="cpu")
    out = {}
    for name in sys.argv[sys.argv.index("--forest-corpus") + 1 :]:
        cg = CORPUS[name].build()
        cg.csr()
        out[f"forest {name}"] = med(lambda g=cg: concomp.spanning_forest(g, device="cpu"))
    print(json.dumps(out))
    sys.exit()

if "--corpus" in sys.argv[1:]:
    import numba

    from concomp.generators.corpus import CORPUS

    out = {}
    for name in sys.argv[sys.argv.index("--corpus") + 1 :]:
        cg = CORPUS[name].build()
        for t in (1, 2):
            numba.set_num_threads(t)
            for labels in (False, True):
                out[f"cc {name} {'labels' if labels else 'count'} {t}t"] = med(
                    lambda lb=labels: concomp.connected_components(
                        cg, device="cpu", return_labels=lb
                    )
                )
    print(json.dumps(out))
    sys.exit()


g = concomp.generators.rmat(20, 16, seed=1, clean=False)
s, d = (np.asarray(a) for a in g.coo())
n0 = g.num_nodes
A = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n0, n0))
n = 1 << 22
v = np.arange(n)
ids = np.arange(2048 * 2048).reshape(2048, 2048)
gs = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
gd = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
grid = concomp.generators.grid(2048, 2048)
gi, gx = (np.asarray(a) for a in grid.csr()[:2])
grid_p = concomp.generators.grid(2048, 2048, permute=True)
pi, px = (np.asarray(a) for a in grid_p.csr()[:2])
out = {}
for what, call in (("cc", concomp.connected_components), ("forest", concomp.spanning_forest)):
    out[f"{what} numpy pairs rmat20"] = med(lambda c=call: c((s, d), num_nodes=n0, device="cpu"))
    out[f"{what} scipy csr rmat20"] = med(lambda c=call: c(A.copy(), device="cpu"))
    out[f"{what} fresh Graph rmat20"] = med(
        lambda c=call: c(concomp.Graph.from_edges(s, d, num_nodes=n0), device="cpu")
    )
    out[f"{what} path 2^22 in order"] = med(
        lambda c=call: c((v[:-1], v[1:]), num_nodes=n, device="cpu")
    )
    out[f"{what} grid 2048^2 natural edges"] = med(
        lambda c=call: c((gs, gd), num_nodes=ids.size, device="cpu")
    )
    out[f"{what} grid 2048^2 symmetric Graph"] = med(
        lambda c=call: c(
            concomp.Graph.from_csr(gi, gx, num_nodes=ids.size, symmetric=True), device="cpu"
        )
    )
    out[f"{what} grid 2048^2 permuted symmetric Graph"] = med(
        lambda c=call: c(
            concomp.Graph.from_csr(pi, px, num_nodes=ids.size, symmetric=True), device="cpu"
        )
    )
if "--scc" in sys.argv[1:]:
    from concomp.generators.corpus import directed_arcs

    scc = concomp.strongly_connected_components
    D = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n0, n0))
    ws, wd, wn = directed_arcs("grid", {"rows": 2048, "cols": 2048}, 0)
    out["scc numpy pairs rmat20"] = med(lambda: scc((s, d), num_nodes=n0, device="cpu"))
    out["scc scipy csr rmat20"] = med(lambda: scc(D.copy(), device="cpu"))
    out["scc fresh Graph rmat20"] = med(
        lambda: scc(concomp.Graph.from_edges(s, d, num_nodes=n0, directed=True), device="cpu")
    )
    out["scc chain 2^22 in order"] = med(lambda: scc((v[:-1], v[1:]), num_nodes=n, device="cpu"))
    out["scc one-way grid 2048^2 row order"] = med(
        lambda: scc((ws, wd), num_nodes=wn, device="cpu")
    )
if "--dask" in sys.argv[1:]:
    import dask
    import dask.array as da

    import concomp.dask as cd

    with dask.config.set(scheduler="synchronous"):
        ps, pd_ = da.from_array(v[:-1], chunks=1 << 20), da.from_array(v[1:], chunks=1 << 20)
        out["dask cc path 2^22 in order"] = med(
            lambda: cd.connected_components((ps, pd_), n, device="cpu")
        )
        qs, qd = da.from_array(gs, chunks=1 << 21), da.from_array(gd, chunks=1 << 21)
        out["dask cc grid 2048^2 natural"] = med(
            lambda: cd.connected_components((qs, qd), ids.size, device="cpu")
        )
print(json.dumps(out))
