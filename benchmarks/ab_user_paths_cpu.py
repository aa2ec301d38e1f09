"""CPU user paths through the public call, fresh inputs each call, medians of 5 (ms).

Run once per source tree (``PYTHONPATH=<tree>/src python benchmarks/ab_user_paths_cpu.py``)
to compare two trees: host NumPy pairs, a SciPy CSR, a path and a grid with ids in order.
"""

import json

import numpy as np
import scipy.sparse as sp

import concomp
from concomp.bench.timing import measure


def med(f, r=5):
    return round(measure(f, reps=r).median_ms, 2)


out = {}
g = concomp.generators.rmat(20, 16, seed=1, clean=False)
s, d = (np.asarray(a) for a in g.coo())
out["numpy pair rmat20 (fresh)"] = med(
    lambda: concomp.connected_components((s, d), num_nodes=g.num_nodes, device="cpu")
)
A = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(g.num_nodes,) * 2)
out["scipy csr rmat20 (fresh)"] = med(lambda: concomp.connected_components(A, device="cpu"))
n = 1 << 22
v = np.arange(n)
out["path 2^22 ids in order"] = med(
    lambda: concomp.connected_components((v[:-1], v[1:]), num_nodes=n, device="cpu")
)
ids = np.arange(2048 * 2048).reshape(2048, 2048)
gs = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
gd = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
out["grid 2048^2 natural (fresh)"] = med(
    lambda: concomp.connected_components((gs, gd), num_nodes=ids.size, device="cpu")
)
out["spanning_forest numpy rmat20"] = med(
    lambda: concomp.spanning_forest((s, d), num_nodes=g.num_nodes, device="cpu")
)
print(json.dumps(out))
