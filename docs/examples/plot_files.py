"""
Graph files and generators
==========================

Write a generated graph in two formats, read it back, and find its components.
"""

import tempfile
from pathlib import Path

import concomp

g = concomp.generators.from_spec("grid:rows=32,cols=32,permute=1")
print(g)

with tempfile.TemporaryDirectory() as tmp:
    for name in ("grid.mtx", "grid.txt.gz"):
        path = Path(tmp) / name
        concomp.write_graph(g, path)
        back = concomp.read_graph(path)
        print(name, back, concomp.number_connected_components(path, device="cpu"))

rmat = concomp.generators.rmat(12, 8, seed=1)
print(rmat, concomp.number_connected_components(rmat, device="cpu"))
