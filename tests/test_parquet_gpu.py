"""Parquet id columns decoded on the GPU (``concomp._gpu.parquet``) against pyarrow.

Every test writes its files with pyarrow in the layouts writers produce (data pages
V1 and V2, Snappy or none, dictionary or PLAIN pages, a dictionary that overflows
into PLAIN pages mid-chunk, optional or required columns, INT32 or INT64, ids above
int32, many small pages and row groups, a weight column between the ids) and checks
the decoded ids against pyarrow's, the public calls against the CPU engine, and that
corrupt pages raise :class:`~concomp.errors.GraphFormatError` instead of crashing.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import concomp
from concomp.errors import GraphFormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.gpu

LAYOUTS = {
    "default": {},
    "v2 pages": {"data_page_version": "2.0"},
    "uncompressed": {"compression": "none"},
    "v2 uncompressed": {"data_page_version": "2.0", "compression": "none"},
    "plain": {"use_dictionary": False},
    "small pages and groups": {"data_page_size": 1024, "row_group_size": 3001},
    "dictionary overflows": {"dictionary_pagesize_limit": 2048, "data_page_size": 4096},
}


def _edges(m: int, n: int, seed: int = 0, wide: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if wide:  # ids above int32: the decoder widens its output
        src[::7] += 1 << 33
    return src, dst


def _write(path, src, dst, *, dtype=None, nullable=True, weight=False, **kw):
    dtype = pa.int64() if dtype is None else dtype
    fields = [pa.field("src", dtype, nullable=nullable)]
    cols = [pa.array(src, dtype)]
    if weight:
        fields.append(pa.field("weight", pa.float64()))
        cols.append(pa.array(np.linspace(0, 1, len(src))))
    fields.append(pa.field("dst", dtype, nullable=nullable))
    cols.append(pa.array(dst, dtype))
    pq.write_table(pa.Table.from_arrays(cols, schema=pa.schema(fields)), path, **kw)
    return str(path)


def _decoded(path):
    from concomp.streaming import _parquet_device_chunks

    chunks = _parquet_device_chunks(path, "test")
    assert chunks is not None, "the decoder refused a file it reads"
    chunks = list(chunks)
    assert all(c.decoded for c in chunks)
    import cupy as cp

    src = np.concatenate([cp.asnumpy(c.src) for c in chunks])
    dst = np.concatenate([cp.asnumpy(c.dst) for c in chunks])
    return src, dst, {c.src.dtype for c in chunks}


@pytest.fixture(params=["warp per page", "thread per page"])
def warp_pages(request, monkeypatch):
    """Pages decompressed by a warp each, as the decoder runs, or by a thread each (the
    kernel's other way, whose output must not differ)."""
    if request.param == "thread per page":
        from concomp._gpu import parquet

        monkeypatch.setattr(parquet, "_LANES_LOG2", 0)
    return request.param


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ["int64", "int32"])
@pytest.mark.parametrize("nullable", [True, False])
def test_decoded_ids_equal_pyarrows(tmp_path, layout, dtype, nullable, warp_pages):
    src, dst = _edges(20011, 5000 if layout != "plain" else 1 << 30, seed=len(layout))
    path = _write(
        tmp_path / "e.parquet",
        src,
        dst,
        dtype=getattr(pa, dtype)(),
        nullable=nullable,
        **LAYOUTS[layout],
    )
    got_s, got_d, dtypes = _decoded(path)
    t = pq.read_table(path)
    np.testing.assert_array_equal(got_s, t.column("src").to_numpy())
    np.testing.assert_array_equal(got_d, t.column("dst").to_numpy())
    assert dtypes == {np.dtype(np.int32)}  # every id fits int32


@pytest.mark.parametrize("layout", ["default", "plain", "v2 pages"])
def test_ids_above_int32_are_decoded_into_int64(tmp_path, layout):
    src, dst = _edges(9000, 1000, wide=True)
    path = _write(tmp_path / "w.parquet", src, dst, **LAYOUTS[layout])
    got_s, got_d, dtypes = _decoded(path)
    np.testing.assert_array_equal(got_s, src)
    np.testing.assert_array_equal(got_d, dst)
    assert dtypes == {np.dtype(np.int64)}


@pytest.mark.parametrize("order", ["sorted", "runs"])
def test_ids_in_order_decode_like_pyarrow(tmp_path, order, warp_pages):
    """Ids that follow the graph's geometry, as road networks and meshes arrive: Snappy
    writes short literals and copies, interleaved with long literals where the ids jump,
    and a dictionary that overflows into PLAIN pages."""
    rng = np.random.default_rng(5)
    m = 300_000
    if order == "sorted":
        src = np.sort(rng.integers(0, 1 << 22, m))
        dst = src + rng.integers(1, 9, m)
    else:  # sorted runs between random jumps
        src = np.cumsum(np.where(rng.random(m) < 0.01, rng.integers(1, 1 << 24, m), 1))
        dst = np.roll(src, 3)
    path = _write(tmp_path / "o.parquet", src, dst, row_group_size=200_000)
    got_s, got_d, _ = _decoded(path)
    np.testing.assert_array_equal(got_s, src)
    np.testing.assert_array_equal(got_d, dst)


def test_a_weight_column_between_the_ids_is_skipped(tmp_path):
    src, dst = _edges(5000, 300)
    path = _write(tmp_path / "w.parquet", src, dst, weight=True, row_group_size=1000)
    got_s, got_d, _ = _decoded(path)
    np.testing.assert_array_equal(got_s, src)
    np.testing.assert_array_equal(got_d, dst)


@pytest.mark.parametrize("layout", ["default", "small pages and groups"])
def test_public_calls_on_a_file_match_the_cpu_engine_and_return_host_labels(
    tmp_path, layout, caplog
):
    src, dst = _edges(30000, 40000, seed=3)
    n = 40000
    path = _write(tmp_path / "g.parquet", src, dst, **LAYOUTS[layout])
    want = concomp.connected_components(path, num_nodes=n, device="cpu")
    with caplog.at_level(logging.DEBUG, logger="concomp"):
        got = concomp.connected_components(path, num_nodes=n, device="gpu")
    assert "read by pyarrow" not in caplog.text
    assert got[0] == want[0]
    assert isinstance(got[1], np.ndarray)
    np.testing.assert_array_equal(got[1], want[1])
    streamed = concomp.stream_components(path, num_nodes=n, device="gpu")
    assert isinstance(streamed[1], np.ndarray)
    np.testing.assert_array_equal(streamed[1], want[1])
    forest = concomp.spanning_forest(path, num_nodes=n, device="gpu")
    assert forest.num_components == want[0]
    msf = concomp.minimum_spanning_forest(path, device="gpu")  # ids as the file holds them
    cpu_msf = concomp.minimum_spanning_forest(path, device="cpu")
    assert (msf.num_nodes, msf.num_edges, msf.total_weight) == (
        cpu_msf.num_nodes,
        cpu_msf.num_edges,
        cpu_msf.total_weight,
    )


def test_files_beyond_the_decoder_are_read_by_pyarrow(tmp_path, caplog):
    src, dst = _edges(4000, 500)
    path = _write(tmp_path / "z.parquet", src, dst, compression="zstd")
    want = concomp.connected_components(path, num_nodes=500, device="cpu")
    with caplog.at_level(logging.DEBUG, logger="concomp"):
        got = concomp.connected_components(path, num_nodes=500, device="gpu")
    assert "read by pyarrow, not on the GPU (row group 0 is compressed with ZSTD)" in caplog.text
    np.testing.assert_array_equal(got[1], want[1])


def _first_data_page(path):
    from concomp._shared import parquet_pages as pages

    pf = pq.ParquetFile(path)
    plan = pages.column_plan(pf, (0, 1))
    buf = np.fromfile(path, np.uint8)
    c = plan.chunks[0]
    table, err, _ = pages.page_table(buf, np.array([c.offset]), np.array([c.offset + c.size]))
    assert err == 0
    data = table[np.isin(table[:, 1], (0, 3))]
    return buf, int(data[0, 2])


def test_a_corrupt_snappy_page_raises_a_format_error(tmp_path, warp_pages):
    src, dst = _edges(20000, 5000)
    path = _write(tmp_path / "c.parquet", src, dst)
    buf, body = _first_data_page(path)
    buf[body : body + 5] = 0xFF  # the decompressed length's varint runs on
    buf.tofile(path)
    # the varint of the decompressed length is cut off, or says another length
    with pytest.raises(
        GraphFormatError,
        match=r"row group 0, source column: a (Snappy-compressed page is malformed|page "
        r"decompresses to another size than its header says)",
    ):
        concomp.connected_components(path, num_nodes=5000, device="gpu")


def test_a_bad_index_width_raises_a_format_error(tmp_path):
    src, dst = _edges(20000, 5000)
    path = _write(tmp_path / "c.parquet", src, dst, compression="none", nullable=False)
    buf, body = _first_data_page(path)
    buf[body] = 40  # a required column's page starts with the indices' bit width
    buf.tofile(path)
    with pytest.raises(GraphFormatError, match="wider than 32 bits"):
        concomp.connected_components(path, num_nodes=5000, device="gpu")


def test_an_out_of_range_id_in_a_decoded_file_names_the_row_groups(tmp_path):
    src, dst = _edges(3000, 100)
    dst[2500] = 100
    path = _write(tmp_path / "r.parquet", src, dst, row_group_size=1000)
    with pytest.raises(concomp.errors.InvalidGraphError, match=r"r\.parquet"):
        concomp.connected_components(path, num_nodes=100, device="gpu")
