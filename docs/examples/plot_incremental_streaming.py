"""
Incremental connectivity and edge streams
=========================================

Batches of inserts and queries on a growing vertex set, and components of a graph
that arrives in chunks.
"""

import numpy as np

import concomp

ic = concomp.IncrementalConnectivity(device="cpu")
ic.insert(np.array([0, 2]), np.array([1, 3]))
print(ic.connected(np.array([0, 0]), np.array([1, 3])))
ic.insert(np.array([1]), np.array([2]))
print(ic.connected(np.array([0]), np.array([3])))

# %%
# A stream of chunks: arrays, ``(m, 2)`` blocks, frames, files or Parquet row
# groups, each read once.

chunks = [(np.array([0, 1]), np.array([1, 2])), np.array([[4, 5]]), np.array([[6], [5]])]
print(concomp.stream_components(chunks, device="cpu"))
