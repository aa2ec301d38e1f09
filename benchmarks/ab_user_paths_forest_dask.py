"""CPU user paths of spanning forests and ``concomp.dask``, fresh inputs each call, medians
of 5 (ms): host NumPy pairs, a SciPy CSR, a fresh ``Graph``, and a path and a grid with
ids in order.

Run once per source tree (``PYTHONPATH=<tree>/src python
benchmarks/ab_user_paths_forest_dask.py``) to compare two trees; prints one JSON line.
"""

import json

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp

import concomp
import concomp.dask as cd
from concomp.bench.timing import measure


def med(f):
    return round(measure(f, reps=5).median_ms, 1)


out = {}
g = concomp.generators.rmat(20, 16, seed=1, clean=False)
s, d = (np.asarray(a) for a in g.coo())
n0 = g.num_nodes
A = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n0, n0))
out["forest numpy pair rmat20"] = med(
    lambda: concomp.spanning_forest((s, d), num_nodes=n0, device="cpu")
)
out["forest scipy csr rmat20"] = med(lambda: concomp.spanning_forest(A, device="cpu"))
out["forest fresh Graph rmat20"] = med(
    lambda: concomp.spanning_forest(concomp.Graph.from_edges(s, d, num_nodes=n0), device="cpu")
)
n = 1 << 22
v = np.arange(n)
out["forest path 2^22 in order"] = med(
    lambda: concomp.spanning_forest((v[:-1], v[1:]), num_nodes=n, device="cpu")
)
ids = np.arange(2048 * 2048).reshape(2048, 2048)
gs = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
gd = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
out["forest grid 2048^2 natural"] = med(
    lambda: concomp.spanning_forest((gs, gd), num_nodes=ids.size, device="cpu")
)
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
