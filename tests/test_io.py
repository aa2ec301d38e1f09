"""Tests of concomp.io: real files, round trips, compression, sniffing, errors."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from concomp.errors import GraphFormatError, InvalidGraphError
from concomp.io import FORMATS, read_graph, sniff_format, write_graph
from concomp.io import _parse as _io_parse

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"

# file: (n, edge lines, self loops, unique undirected edges, weak CCs, weighted, directed)
# measured counts from ../shared/data/real/README.md
EXPECTED = {
    "road_usa-NY_pace.gr.xz": (264346, 365050, 0, 365050, 1, False, False),
    "road_usa-BAY_pace.gr.xz": (321270, 397415, 0, 397415, 1, False, False),
    "road_usa-COL_pace.gr.xz": (435666, 521200, 0, 521200, 1, False, False),
    "road_usa-FLA_pace.gr.xz": (1070376, 1343951, 0, 1343951, 1, False, False),
    "road_usa-NW_pace.gr.xz": (1207945, 1410387, 0, 1410387, 1, False, False),
    "road_rome99_dimacs.gr.gz": (3353, 8870, 0, 4831, 1, True, True),
    "road_tiger-DE_dimacs.gr.gz": (49109, 121024, 448, 59760, 82, True, True),
    "road_tiger-VT_dimacs.gr.gz": (97975, 215116, 990, 106242, 756, True, True),
    "road_luxembourg-osm.mtx.gz": (114599, 119666, 0, 119666, 1, False, False),
    "mesh_delaunay_n16_noheader.mtx.gz": (65536, 196575, 0, 196575, 1, False, False),
    "cit_arxiv-hep-ph_snap.txt.gz": (34546, 421578, 44, 420877, 61, False, True),
    "cit_arxiv-hep-th_snap.txt.gz": (27770, 352807, 39, 352285, 143, False, True),
    "soc_ego-twitter-undirected_snap.txt.gz": (81306, 1342310, 14, 1342296, 1, False, False),
    "soc_ego-facebook-combined_snap.txt.gz": (4039, 88234, 0, 88234, 1, False, False),
    "comm_email-enron_snap.txt.gz": (36692, 183831, 0, 183831, 1065, False, False),
    "collab_ca-astroph-lcc_snap.txt.gz": (17903, 197031, 59, 196972, 1, False, False),
    "collab_ca-condmat-lcc_snap.txt.gz": (21363, 91342, 56, 91286, 1, False, False),
    "inet_as-caida20071105_snap.txt.gz": (26475, 53381, 0, 53381, 1, False, False),
    "weighted_soc-sign-bitcoinotc.csv.gz": (6006, 35592, 0, 21492, 129, True, False),
    "soc_github-musae_edges.csv.gz": (37700, 289003, 0, 289003, 1, False, False),
    "soc_deezer-HU_edges.csv.gz": (47538, 222887, 0, 222887, 1, False, False),
    "soc_facebook-page-page_edges.csv.gz": (22470, 171002, 179, 170823, 1, False, False),
    "soc_facebook100-MIT8.edgelist.gz": (6440, 251252, 0, 251252, 18, False, False),
    "soc_wiki-vote_snap.txt.gz": (8298, 103689, 0, 100762, 1207, False, True),
    "collab_astro-ph_newman.metis.graph.gz": (16706, 242502, 0, 121251, 1029, False, False),
    "infra_us-power-grid.metis.graph.gz": (4941, 13188, 0, 6594, 1, False, False),
    "soc_pgp-giantcompo.metis.graph.gz": (10680, 48632, 0, 24316, 1, False, False),
}


@pytest.fixture(scope="module")
def real_graphs():
    """Each real graph read once per module run."""
    if not REAL.is_dir():
        pytest.skip(f"real graph folder {REAL} is absent (it ships beside the repository)")
    return {}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_files_match_readme(real_graphs, name):
    path = REAL / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    g = real_graphs.setdefault(name, read_graph(path))
    n, lines, loops, unique, ccs, weighted, directed = EXPECTED[name]
    src, dst = (np.asarray(a, np.int64) for a in g.coo())
    assert (g.num_nodes, g.num_edges) == (n, lines)
    assert int(np.count_nonzero(src == dst)) == loops
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    assert np.unique((lo * n + hi)[lo != hi]).size == unique
    A = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    assert connected_components(A, directed=True, connection="weak")[0] == ccs
    assert (g.weights is not None) == weighted
    assert g.directed == directed


def test_real_weights_and_symmetric_flags(real_graphs):
    if not (REAL / "road_rome99_dimacs.gr.gz").exists():
        pytest.skip("real graph files are absent")
    rome = read_graph(REAL / "road_rome99_dimacs.gr.gz")
    assert rome.weights.dtype == np.int64 and int(rome.weights.max()) == 12711
    btc = read_graph(REAL / "weighted_soc-sign-bitcoinotc.csv.gz")
    assert (int(btc.weights.min()), int(btc.weights.max())) == (-10, 10)
    assert read_graph(REAL / "infra_us-power-grid.metis.graph.gz").symmetric


# ----------------------------------------------------------------------------- round trips
def random_graph(weights: str | None, directed: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    n, m = 40, 150
    src = rng.integers(0, n - 2, m)  # vertex n-1 stays isolated: n must survive the trip
    dst = rng.integers(0, n - 2, m)
    src[:3], dst[:3] = [5, 5, 7], [5, 6, 8]
    src[3], dst[3] = 6, 5  # reverse duplicate of edge 1
    w = None
    if weights == "int":
        w = rng.integers(-50, 50, m)
    elif weights == "float":
        w = rng.normal(size=m) * 10.0 ** rng.integers(-8, 8, m)
    from concomp import Graph

    return Graph.from_edges(src, dst, n, weights=w, directed=directed)


def edges(g, *, undirected=False):
    src, dst = (np.asarray(a, np.int64) for a in g.coo())
    if undirected:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    return src, dst


def assert_same_weights(a, b):
    if a is None or b is None:
        assert a is None and b is None
    else:
        assert a.dtype.kind == b.dtype.kind
        np.testing.assert_array_equal(a, b)


EXT = {
    "snap": "txt",
    "csv": "csv",
    "mtx": "mtx",
    "dimacs": "gr",
    "pace": "gr",
    "metis": "graph",
    "npz": "npz",
    "parquet": "parquet",
}


@pytest.mark.parametrize("weights", [None, "int", "float"])
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip(tmp_path, fmt, weights, directed):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    g = random_graph(weights, directed)
    path = tmp_path / f"g.{EXT[fmt]}"
    write_graph(g, path, format=fmt)
    h = read_graph(path, num_nodes=g.num_nodes if fmt == "csv" else None)
    assert h.num_nodes == g.num_nodes
    if fmt == "metis":  # both directions, self loops dropped
        src, dst = edges(g)
        keep = src != dst
        want = sorted(
            zip(
                np.minimum(src, dst)[keep].tolist(),
                np.maximum(src, dst)[keep].tolist(),
                [0] * int(keep.sum()) if g.weights is None else g.weights[keep].tolist(),
            )
        )
        hs, hd = edges(h)
        up = hs < hd
        got = sorted(
            zip(
                hs[up].tolist(),
                hd[up].tolist(),
                [0] * int(up.sum()) if h.weights is None else h.weights[up].tolist(),
            )
        )
        assert got == want and h.symmetric and h.num_edges == 2 * len(want)
        return
    same_orientation = directed or fmt not in ("mtx",)
    for a, b in zip(
        edges(g, undirected=not same_orientation), edges(h, undirected=not same_orientation)
    ):
        np.testing.assert_array_equal(a, b)
    assert_same_weights(None if fmt == "pace" else g.weights, h.weights)
    if fmt in ("snap", "mtx", "npz", "parquet"):
        assert h.directed == directed
    if fmt == "dimacs":
        assert h.directed


@pytest.mark.parametrize("comp", ["gz", "xz", "bz2"])
@pytest.mark.parametrize("fmt", ["snap", "csv", "mtx", "dimacs", "metis"])
def test_compressed_round_trip(tmp_path, fmt, comp):
    g = random_graph("int", True)
    path = tmp_path / f"g.{EXT[fmt]}.{comp}"
    write_graph(g, path)
    magic = path.read_bytes()[:3]
    assert magic in (b"\x1f\x8b\x08", b"\xfd7z", b"BZh")
    h = read_graph(path, format=fmt, num_nodes=g.num_nodes)
    assert h.num_nodes == g.num_nodes and h.weights is not None


def test_magic_bytes_beat_extension(tmp_path):
    plain = b"0 1\n1 2\n"
    (tmp_path / "a.txt").write_bytes(gzip.compress(plain))  # gzip without .gz
    (tmp_path / "b.txt.gz").write_bytes(plain)  # .gz that is not compressed
    for name in ("a.txt", "b.txt.gz"):
        assert [x.tolist() for x in read_graph(tmp_path / name).coo()] == [[0, 1], [1, 2]]


def test_npz_interoperates_with_scipy(tmp_path):
    A = sp.random(30, 30, density=0.1, format="csr", random_state=1)
    sp.save_npz(tmp_path / "a.npz", A)
    g = read_graph(tmp_path / "a.npz")
    assert g.num_nodes == 30 and g.num_edges == A.nnz and g.directed
    np.testing.assert_array_equal(g.weights, A.data)
    write_graph(random_graph("float", False), tmp_path / "b.npz")
    B = sp.load_npz(tmp_path / "b.npz")
    assert B.shape == (40, 40) and B.nnz == 150
    sp.save_npz(tmp_path / "c.npz", A.tocoo())
    assert read_graph(tmp_path / "c.npz").num_edges == A.nnz


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r"concomp\[io\]"):
        write_graph(random_graph(None, False), tmp_path / "g.parquet")


# ----------------------------------------------------------------------------- parsing details
def write(tmp_path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def coo(g):
    return [a.tolist() for a in g.coo()]


def test_comments_blank_lines_crlf_and_spacing(tmp_path):
    text = (
        "# Directed graph\r\n% other comment\r\n\r\n  0\t1\r\n1   2 # trailing\r\n"
        "\t2 , 3\r\n   \r\n# inner\r\n3 0"
    )
    g = read_graph(write(tmp_path, "g.txt", text))
    assert coo(g) == [[0, 1, 2, 3], [1, 2, 3, 0]] and g.directed
    g = read_graph(write(tmp_path, "h.txt", ";c\n0 1\n"), comment=";")
    assert coo(g) == [[0], [1]]


def test_snap_declared_nodes_and_undirected_comment(tmp_path):
    g = read_graph(write(tmp_path, "g.txt", "# Undirected graph\n# Nodes: 10 Edges: 1\n0 1\n"))
    assert g.num_nodes == 10 and not g.directed
    assert read_graph(write(tmp_path, "h.txt", "# Nodes: 2\n0 5\n")).num_nodes == 6


def test_csv_header_detection(tmp_path):
    assert coo(read_graph(write(tmp_path, "a.csv", "id_1,id_2\n0,1\n2,3\n"))) == [[0, 2], [1, 3]]
    assert coo(read_graph(write(tmp_path, "b.csv", "0,1\n2,3\n"))) == [[0, 2], [1, 3]]
    assert coo(read_graph(write(tmp_path, "c.csv", "0,1\n2,3\n"), header=True)) == [[2], [3]]
    with pytest.raises(GraphFormatError, match="line 1"):
        read_graph(write(tmp_path, "d.csv", "src,dst\n0,1\n"), header=False)
    g = read_graph(write(tmp_path, "e.csv", "SOURCE,TARGET,RATING,TIME\n1,2,-3,17.5\n2,3,4,18\n"))
    assert g.weights.tolist() == [-3, 4] and g.weights.dtype == np.int64


def test_weight_parsing(tmp_path):
    g = read_graph(write(tmp_path, "a.txt", "0 1 -5\n1 2 +7\n2 3 0\n"))
    assert g.weights.dtype == np.int64 and g.weights.tolist() == [-5, 7, 0]
    g = read_graph(write(tmp_path, "b.txt", "0 1 2\n1 2 2.5\n2 3 -1e-3\n3 4 inf\n"))
    assert g.weights.dtype == np.float64 and g.weights.tolist() == [2.0, 2.5, -0.001, np.inf]
    assert read_graph(write(tmp_path, "c.txt", "0 1 2\n"), weighted=False).weights is None
    with pytest.raises(GraphFormatError, match="no weight column"):
        read_graph(write(tmp_path, "d.txt", "0 1\n"), weighted=True)


def test_float_weights_equal_python_float(tmp_path):
    rng = np.random.default_rng(7)
    x = (rng.normal(size=3000) * 10.0 ** rng.integers(-30, 30, 3000)).tolist()
    styles = ["{:.3f}", "{:.6e}", "{!r}", "{:.15g}", "{:.17g}", "{:.1f}", "{:E}", "{:+.2e}"]
    tokens = [styles[i % len(styles)].format(v) for i, v in enumerate(x)]
    tokens += [
        "0.000123",
        ".5",
        "5.",
        "-0.0",
        "1e22",
        "1e23",
        "123456789012345.6",
        "1e-22",
        "9007199254740993",
        "0.1",
        "-inf",
        "1E+2",
        "00001.25000",
    ]
    text = "".join(f"{i} {i + 1} {t}\n" for i, t in enumerate(tokens))
    got = read_graph(write(tmp_path, "w.txt", text)).weights
    want = np.array([float(t) for t in tokens])
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[tokens.index("-0.0")])


def test_one_based_num_nodes_and_delimiter(tmp_path):
    path = write(tmp_path, "a.txt", "1 2\n2 3\n")
    assert coo(read_graph(path, one_based=True)) == [[0, 1], [1, 2]]
    assert read_graph(path, num_nodes=9).num_nodes == 9
    assert coo(read_graph(write(tmp_path, "b.txt", "0;1\n1;2\n"), delimiter=";")) == [
        [0, 1],
        [1, 2],
    ]
    out = tmp_path / "c.txt"
    write_graph((np.array([0]), np.array([1])), out, one_based=True)
    assert "1\t2" in out.read_text()


def test_dimacs_pace_mtx_metis_details(tmp_path):
    g = read_graph(write(tmp_path, "a.gr", "c x\np sp 3 2\nc y\na 1 2 7\na 3 1 9\n"))
    assert coo(g) == [[0, 2], [1, 0]] and g.weights.tolist() == [7, 9] and g.directed
    g = read_graph(write(tmp_path, "b.gr", "c x\np tw 4 2\n1 2\n3 4\n"))
    assert coo(g) == [[0, 2], [1, 3]] and not g.directed and g.num_nodes == 4
    g = read_graph(write(tmp_path, "c.col", "p edge 3 1\ne 1 3\n"), format="dimacs")
    assert coo(g) == [[0], [2]] and not g.directed
    text = "%%MatrixMarket matrix coordinate real general\n% c\n4 4 2\n1 2 0.5\n4 3 2\n"
    g = read_graph(write(tmp_path, "d.mtx", text))
    assert g.num_nodes == 4 and g.directed and g.weights.dtype == np.float64
    g = read_graph(write(tmp_path, "e.mtx", "3 1\n2 1\n"))  # banner-less body
    assert g.num_nodes == 3 and not g.directed
    g = read_graph(write(tmp_path, "f.mtx", "3 3 2\n3 1\n2 1\n"))  # body with a size line
    assert g.num_nodes == 3 and g.num_edges == 2
    # METIS: blank line = isolated vertex, weights (fmt 001), vertex weights (fmt 010)
    g = read_graph(write(tmp_path, "g.graph", "% c\n4 1\n2\n1\n\n"))
    assert g.num_nodes == 4 and coo(g) == [[0, 1], [1, 0]] and g.symmetric
    g = read_graph(write(tmp_path, "h.graph", "3 1 001\n2 5\n1 5\n"))
    assert g.weights.tolist() == [5, 5] and g.num_nodes == 3
    g = read_graph(write(tmp_path, "i.graph", "2 1 011 2\n7 8 2 3\n1 1 1 3\n"))
    assert coo(g) == [[0, 1], [1, 0]] and g.weights.tolist() == [3, 3]


def test_sniffing_unknown_extensions(tmp_path):
    cases = {
        "p sp 2 1\na 1 2 3\n": "dimacs",
        "c\np tw 2 1\n1 2\n": "pace",
        "0,1\n": "csv",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n": "mtx",
        "# x\n0 1\n": "snap",
    }
    for i, (text, fmt) in enumerate(cases.items()):
        assert sniff_format(text.encode()) == fmt
        assert read_graph(write(tmp_path, f"f{i}.dat", text)).num_edges == 1
    with pytest.raises(GraphFormatError, match="'p sp n m'"):
        read_graph(write(tmp_path, "x.gr", "1 2\n"))


def test_progress_option(tmp_path):
    assert read_graph(write(tmp_path, "a.txt", "0 1\n"), progress=True).num_edges == 1


def test_chunked_scan_gaps_wide_ids_and_mixed_columns(tmp_path, monkeypatch):
    monkeypatch.setattr(_io_parse, "_CHUNK_BYTES", 64)
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 1000, 500), rng.integers(0, 1000, 500)
    lines = [f"{u}\t{v}" for u, v in zip(src, dst)]
    lines.insert(250, "# comment in the middle")
    lines.insert(100, "")
    g = read_graph(write(tmp_path, "a.txt", "\n".join(lines) + "\n"))
    assert coo(g) == [src.tolist(), dst.tolist()]
    big = 3_000_000_000
    g = read_graph(write(tmp_path, "b.txt", "\n".join(lines[:300] + [f"0 {big}"])))
    assert g.num_nodes == big + 1 and g.coo()[1].dtype == np.int64
    bad = lines[:400] + ["1 2 3"] + lines[400:]
    with pytest.raises(GraphFormatError, match="line 401: expected 2 columns"):
        read_graph(write(tmp_path, "c.txt", "\n".join(bad)))
    # the second chunk alone looks fine (3 columns throughout): the mismatch is found
    # when the chunks are joined, and reported at the first 3-column line
    bad = lines[:400] + [line + "\t1" for line in lines[400:]]
    with pytest.raises(GraphFormatError, match="line 401: expected 2 columns"):
        read_graph(write(tmp_path, "d.txt", "\n".join(bad)))


def test_import_io_does_not_load_numba_kernels():
    code = "import sys, concomp.io; print('concomp.io._parse' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(Path(__file__).parents[1] / "src"), "PATH": ""},
    )
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "name, text, fmt, pattern",
    [
        ("a.txt", "0 1\n1 2\n\n# c\n5 6\na b\n", None, r"line 6: expected 2 or 3 numbers.*'a b'"),
        ("b.txt", "0 1\n1 2 3 4\n", None, r"line 2: expected 2 or 3 .*too many"),
        ("c.txt", "0 1\n1 2 3\n", None, r"line 2: expected 2 columns"),
        ("d.txt", "0 1\n7\n", None, r"line 2: expected"),
        ("e.txt", "0 1\n-1 2\n", None, r"line 2: expected"),
        ("f.txt", "0 1 x1\n", None, r"line 1: weight 'x1' is not a number"),
        ("g.gr", "c\np tw 3 2\n1 2\n", None, r"line 2: the 'p' line declares m=2 edges"),
        ("h.gr", "p tw 3 1\n0 2\n", None, r"line 2: vertex id below 1 in a 1-based format"),
        ("i.gr", "p tw 3 1\n1 4\n", None, r"line 2: vertex id above n=3"),
        ("j.gr", "p sp 3 1\n1 2 3\n", None, r"line 2: expected a line starting with 'a'"),
        (
            "k.mtx",
            "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
            None,
            r"declares 2 entries but the file lists 1",
        ),
        ("l.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n", None, r"line 1: a banner"),
        ("m.graph", "3 2\n2\n1\n\n", None, r"m=2 undirected edges .* lists 2"),
        ("n.graph", "3 1\n2\n1 x\n\n", None, r"line 3: expected integer neighbour ids"),
        ("o.graph", "2 1\n2\n1\n3\n", None, r"line 4: a neighbour list after the n=2 vertex lines"),
        ("p.graph", "4 1\n2\n1\n", None, r"n=4 vertices but the file has only 3"),
        ("q.txt", "0 1\n1 99999999999999999999\n", None, r"line 2: a number with more than 18"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path, name, text, fmt, pattern):
    path = write(tmp_path, name, text)
    with pytest.raises(GraphFormatError, match=pattern) as err:
        read_graph(path, format=fmt or "auto")
    assert str(path) in str(err.value) and "Fix:" in str(err.value)


def test_argument_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_graph(tmp_path / "missing.txt")
    with pytest.raises(InvalidGraphError, match="format"):
        read_graph(write(tmp_path, "a.txt", "0 1\n"), format="xml")
    with pytest.raises(InvalidGraphError, match="extension"):
        write_graph((np.array([0]), np.array([1])), tmp_path / "a.unknown")
    with pytest.raises(GraphFormatError, match="corrupt"):
        read_graph(write(tmp_path, "b.txt.gz", gzip.compress(bytes(range(256)) * 40)[:300]))
    with pytest.raises(GraphFormatError, match=r"not a readable \.npz"):
        read_graph(write(tmp_path, "c.npz", b"PK\x03\x04garbage"))


class _SlowReader:
    """A file-like object that records its reads and fails at read number ``fail_at``."""

    def __init__(self, data: bytes, fail_at: int = -1) -> None:
        self.data, self.pos, self.reads, self.fail_at = data, 0, 0, fail_at

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        if self.reads == self.fail_at:
            raise GraphFormatError("corrupt block")
        out = self.data[self.pos : self.pos + size]
        self.pos += len(out)
        return out


@pytest.mark.parametrize("size", [1, 3, 7, 64])
def test_line_blocks_are_whole_lines_in_order(size):
    from concomp.io._blocks import line_blocks

    body = b"".join(b"%d %d\n" % (i, i * 7) for i in range(50)) + b"9 9"
    got = list(line_blocks(_SlowReader(body[5:]), body[:5], size))
    assert b"".join(bytes(b) for b, _ in got) == body
    assert [done for _, done in got] == [False] * (len(got) - 1) + [True]
    assert all(bytes(b).endswith(b"\n") for b, _ in got[:-1])


def test_line_blocks_raise_a_read_error_at_its_block():
    from concomp.io._blocks import line_blocks

    reader = _SlowReader(b"0 1\n" * 100, fail_at=3)
    blocks = line_blocks(reader, b"", 40)
    assert bytes(next(blocks)[0]) == b"0 1\n" * 10
    assert bytes(next(blocks)[0]) == b"0 1\n" * 10
    with pytest.raises(GraphFormatError, match="corrupt block"):
        next(blocks)


def test_count_newlines_matches_numpy_at_every_alignment():
    from concomp.io._lex import _count_newlines

    rng = np.random.default_rng(7)
    alphabet = np.array([10, 32, 48, 57, 0, 11, 138, 255, 9, 13], np.uint8)  # near misses of \n
    for _ in range(500):
        buf = rng.choice(alphabet, int(rng.integers(0, 70)))
        lo, hi = int(rng.integers(0, buf.shape[0] + 2)), int(rng.integers(0, buf.shape[0] + 1))
        expect = int(np.count_nonzero(buf[lo:hi] == 10)) if lo < hi else 0
        assert _count_newlines(buf, lo, hi) == expect, (buf.tolist(), lo, hi)
