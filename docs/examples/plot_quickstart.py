"""
Connected components in a few lines
===================================

The README's first example: components of an edge list, their sizes and the
largest one, then the same call on other kinds of input.
"""

import networkx as nx
import numpy as np
import scipy.sparse as sp

import concomp

src = np.array([0, 1, 3])
dst = np.array([1, 2, 4])
n, labels = concomp.connected_components((src, dst), num_nodes=6)
print(n, labels)  # numbered like SciPy, int32

print(concomp.component_sizes((src, dst), num_nodes=6))
print(concomp.largest_component((src, dst)))

# %%
# Any graph-like input
# --------------------
# A ``(m, 2)`` array, a SciPy sparse matrix and a NetworkX graph give the same
# partition.

pairs = np.stack([src, dst], axis=1)
A = sp.coo_array((np.ones(3), (src, dst)), shape=(6, 6))
G = nx.Graph(list(zip(src.tolist(), dst.tolist())))
G.add_nodes_from(range(6))
for graph in (pairs, A, G):
    print(type(graph).__name__, concomp.connected_components(graph, device="cpu")[0])

# %%
# Bad input names the argument, the value and the fix
# ---------------------------------------------------

try:
    concomp.connected_components((np.array([0]), np.array([5])), num_nodes=3)
except concomp.InvalidGraphError as exc:
    print(exc)
