"""
Spanning forests, minimum spanning forests, SciPy drop-in
=========================================================

A spanning forest as input edge ids, the minimum spanning forest (the same edge
set from every algorithm), and :mod:`concomp.csgraph` in place of
:mod:`scipy.sparse.csgraph`.
"""

import numpy as np
import scipy.sparse as sp

import concomp
from concomp import csgraph

src = np.array([0, 1, 0, 3, 2])
dst = np.array([1, 2, 2, 4, 3])
w = np.array([2.0, 1.0, 3.0, 0.5, 4.0])

f = concomp.spanning_forest((src, dst), device="cpu")
print(f.edge_ids, f.src, f.dst, f.num_components)

for algorithm in ("kruskal", "prim", "boruvka"):
    msf = concomp.minimum_spanning_forest((src, dst), w, algorithm=algorithm, device="cpu")
    print(algorithm, msf.edge_ids, msf.total_weight)

# %%
# SciPy drop-in: same numbering, dtypes and output types as SciPy.

A = sp.csr_array((w, (src, dst)), shape=(6, 6))
print(csgraph.connected_components(A, directed=False))
print(csgraph.minimum_spanning_tree(A).toarray())
