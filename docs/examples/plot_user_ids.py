"""
Any vertex ids, results in your ids
===================================

Frames of user names, sparse 64-bit hashed ids and NetworkX node names go in as
they are; the results come back in the same ids.
"""

import networkx as nx
import numpy as np
import pandas as pd

import concomp

follows = pd.DataFrame(
    {
        "source": ["ann", "bob", "cy", "dee", "eve", "ann"],
        "target": ["bob", "cy", "ann", "eve", "fay", "cy"],
    }
)
res = concomp.connected_components(follows)
n, labels = res
print(n, labels, res.node_ids)

# %%
# A ``(vertex, component)`` frame: pandas in, pandas out (polars in, polars out).

print(concomp.components_frame(follows))

# %%
# The vertex ids of each component, largest first, and a sparse membership
# matrix (rows in ``res.node_ids`` order, columns by label).

print(concomp.components(res))
M = concomp.membership_matrix(res)
print(M.toarray())
print(M.sum(axis=0))  # component sizes

# %%
# Hashed 64-bit ids: memory follows the edges, not the largest id
# ---------------------------------------------------------------

rng = np.random.default_rng(0)
ids = rng.integers(0, 2**62, 1000)
src, dst = ids[rng.integers(0, 1000, 800)], ids[rng.integers(0, 1000, 800)]
res = concomp.connected_components((src, dst))
print(res.num_components, res.labels.shape, res.node_ids[:3])

# %%
# NetworkX node names
# -------------------

G = nx.Graph([("paris", "lyon"), ("oslo", "bergen")])
print(concomp.connected_components(G).to_dict())
