"""Fuzzing the public API, the file readers and the state files (issue 20).

Whatever the input, concomp either returns or raises one of its documented errors
(:mod:`concomp.errors`, all subclasses of ``ConcompError``); any other exception is
a failure. The runs are derandomised with a fixed example budget (a few hundred in
all) so that CI time stays well under a minute.

Sizes are drawn so that a valid input stays small (ids below 64) or is far beyond
what any machine holds (2**40 and up, which the size check refuses before
allocating): a valid graph of a few billion vertices would only measure memory.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import concomp  # noqa: E402
from fuzz_strategies import FUZZ, NUM_NODES, id_arrays, only_documented  # noqa: E402


@settings(FUZZ, max_examples=140)
@given(
    data=st.data(),
    m=st.integers(0, 12),
    extra=st.integers(-1, 1),
    n=NUM_NODES,
    which=st.sampled_from(["cc", "sizes", "forest", "msf", "stream", "incremental", "csr"]),
)
def test_fuzz_edge_arrays(data, m, extra, n, which) -> None:
    src = data.draw(id_arrays(m))
    dst = data.draw(id_arrays(max(0, m + extra)))
    w = data.draw(st.one_of(st.none(), id_arrays(m)))
    calls = {
        "cc": lambda: concomp.connected_components((src, dst), num_nodes=n, device="cpu"),
        "sizes": lambda: concomp.component_sizes((src, dst), num_nodes=n, device="cpu"),
        "forest": lambda: concomp.spanning_forest((src, dst), num_nodes=n, device="cpu"),
        "msf": lambda: concomp.minimum_spanning_forest(
            (src, dst) if w is None else (src, dst, w),
            device="cpu",
            algorithm=data.draw(st.sampled_from(["boruvka", "kruskal", "prim"])),
        ),
        "stream": lambda: concomp.stream_components([(src, dst)], num_nodes=n, device="cpu"),
        "incremental": lambda: concomp.IncrementalConnectivity(
            n if isinstance(n, int) and 0 <= n <= 80 else None, device="cpu"
        ).insert(src, dst),
        "csr": lambda: concomp.connected_components(
            concomp.Graph.from_csr(src, dst, num_nodes=n), device="cpu"
        ),
    }
    only_documented(calls[which])


VALID_FILES = {
    "snap": ("g.txt", b"# Nodes: 6\n0 1\n1 2 5\n3 4\n"),
    "snap3": ("w.txt", b"0 1 1.5\n1 2 -2\n4 4 7\n"),
    "csv": ("g.csv", b"src,dst,weight\n0,1,2.5\n1,2,3\n"),
    "mtx": (
        "g.mtx",
        b"%%MatrixMarket matrix coordinate real symmetric\n4 4 3\n2 1 1.0\n3 2 2.5\n4 1 3\n",
    ),
    "dimacs": ("g.gr", b"c x\np sp 4 3\na 1 2 3\na 2 3 4\na 4 1 1\n"),
    "pace": ("t.gr", b"p tw 4 2\n1 2\n3 4\n"),
    "metis": ("g.graph", b"4 3\n2 4\n1 3\n2\n1\n"),
}


def _npz_bytes(tmp_path) -> bytes:
    path = tmp_path / "seed.npz"
    concomp.write_graph((np.array([0, 1, 3]), np.array([1, 2, 0]), np.array([1.0, 2, 3])), path)
    return path.read_bytes()


def _parquet_bytes(tmp_path) -> bytes:
    pytest.importorskip("pyarrow")
    path = tmp_path / "seed.parquet"
    concomp.write_graph((np.array([0, 1, 3]), np.array([1, 2, 0])), path)
    return path.read_bytes()


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=4))
        elif op == "delete":
            del data[i]
        else:
            del data[i:]
    return bytes(data)


COMPRESS = {"": lambda b: b, ".gz": gzip.compress, ".xz": lzma.compress, ".bz2": bz2.compress}


@pytest.mark.parametrize("kind", sorted(VALID_FILES) + ["npz", "parquet", "noise"])
@settings(FUZZ, max_examples=18)
@given(data=st.data())
def test_fuzz_read_graph(kind, data, tmp_path) -> None:
    if kind == "npz":
        name, seed = "g.npz", _npz_bytes(tmp_path)
    elif kind == "parquet":
        name, seed = "g.parquet", _parquet_bytes(tmp_path)
    elif kind == "noise":
        name, seed = data.draw(st.sampled_from([v[0] for v in VALID_FILES.values()])), b""
    else:
        name, seed = VALID_FILES[kind]
    body = data.draw(mutated(seed)) if seed else data.draw(st.binary(max_size=64))
    if data.draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body  # a byte order mark
    suffix = data.draw(st.sampled_from(sorted(COMPRESS))) if kind not in ("npz", "parquet") else ""
    packed = COMPRESS[suffix](body)
    if suffix and data.draw(st.booleans()):  # truncated or damaged compressed stream
        packed = data.draw(mutated(packed))
    path = tmp_path / (name + suffix)
    path.write_bytes(packed)

    def read_and_use() -> None:
        g = concomp.read_graph(path)
        if g.num_nodes <= 10**5:
            concomp.connected_components(g, device="cpu")

    only_documented(read_and_use)


def _state_fields(tmp_path) -> dict:
    ic = concomp.IncrementalConnectivity(device="cpu")
    ic.insert([0, 1, 3, 5, 7], [1, 2, 4, 5, 3])
    ic.process([1, 0], [0, 8], [2, 9])
    path = tmp_path / "seed_state"
    ic.save(path)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


@settings(FUZZ, max_examples=80)
@given(data=st.data())
def test_fuzz_state_files(data, tmp_path) -> None:
    fields = _state_fields(tmp_path)
    path = tmp_path / "state"
    if data.draw(st.booleans()):  # tamper with the arrays
        for _ in range(data.draw(st.integers(1, 3))):
            key = data.draw(st.sampled_from(sorted(fields)))
            choice = data.draw(st.sampled_from(["values", "dtype", "drop", "shape"]))
            a = fields[key]
            if choice == "drop":
                fields.pop(key)
            elif choice == "dtype":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        fields[key] = a.astype(
                            data.draw(st.sampled_from(["float64", "int8", "uint64", "bool", "U3"]))
                        )
                    except (ValueError, OverflowError):  # a string that is no number
                        fields[key] = np.asarray(b"x")
            elif choice == "shape":
                fields[key] = np.resize(a, data.draw(st.integers(0, 12)))
            elif a.ndim == 1 and a.size:
                a = a.copy()
                i = data.draw(st.integers(0, a.size - 1))
                a[i] = data.draw(st.integers(-3, 12))
                fields[key] = a
            else:
                fields[key] = np.asarray(data.draw(st.integers(-5, 2**40)))
        with open(path, "wb") as f:
            np.savez(f, **fields)
    else:  # damage the archive's bytes
        with open(path, "wb") as f:
            np.savez(f, **fields)
        path.write_bytes(data.draw(mutated(path.read_bytes())))

    def load_and_use() -> None:
        ic = concomp.IncrementalConnectivity.load(path, device="cpu")
        ic.labels()
        ic.spanning_forest()
        ic.insert([0], [1])
        assert ic.num_components >= 1 or ic.num_nodes == 0

    only_documented(load_and_use)
