"""Issue 20, "nothing crashes, nothing is lost": sizes the engines cannot index, odd inputs
that used to escape as raw NumPy / numba errors, exact totals, weight columns that
connectivity never reads, and concurrent calls.

Calls that once crashed the interpreter (SIGSEGV, endless loops) run in a child process,
so that a regression fails the test instead of killing the test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import concomp
from concomp import GraphFormatError, InvalidGraphError

BIG = 2**63 - 1
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_isolated(code: str, timeout: float = 120) -> str:
    """Run ``code`` in a fresh interpreter; return its stdout, failing on a crash or hang."""
    env = dict(
        os.environ,
        PYTHONPATH=os.path.join(ROOT, "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process hung for {timeout} s")
    assert proc.returncode == 0, (
        f"child exited with {proc.returncode}\nstdout:\n{proc.stdout}"
        f"\nstderr:\n{proc.stderr[-3000:]}"
    )
    return proc.stdout


EXPECT_HELPER = """
import re, numpy as np, concomp
def expect(name, call, exc, pattern):
    try:
        call()
    except exc as e:
        ok = re.search(pattern, str(e)) is not None
        print(name, "OK" if ok else "BADMSG " + repr(str(e)[:300]))
        return
    except BaseException as e:
        print(name, "RAW", type(e).__name__, repr(str(e)[:200]))
        return
    print(name, "NORAISE")
"""


def check_lines(out: str, count: int) -> None:
    lines = out.strip().splitlines()
    bad = [ln for ln in lines if not ln.endswith(" OK")]
    assert not bad, "\n".join(bad)
    assert len(lines) == count, out


# ----------------------------------------------------------------------------- item 1
def test_ids_and_counts_near_int64_max_raise_instead_of_crashing(tmp_path) -> None:
    snap = tmp_path / "g.txt"
    snap.write_text(f"# Nodes: {BIG} Edges: 1\n0 1\n")
    gr = tmp_path / "g.gr"
    gr.write_text(f"p sp {BIG} 1\na 1 2 5\n")
    mtx = tmp_path / "g.mtx"
    mtx.write_text(f"%%MatrixMarket matrix coordinate pattern general\n{BIG} {BIG} 1\n1 2\n")
    plain = tmp_path / "p.txt"
    plain.write_text("0 1\n")
    out = run_isolated(
        EXPECT_HELPER
        + textwrap.dedent(f"""
    E = (np.array([0]), np.array([{BIG - 1}]))
    W = (np.array([0]), np.array([{BIG - 1}]), np.array([1.0]))
    ID = r"`dst`: vertex id {BIG - 1} at position 0"
    for f in (concomp.connected_components, concomp.component_sizes,
              concomp.largest_component, concomp.number_connected_components,
              concomp.spanning_forest):
        expect(f.__name__, lambda: f(E, device="cpu", renumber=False),
               concomp.InvalidGraphError, ID)
    expect("msf", lambda: concomp.minimum_spanning_forest(W, algorithm="boruvka", device="cpu",
           renumber=False), concomp.InvalidGraphError, ID)
    expect("num_nodes", lambda: concomp.connected_components((np.array([0]), np.array([1])),
           num_nodes={BIG}, device="cpu"), concomp.InvalidGraphError, r"`num_nodes`: {BIG}")
    expect("read_num_nodes", lambda: concomp.read_graph({str(plain)!r}, num_nodes={BIG}),
           concomp.InvalidGraphError, r"`num_nodes`: {BIG}")
    expect("snap", lambda: concomp.read_graph({str(snap)!r}), concomp.GraphFormatError,
           r"g.txt, line 1: .*{BIG}")
    expect("dimacs", lambda: concomp.read_graph({str(gr)!r}), concomp.GraphFormatError,
           r"g.gr, line 1: .*{BIG}")
    expect("mtx", lambda: concomp.read_graph({str(mtx)!r}), concomp.GraphFormatError,
           r"g.mtx, line 2: .*{BIG}")
    expect("stream_n", lambda: concomp.stream_components([E], num_nodes={BIG}, device="cpu"),
           concomp.InvalidGraphError, r"`num_nodes`: {BIG}")
    expect("stream_id", lambda: concomp.stream_components([E], device="cpu"),
           concomp.InvalidGraphError, r"chunk 0: .*`dst`: vertex id {BIG - 1}")
    expect("incremental", lambda: concomp.IncrementalConnectivity({BIG}, device="cpu"),
           concomp.InvalidGraphError, r"`num_nodes`: {BIG}")
    """)
    )
    check_lines(out, 14)


# ----------------------------------------------------------------------------- item 10
BAD_SIZES = {
    "num_nodes_2_40": (
        lambda: concomp.connected_components(
            (np.array([0]), np.array([1])), num_nodes=2**40, device="cpu"
        ),
        r"`num_nodes`: 1099511627776 vertices need .* GiB.*Fix",
    ),
    "num_nodes_2_64_plus_1": (
        lambda: concomp.as_graph((np.array([0]), np.array([1])), num_nodes=2**64 + 1),
        r"`num_nodes`: 18446744073709551617 .*2\*\*62.*Fix",
    ),
    "incremental_2_40": (
        lambda: concomp.IncrementalConnectivity(2**40, device="cpu"),
        r"`num_nodes`: 1099511627776 vertices need .*Fix",
    ),
    "float_id_1e19": (
        lambda: concomp.as_graph((np.array([0.0]), np.array([1e19])), renumber=False),
        r"`dst`: vertex id 1e\+19 at position 0 is too large",
    ),
    "uint64_max": (
        lambda: concomp.as_graph(
            (np.array([0, 5], np.uint64), np.array([1, 2**64 - 1], np.uint64)), renumber=False
        ),
        r"`dst`: vertex id 18446744073709551615 at position 1 is too large",
    ),
    "output_device": (
        lambda: concomp.connected_components(
            (np.array([0]), np.array([1])), device="cpu", output_device="tpu"
        ),
        r"`output_device`: 'tpu' is not valid",
    ),
    "indptr_float": (
        lambda: concomp.Graph.from_csr(np.array([0.0, 1.5, 2.0]), np.array([1, 0])),
        r"`indptr`: .*dtype float64",
    ),
    "indptr_nan": (
        lambda: concomp.Graph.from_csr(np.array([0.0, np.nan, 2.0]), np.array([1, 0])),
        r"`indptr`: .*dtype float64",
    ),
    "indptr_object": (
        lambda: concomp.Graph.from_csr(np.array([0, 1, 2], dtype=object), np.array([1, 0])),
        r"`indptr`: .*dtype object",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SIZES))
def test_bad_sizes_and_arguments_are_named(case: str) -> None:
    call, pattern = BAD_SIZES[case]
    with pytest.raises(InvalidGraphError, match=pattern):
        call()


def test_read_graph_rejects_bytes_and_directory_paths(tmp_path) -> None:
    (tmp_path / "g.txt").write_text("0 1\n")
    g = concomp.read_graph(os.fsencode(tmp_path / "g.txt"))  # bytes paths are paths
    assert g.num_edges == 1
    with pytest.raises(InvalidGraphError, match=r"`path`: .* is a directory"):
        concomp.read_graph(tmp_path)


# ----------------------------------------------------------------------------- item 8
def test_msf_total_weight_is_exact_beyond_int64() -> None:
    f = concomp.minimum_spanning_forest(
        (np.arange(4), np.arange(1, 5), np.full(4, 2**62, np.int64)), device="cpu"
    )
    assert f.total_weight == 2**64
    g = concomp.minimum_spanning_forest(
        (np.arange(3), np.arange(1, 4), np.array([-(2**63), -(2**63), 5], np.int64)), device="cpu"
    )
    assert g.total_weight == -(2**64) + 5


# ----------------------------------------------------------------------------- item 9
def test_components_ignore_weight_columns() -> None:
    pd = pytest.importorskip("pandas")
    nx = pytest.importorskip("networkx")
    df = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [np.nan, 1.0]})
    assert concomp.connected_components(df, device="cpu", return_labels=False) == 1
    G = nx.Graph()
    G.add_edge("a", "b", weight="heavy")
    G.add_edge("c", "d")
    count, labels = concomp.connected_components(G, device="cpu")
    assert count == 2 and labels.tolist() == [0, 0, 1, 1]
    assert concomp.spanning_forest(G).num_edges == 2
    # weights that are read still have to be numbers
    with pytest.raises(InvalidGraphError, match=r"`weights`: .*'heavy'.*edge 0"):
        concomp.minimum_spanning_forest(G, device="cpu")


# ----------------------------------------------------------------------------- items 2, 3
def _saved_state(tmp_path, name: str = "state.npz") -> tuple[str, dict]:
    ic = concomp.IncrementalConnectivity(device="cpu")
    ic.insert([0, 1, 3, 5], [1, 2, 4, 5])
    ic.insert([2, 6], [0, 7])
    path = str(tmp_path / name)
    ic.save(path)
    with np.load(path) as z:
        fields = {k: z[k] for k in z.files}
    return path, fields


def _tampered(tmp_path, fields: dict, **changes) -> str:
    out = dict(fields)
    for k, v in changes.items():
        if v is None:
            out.pop(k)
        else:
            out[k] = v
    path = str(tmp_path / "tampered.npz")
    with open(path, "wb") as f:
        np.savez(f, **out)
    return path


def _tampers(fields: dict) -> dict:
    p = fields["parents"]
    cyc = p.copy()
    cyc[1], cyc[2] = 2, 1
    out_of_range = p.copy()
    out_of_range[4] = 10**9
    neg = p.copy()
    neg[0] = -1
    hs = fields["hook_src"].copy()
    hs[np.flatnonzero(fields["hook_batch"] >= 0)[0]] = 10**9
    hb = fields["hook_batch"].copy()
    hb[np.flatnonzero(hb >= 0)[0]] = 99
    return {
        "parents_out_of_range": ({"parents": out_of_range}, r"`parents`"),
        "parents_cycle": ({"parents": cyc}, r"`parents`"),
        "parents_negative": ({"parents": neg}, r"`parents`"),
        "parents_float": ({"parents": p.astype(np.float64)}, r"`parents`.*float64"),
        "parents_2d": ({"parents": p.reshape(1, -1)}, r"`parents`.*shape"),
        "parents_short": ({"parents": p[:-1]}, r"`parents`.*length"),
        "links_counter": ({"meta_links": np.asarray(int(fields["meta_links"]) + 5)}, r"`links`"),
        "num_nodes_counter": ({"meta_num_nodes": np.asarray(50)}, r"`num_nodes`|length"),
        "num_batches_counter": ({"meta_num_batches": np.asarray(-3)}, r"`num_batches`"),
        "hook_out_of_range": ({"hook_src": hs}, r"`hook_src`"),
        "hook_batch_out_of_range": ({"hook_batch": hb}, r"`hook_batch`"),
        "missing_array": ({"hook_dst": None}, r"`hook_dst`"),
        "missing_version": ({"format_version": None}, r"format"),
        "future_version": ({"format_version": np.asarray(99)}, r"format"),
        "algorithm_string": ({"meta_algorithm": np.asarray(3.5)}, r"`algorithm`"),
    }


TAMPER_NAMES = sorted(
    _tampers(
        {
            "parents": np.arange(8),
            "hook_src": np.arange(8),
            "hook_batch": np.arange(8),
            "meta_links": np.asarray(0),
        }
    )
)


@pytest.mark.parametrize("case", TAMPER_NAMES)
def test_load_rejects_tampered_state(case: str, tmp_path) -> None:
    _, fields = _saved_state(tmp_path)
    changes, pattern = _tampers(fields)[case]
    path = _tampered(tmp_path, fields, **changes)
    # in a child: such files once crashed (SIGSEGV) or hung the interpreter
    out = run_isolated(
        EXPECT_HELPER
        + textwrap.dedent(f"""
    from concomp.incremental import IncrementalConnectivity as IC
    expect({case!r}, lambda: IC.load({path!r}, device="cpu").labels(), concomp.InvalidStateError,
           {pattern!r})
    """),
        timeout=60,
    )
    check_lines(out, 1)


def test_load_rejects_files_that_are_not_states(tmp_path) -> None:
    path, _ = _saved_state(tmp_path)
    raw = open(path, "rb").read()
    cases = {
        "truncated.npz": raw[: len(raw) // 2],
        "empty.npz": b"",
        "noise.npz": b"\x00PK" * 99,
        "header_only.npz": raw[:30],
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    np.save(tmp_path / "array.npy", np.arange(5))
    cases["array.npy"] = None
    for name in cases:
        with pytest.raises(concomp.InvalidStateError, match=r"`path`.*" + name.replace(".", r"\.")):
            concomp.IncrementalConnectivity.load(tmp_path / name, device="cpu")


def test_invalid_state_error_is_a_value_error() -> None:
    assert issubclass(concomp.InvalidStateError, ValueError)
    assert issubclass(concomp.InvalidStateError, concomp.errors.ConcompError)
    assert "InvalidStateError" in concomp.errors.__all__


def test_save_writes_exactly_the_path_given(tmp_path) -> None:
    ic = concomp.IncrementalConnectivity(device="cpu")
    ic.insert([0, 2], [1, 3])
    ic.save(tmp_path / "state")
    assert sorted(os.listdir(tmp_path)) == ["state"]
    back = concomp.IncrementalConnectivity.load(str(tmp_path / "state"))
    assert back.num_components == 2 and back.labels().tolist() == [0, 0, 1, 1]


def test_failed_save_keeps_the_previous_state(tmp_path, monkeypatch) -> None:
    path, fields = _saved_state(tmp_path)
    before = open(path, "rb").read()
    ic = concomp.IncrementalConnectivity(device="cpu")
    ic.insert([10, 11], [11, 12])

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        ic.save(path)
    monkeypatch.undo()
    assert open(path, "rb").read() == before
    assert sorted(os.listdir(tmp_path)) == ["state.npz"]  # no temporary file left behind
    assert concomp.IncrementalConnectivity.load(path).num_nodes == fields["parents"].shape[0]
    ic.save(path)
    assert concomp.IncrementalConnectivity.load(path).num_nodes == 13


# ----------------------------------------------------------------------------- items 4, 5, 11
BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(
    "name, text, edges",
    [
        ("g.csv", b"0,1\n1,2\n", [[0, 1], [1, 2]]),
        ("h.csv", b"source,target\n0,1\n1,2\n", [[0, 1], [1, 2]]),
        ("g.txt", b"# Nodes: 4\n0 1\n1 2\n", [[0, 1], [1, 2]]),
        ("p.txt", b"0 1\n1 2\n", [[0, 1], [1, 2]]),
        (
            "g.mtx",
            b"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n",
            [[0, 1], [1, 2]],
        ),
        ("g.gr", b"p sp 3 2\na 1 2 1\na 2 3 1\n", [[0, 1], [1, 2]]),
        ("t.gr", b"p tw 3 2\n1 2\n2 3\n", [[0, 1], [1, 2]]),
        ("g.graph", b"3 2\n2\n1 3\n2\n", [[0, 1, 1, 2], [1, 0, 2, 1]]),
    ],
)
def test_utf8_bom_is_skipped_in_every_text_format(tmp_path, name, text, edges) -> None:
    path = tmp_path / name
    path.write_bytes(BOM + text)
    g = concomp.read_graph(path)
    assert [a.tolist() for a in g.coo()] == edges
    gz = tmp_path / (name + ".gz")
    import gzip

    gz.write_bytes(gzip.compress(BOM + text))
    assert [a.tolist() for a in concomp.read_graph(gz).coo()] == edges


def _edge_text(m: int) -> bytes:
    return b"".join(b"%d %d\n" % (i, (7 * i + 3) % m) for i in range(m))


@pytest.mark.parametrize("kind", ["gzip", "xz", "bz2"])
def test_truncated_and_corrupt_compressed_files(tmp_path, kind) -> None:
    import bz2
    import gzip
    import lzma

    packed = {"gzip": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress}[kind](
        _edge_text(30000)
    )
    suffix = {"gzip": ".gz", "xz": ".xz", "bz2": ".bz2"}[kind]
    cut = tmp_path / ("cut.txt" + suffix)
    cut.write_bytes(packed[: len(packed) * 2 // 3])
    with pytest.raises(GraphFormatError, match=r"cut\.txt.*(truncated|corrupt).*byte.*Fix"):
        concomp.read_graph(cut)
    flipped = bytearray(packed)
    for i in range(len(flipped) // 3, len(flipped) // 3 + 8):
        flipped[i] ^= 0x5A
    bad = tmp_path / ("bad.txt" + suffix)
    bad.write_bytes(bytes(flipped))
    with pytest.raises(GraphFormatError, match=r"bad\.txt.*Fix"):
        concomp.read_graph(bad)


def test_matrix_market_size_beyond_int64(tmp_path) -> None:
    path = tmp_path / "big.mtx"
    path.write_text(
        "%%MatrixMarket matrix coordinate pattern general\n"
        "12345678901234567890123 12345678901234567890123 1\n1 2\n"
    )
    with pytest.raises(GraphFormatError, match=r"big\.mtx, line 2: .*12345678901234567890123"):
        concomp.read_graph(path)


def test_tampered_npz_graphs(tmp_path) -> None:
    good = tmp_path / "g.npz"
    concomp.write_graph((np.array([0, 1, 2]), np.array([1, 2, 0])), good)
    with np.load(good) as z:
        fields = {k: z[k] for k in z.files}
    tampers = {
        "edge_ids": fields["edge_ids"] + 7,
        "indices": fields["indices"] + 100,
        "indptr": fields["indptr"][::-1].copy(),
        "shape": np.array([2, 2]),
    }
    for key, value in tampers.items():
        path = tmp_path / f"t_{key}.npz"
        np.savez(path, **{**fields, key: value})
        with pytest.raises(GraphFormatError, match=rf"t_{key}\.npz.*Fix"):
            concomp.read_graph(path)


def test_text_files_parse_in_blocks(tmp_path, monkeypatch) -> None:
    import gzip

    from concomp.io import _parse

    rng = np.random.default_rng(3)
    m = 5000
    src, dst = rng.integers(0, 900, m), rng.integers(0, 900, m)
    w = rng.random(m).round(3)
    lines = [f"{a}\t{b}\t{c}" for a, b, c in zip(src, dst, w)]
    lines.insert(2500, "# a comment in the middle")
    body = ("# Nodes: 1000\n" + "\n".join(lines) + "\n").encode()
    path = tmp_path / "g.txt.gz"
    path.write_bytes(gzip.compress(body))
    whole = concomp.read_graph(path)
    monkeypatch.setattr(_parse, "BLOCK_BYTES", 1000)  # hundreds of blocks, cuts mid-line
    blocks = concomp.read_graph(path)
    assert blocks.num_nodes == whole.num_nodes == 1000
    for a, b in zip(blocks.coo(), whole.coo()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(blocks.weights, w)
    # errors in a later block still name the file's own line number
    bad = body.replace(b"\n", b"\n1 x 2\n", 4001)
    bad = bad[: bad.rindex(b"\n1 x 2\n")] + b"\n1 x 2\n" + bad[bad.rindex(b"\n1 x 2\n") + 7 :]
    lineno = bad[: bad.index(b"\n1 x 2\n") + 1].count(b"\n") + 1
    (tmp_path / "bad.txt").write_bytes(bad)
    with pytest.raises(GraphFormatError, match=rf"bad\.txt, line {lineno}: "):
        concomp.read_graph(tmp_path / "bad.txt")


def _metis_text(rng, nv: int, weights: bool) -> tuple[bytes, list[tuple[int, int, str]]]:
    """A METIS file of a random graph: both directions listed, '%' comments inside,
    blank lines for isolated vertices; with weights, some only NumPy parses exactly."""
    pairs = {
        tuple(sorted(p)) for p in rng.integers(1, nv + 1, (3 * nv, 2)).tolist() if p[0] != p[1]
    }
    adj: list[list[tuple[int, str]]] = [[] for _ in range(nv + 1)]
    edges = []
    for i, (a, b) in enumerate(sorted(pairs)):
        w = ["3", "2.5", "1.2345678901234567e-300", "-7e22"][i % 4]
        adj[a].append((b, w))
        adj[b].append((a, w))
        edges.append((a, b, w))
    lines = [f"{nv} {len(pairs)}" + (" 001" if weights else "")]
    for v in range(1, nv + 1):
        if v % 97 == 0:
            lines.append("% a comment between vertex lines")
        toks = [f"{u} {w}" if weights else str(u) for u, w in adj[v]]
        lines.append(" ".join(toks))
    return "\n".join(lines).encode(), edges  # no newline after the last line


@pytest.mark.parametrize("weights", [False, True])
def test_metis_parses_in_blocks(tmp_path, monkeypatch, weights) -> None:
    import gzip

    from concomp.io import _files, _parse

    body, edges = _metis_text(np.random.default_rng(5), 700, weights)
    path = tmp_path / "g.graph.gz"
    path.write_bytes(gzip.compress(body))
    whole = concomp.read_graph(path)
    monkeypatch.setattr(_parse, "BLOCK_BYTES", 300)  # hundreds of blocks, cuts mid-line
    monkeypatch.setattr(_parse, "HEAD_BYTES", 64)
    reads: list[int] = []
    read = _files.Input.read

    def spy(self, size=-1):
        data = read(self, size)
        reads.append(len(data) if size >= 0 else -1)  # -1: a read of everything left
        return data

    monkeypatch.setattr(_files.Input, "read", spy)
    blocks = concomp.read_graph(path)
    assert -1 not in reads and max(reads) <= 300 and len(reads) > 10  # never the whole body
    assert blocks.num_nodes == whole.num_nodes == 700
    assert blocks.num_edges == whole.num_edges == 2 * len(edges)
    for a, b in zip(blocks.csr()[:2], whole.csr()[:2]):
        np.testing.assert_array_equal(a, b)
    if weights:
        np.testing.assert_array_equal(blocks.weights, whole.weights)
        got = {
            (int(u) + 1, int(v) + 1): float(x)
            for u, v, x in zip(*blocks.coo(), blocks.weights.tolist())
        }
        assert all(got[(a, b)] == float(w) == got[(b, a)] for a, b, w in edges)
    # an error in a later block names the file's own line number
    lines = body.split(b"\n")
    lines[600] = lines[600] + b" x"
    (tmp_path / "bad.graph").write_bytes(b"\n".join(lines))
    with pytest.raises(GraphFormatError, match=r"bad\.graph, line 601: "):
        concomp.read_graph(tmp_path / "bad.graph")


# ----------------------------------------------------------------------------- item 7
CONCURRENT = """
import threading, numpy as np, numba, concomp
from concomp.generators import rmat
g = rmat(12, 8, seed=3)
src, dst = (np.asarray(a) for a in g.coo())
w = np.arange(src.shape[0], dtype=np.float64) % 17
def job():
    return (concomp.connected_components((src, dst), device="cpu")[1],
            concomp.connected_components(g, device="cpu", algorithm="afforest")[1],
            concomp.spanning_forest((src, dst), device="cpu").edge_ids,
            concomp.minimum_spanning_forest((src, dst, w), device="cpu",
                                            algorithm="boruvka").edge_ids,
            concomp.stream_components([(src, dst)], device="cpu")[1],
            np.asarray(rmat(10, 4, seed=5).coo()[0]))
want = job()
got, errors = [], []
def worker():
    try:
        for _ in range(3):
            got.append(job())
    except BaseException as e:
        errors.append(repr(e))
threads = [threading.Thread(target=worker) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
assert len(got) == 24
for res in got:
    for a, b in zip(res, want):
        np.testing.assert_array_equal(a, b)
print("LAYER", numba.threading_layer())
"""


@pytest.mark.parametrize("layer", [None, "workqueue"])
def test_concurrent_calls_from_eight_threads(layer) -> None:
    env_code = (
        "" if layer is None else f"import os; os.environ['NUMBA_THREADING_LAYER'] = {layer!r}\n"
    )
    out = run_isolated(env_code + CONCURRENT, timeout=300)
    used = out.split("LAYER")[-1].strip()
    if layer is not None:
        assert used == layer
    else:  # what this installation loads by itself (omp or tbb here; workqueue elsewhere)
        assert used in ("omp", "tbb", "workqueue")


# ----------------------------------------------------------------------------- item 6
def _one_way_csr(seed: int):
    """A CSR holding each edge in one direction only, with a dense giant component, so
    that k-out sampling finds the giant and the finish must see edges into it from
    rows inside it."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n = 3000
    u = rng.integers(0, 2000, 40000)
    v = rng.integers(0, 2000, 40000)
    extra_u = np.arange(2000, 2900)  # small side pieces: edges stored only in giant rows
    extra_v = rng.integers(0, 2000, 900)
    keep = rng.random(900) < 0.5
    src = np.concatenate([u, extra_v[keep], np.arange(2900, 2950)])
    dst = np.concatenate([v, extra_u[keep], np.arange(2901, 2951)])
    return sp.csr_array((np.ones(src.shape[0]), (src, dst)), shape=(n, n))


@pytest.mark.parametrize(
    "algorithm",
    ["auto", "afforest", "kout-async-halve-csr", "koutl-async-halve-csr", "none-async-halve-csr"],
)
def test_weak_components_of_a_one_way_csr_without_symmetrising(algorithm) -> None:
    from scipy.sparse.csgraph import connected_components as scipy_cc

    A = _one_way_csr(4)
    want = scipy_cc(A, directed=True, connection="weak")
    g = concomp.as_graph(A)
    count, labels = concomp.connected_components(g, device="cpu", algorithm=algorithm)
    assert count == want[0]
    np.testing.assert_array_equal(labels, want[1])
    assert g._ucsr is None  # no symmetrised second copy was built


def test_csgraph_weak_components_skip_scipys_float64_copy(monkeypatch) -> None:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components as scipy_cc

    from concomp import csgraph

    A = _one_way_csr(5)
    want = scipy_cc(A, directed=False)

    def refuse(*args, **kwargs):
        raise AssertionError("validate_graph copies the values to float64")

    monkeypatch.setattr(csgraph, "_host_csr", refuse)
    for M in (A, sp.csc_array(A), sp.coo_array(A), sp.csr_matrix(A)):
        count, labels = csgraph.connected_components(M, directed=False)
        assert count == want[0] and labels.dtype == np.int32
        np.testing.assert_array_equal(labels, want[1])
    with pytest.raises(ValueError, match=r"must be shape \(N, N\)"):
        csgraph.connected_components(sp.csr_array((2, 3)), directed=False)


def test_small_parallel_launches_run_on_the_calling_thread() -> None:
    import numba

    from concomp._shared.threads import SERIAL_BELOW, serialized

    seen: list[int] = []
    wrapped = serialized(lambda a: seen.append(numba.get_num_threads()))
    before = numba.get_num_threads()
    wrapped(np.zeros(10))
    wrapped(np.zeros(SERIAL_BELOW))
    assert seen == [1, before]
    assert numba.get_num_threads() == before  # restored after the small launch
