"""The page layout of Parquet id columns (``concomp._shared.parquet_pages``), no GPU needed.

The GPU decoder trusts this parser for where every page lies and how many values it
holds, so it is checked against pyarrow's footer on files written in every layout
pyarrow produces, and against corrupt headers, which must give a clear error.
"""

from __future__ import annotations

import numpy as np
import pytest

from concomp.errors import GraphFormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pages = pytest.importorskip("concomp._shared.parquet_pages")

LAYOUTS = {
    "default": {},
    "v2 pages": {"data_page_version": "2.0"},
    "uncompressed": {"compression": "none"},
    "plain": {"use_dictionary": False},
    "small pages and groups": {"data_page_size": 512, "row_group_size": 777},
    "dictionary overflows": {"dictionary_pagesize_limit": 1024, "data_page_size": 2048},
    "no statistics": {"write_statistics": False},
}


def _file(tmp_path, m=5000, dtype="int64", nullable=True, **kw):
    rng = np.random.default_rng(m)
    t = getattr(pa, dtype)()
    schema = pa.schema(
        [
            pa.field("src", t, nullable=nullable),
            pa.field("w", pa.float32()),
            pa.field("dst", t, nullable=nullable),
        ]
    )
    cols = [
        pa.array(rng.integers(0, 3000, m), t),
        pa.array(rng.random(m).astype(np.float32)),
        pa.array(rng.integers(0, 3000, m), t),
    ]
    path = tmp_path / "e.parquet"
    pq.write_table(pa.Table.from_arrays(cols, schema=schema), path, **kw)
    return path


def _pages(path):
    pf = pq.ParquetFile(path)
    plan = pages.column_plan(pf, (0, 2))
    buf = np.fromfile(path, np.uint8)
    if isinstance(plan, str):
        return pf, plan, buf, None, None, None
    starts = np.array([c.offset for c in plan.chunks])
    ends = starts + np.array([c.size for c in plan.chunks])
    table, err, where = pages.page_table(buf, starts, ends)
    return pf, plan, buf, table, err, where


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("nullable", [True, False])
def test_pages_account_for_every_value_and_byte(tmp_path, layout, dtype, nullable):
    path = _file(tmp_path, dtype=dtype, nullable=nullable, **LAYOUTS[layout])
    pf, plan, _, table, err, where = _pages(path)
    if layout == "no statistics" and nullable:  # the null count is unknown: pyarrow reads it
        assert plan == "row group 0 does not record its null count"
        return
    assert (err, where) == (pages.OK, -1)
    assert plan.widths == ((4, 4) if dtype == "int32" else (8, 8))
    assert plan.max_def == ((1, 1) if nullable else (0, 0))
    assert plan.rows == 5000
    assert [c.column for c in plan.chunks[:2]] == [0, 1]
    pages.check_table(table, err, where, np.array([plan.max_def[0]] * len(plan.chunks)), str)
    kind = table[:, 1]
    data = np.isin(kind, (pages.DATA_PAGE, pages.DATA_PAGE_V2))
    per_chunk = np.bincount(table[data, 0], weights=table[data, 5], minlength=len(plan.chunks))
    np.testing.assert_array_equal(per_chunk, [c.rows for c in plan.chunks])
    meta = pf.metadata
    for i, c in enumerate(plan.chunks):
        mine = table[table[:, 0] == i]
        has_dict = meta.row_group(c.group).column(2 * c.column).has_dictionary_page
        assert (mine[:, 1] == pages.DICTIONARY_PAGE).sum() == int(has_dict)
        # bodies lie inside the chunk, in order, and the last one ends it
        assert (mine[:, 2] > c.offset).all()
        assert (np.diff(mine[:, 2]) > 0).all()
        assert mine[-1, 2] + mine[-1, 3] == c.offset + c.size
    assert set(kind[data]) == ({pages.DATA_PAGE_V2} if "v2" in layout else {pages.DATA_PAGE})
    if layout == "plain":
        assert set(table[data, 6]) == {pages.PLAIN}
    if layout == "dictionary overflows":
        assert {pages.PLAIN, pages.RLE_DICTIONARY} <= set(table[data, 6])


@pytest.mark.parametrize(
    ("kw", "dtype", "reason"),
    [
        ({"compression": "zstd"}, "int64", "compressed with ZSTD"),
        ({"compression": "gzip"}, "int64", "compressed with GZIP"),
        (
            {"use_dictionary": False, "column_encoding": {"src": "DELTA_BINARY_PACKED"}},
            "int64",
            "uses encodings",
        ),
        ({}, "uint32", "logical type Int(bitWidth=32, isSigned=false)"),
        ({}, "uint64", "logical type Int(bitWidth=64, isSigned=false)"),
        ({}, "float64", "is DOUBLE, not INT32 or INT64"),
    ],
)
def test_layouts_beyond_the_decoder_get_a_reason(tmp_path, kw, dtype, reason):
    t = getattr(pa, dtype)()
    table = pa.table({"src": pa.array([1, 2, 3], t), "dst": pa.array([2, 3, 4], t)})
    pq.write_table(table, tmp_path / "x.parquet", **kw)
    plan = pages.column_plan(pq.ParquetFile(tmp_path / "x.parquet"), (0, 1))
    assert isinstance(plan, str) and reason in plan


def test_null_ids_and_nested_columns_get_a_reason(tmp_path):
    pq.write_table(pa.table({"src": [1, None], "dst": [2, 3]}), tmp_path / "n.parquet")
    assert pages.column_plan(pq.ParquetFile(tmp_path / "n.parquet"), (0, 1)) == (
        "row group 0 holds null ids"
    )
    pq.write_table(pa.table({"src": [[1], [2]], "dst": [2, 3]}), tmp_path / "l.parquet")
    plan = pages.column_plan(pq.ParquetFile(tmp_path / "l.parquet"), (0, 1))
    assert isinstance(plan, str) and "nested or repeated" in plan


def test_small_ints_are_admitted_as_int32(tmp_path):
    for t in (pa.int8(), pa.uint8(), pa.int16(), pa.uint16()):
        table = pa.table({"src": pa.array([1, 2], t), "dst": pa.array([2, 3], t)})
        pq.write_table(table, tmp_path / "s.parquet")
        plan = pages.column_plan(pq.ParquetFile(tmp_path / "s.parquet"), (0, 1))
        assert plan.widths == (4, 4), t


def test_a_corrupt_page_header_is_a_format_error_naming_the_chunk(tmp_path):
    path = _file(tmp_path, row_group_size=1000)
    _, plan, buf, *_ = _pages(path)
    c = plan.chunks[3]
    bad = buf.copy()
    bad[c.offset] = 0x0C  # the header's first field becomes a struct that never ends
    bad[c.offset + 1 : c.offset + c.size] = 0xFF
    starts = np.array([x.offset for x in plan.chunks])
    ends = starts + np.array([x.size for x in plan.chunks])
    table, err, where = pages.page_table(bad, starts, ends)
    assert err != pages.OK and where == 3
    # the pages before the bad chunk were read
    assert set(table[:, 0]) <= {0, 1, 2}
    with pytest.raises(GraphFormatError, match="chunk 3: a page header is not valid Thrift"):
        pages.check_table(table, err, where, np.ones(len(plan.chunks), np.int64), "chunk {}".format)


def test_a_page_past_its_chunk_is_a_format_error(tmp_path):
    path = _file(tmp_path)
    _, plan, buf, *_ = _pages(path)
    starts = np.array([x.offset for x in plan.chunks])
    ends = starts + np.array([x.size for x in plan.chunks])
    ends[1] -= 1  # the chunk's last page now runs past its end
    _, err, where = pages.page_table(buf, starts, ends)
    assert (err, where) == (pages.OVERRUN, 1)


# ------------------------------------------------------ the GPU decoder's tables, on the host
def _rle_hybrid(buf, pos, end, width, count):
    """Decode ``count`` values of Parquet's RLE / bit-packed hybrid (the contract of
    ``pq_values`` in cuda/parquet.cu, written plainly)."""
    out = []
    while len(out) < count:
        h, shift = 0, 0
        while True:
            b = int(buf[pos])
            pos += 1
            h |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if h & 1 == 0:
            nb = (width + 7) // 8
            out += [int.from_bytes(bytes(buf[pos : pos + nb]), "little")] * (h >> 1)
            pos += nb
        else:
            groups = h >> 1
            bits = int.from_bytes(bytes(buf[pos : pos + groups * width]), "little")
            out += [(bits >> (i * width)) & ((1 << width) - 1) for i in range(groups * 8)]
            pos += groups * width
        assert pos <= end
    return np.array(out[:count], dtype=np.int64)


def _decode_on_host(path):
    """The GPU decoder's host half (page tables, Snappy jobs, decode table) with the
    kernels' work done by pyarrow's Snappy and NumPy: the ids it would produce."""
    gp = pytest.importorskip("concomp._gpu.parquet")
    pf = pq.ParquetFile(path)
    plan = pages.column_plan(pf, (0, 2))
    raw = sum(c.size for c in plan.chunks)
    meta = pf.metadata
    scratch = sum(
        meta.row_group(c.group).column(2 * c.column).total_uncompressed_size
        for c in plan.chunks
        if c.codec
    )
    rnd = gp._Round(list(range(len(plan.chunks))), plan.rows, raw, scratch)
    file = np.fromfile(path, np.uint8)
    buf = np.zeros(raw + scratch, np.uint8)
    sizes = np.array([c.size for c in plan.chunks])
    at = np.cumsum(sizes) - sizes
    for a, c in zip(at, plan.chunks):  # the chunks side by side, as decode_round lays them
        buf[a : a + c.size] = file[c.offset : c.offset + c.size]
    table, err, bad = pages.page_table(buf, at, at + sizes)
    pages.check_table(table, err, bad, np.array([plan.max_def[c.column] for c in plan.chunks]), str)
    (jobs, _), place, grown = gp._slot_jobs(table, plan.chunks, rnd, 0, str(path))
    assert grown <= scratch
    for in_pos, in_len, out_pos, out_len in jobs:
        assert out_pos >= raw and out_pos + out_len <= raw + scratch
        data = pa.py_buffer(bytes(buf[in_pos : in_pos + in_len]))
        buf[out_pos : out_pos + out_len] = np.frombuffer(
            pa.decompress(data, decompressed_size=int(out_len), codec="snappy"), np.uint8
        )
    decode, _ = gp._tables(table, place, plan.chunks, plan, str(path))
    out = [np.full(plan.rows, -1, np.int64), np.full(plan.rows, -1, np.int64)]
    for pos, length, count, enc, row, dpos, dcount, levels, col in decode:
        end = pos + length
        if levels:
            pos += 4 + int.from_bytes(bytes(buf[pos : pos + 4]), "little")
        w = plan.widths[col]
        dt = np.int32 if w == 4 else np.int64
        if enc == pages.PLAIN:
            vals = np.frombuffer(bytes(buf[pos : pos + count * w]), dt)
        else:
            idx = _rle_hybrid(buf, pos + 1, end, int(buf[pos]), count)
            assert (idx < dcount).all()
            vals = np.frombuffer(bytes(buf[dpos : dpos + dcount * w]), dt)[idx]
        assert (out[col][row : row + count] == -1).all(), "pages overlap"
        out[col][row : row + count] = vals
    return out


@pytest.mark.parametrize("layout", sorted(set(LAYOUTS) - {"no statistics"}))
@pytest.mark.parametrize("nullable", [True, False])
def test_the_gpu_decoders_tables_give_pyarrows_ids(tmp_path, layout, nullable):
    path = _file(tmp_path, m=3000, nullable=nullable, **LAYOUTS[layout])
    src, dst = _decode_on_host(path)
    t = pq.read_table(path)
    np.testing.assert_array_equal(src, t.column("src").to_numpy())
    np.testing.assert_array_equal(dst, t.column("dst").to_numpy())


def test_the_page_table_is_the_same_whether_its_first_guess_holds_or_not(tmp_path, monkeypatch):
    """``page_table`` walks once into a table sized by a guess of the page size and
    again only where the pages are more than the guess: both give the same table, and
    a corrupt header the same error with the pages before it."""
    path = _file(tmp_path, m=20000, data_page_size=512, write_batch_size=100)
    _, plan, buf, *_ = _pages(path)
    starts = np.array([c.offset for c in plan.chunks])
    ends = starts + np.array([c.size for c in plan.chunks])
    bad = buf.copy()
    bad[plan.chunks[1].offset : plan.chunks[1].offset + 3] = 0xFF
    got = {}
    for guess in (1, 1 << 30):  # room for every page; room for 64
        monkeypatch.setattr(pages, "_GUESS_PAGE_BYTES", guess)
        got[guess] = pages.page_table(buf, starts, ends), pages.page_table(bad, starts, ends)
    (small, small_bad), (large, large_bad) = got[1], got[1 << 30]
    assert small[0].shape[0] > 64 and small[1:] == large[1:] == (pages.OK, -1)
    np.testing.assert_array_equal(small[0], large[0])
    assert small_bad[1:] == large_bad[1:] and small_bad[2] == 1
    np.testing.assert_array_equal(small_bad[0], large_bad[0])
    np.testing.assert_array_equal(small_bad[0], small[0][small[0][:, 0] == 0])


def test_corrupt_bytes_never_send_the_decoder_out_of_its_chunk(tmp_path):
    """Any bytes in a chunk give either pages that lie inside it, with sizes and counts
    that are not negative (all the GPU decoder trusts), or an error code; never an
    exception or a hang."""
    hyp = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    path = _file(tmp_path, m=2000, row_group_size=700, data_page_size=256)
    _, plan, buf, *_ = _pages(path)
    starts = np.array([c.offset for c in plan.chunks])
    ends = starts + np.array([c.size for c in plan.chunks])

    @hyp.settings(max_examples=300, deadline=None)
    @hyp.given(st.lists(st.tuples(st.integers(0, buf.shape[0] - 1), st.integers(0, 255)),
                        min_size=1, max_size=12))  # fmt: skip
    def check(flips):
        bad = buf.copy()
        for at, value in flips:
            bad[at] = value
        table, err, where = pages.page_table(bad, starts, ends)
        assert err in (pages.OK, pages.BAD_HEADER, pages.OVERRUN, pages.BAD_PAGE)
        assert (err == pages.OK) == (where == -1)
        for row in table:
            c, body, size = int(row[0]), int(row[2]), int(row[3])
            assert starts[c] < body and body + size <= ends[c]
            assert size >= 0 and row[4] >= 0 and 0 <= row[7] <= size
            assert row[1] == 1 or row[5] >= 0  # counts of every page but an index page

    check()


def test_rounds_of_row_groups_fit_the_device_share(tmp_path, monkeypatch):
    """A file larger than the share of free device memory is decoded in rounds of whole
    row groups, in file order, each within the share; a row group larger than the
    share leaves the file to pyarrow (None)."""
    gp = pytest.importorskip("concomp._gpu.parquet")
    path = _file(tmp_path, m=5000, row_group_size=500)  # ten row groups
    pf = pq.ParquetFile(path)
    plan = pages.column_plan(pf, (0, 2))

    def need(chunks):
        groups = sorted({plan.chunks[i].group for i in chunks})
        raw = sum(plan.chunks[i].size for i in chunks)
        scratch = sum(
            pf.metadata.row_group(plan.chunks[i].group)
            .column(2 * plan.chunks[i].column)
            .total_uncompressed_size
            for i in chunks
        )
        return raw + scratch + 16 * sum(pf.metadata.row_group(g).num_rows for g in groups)

    one = need([0, 1])
    monkeypatch.setattr(gp, "free_device_bytes", lambda: int(3.5 * one / gp._DEVICE_SHARE))
    rounds = gp._rounds(pf, plan, (0, 2))
    assert len(rounds) >= 3
    assert [i for r in rounds for i in r.chunks] == list(range(len(plan.chunks)))
    assert sum(r.rows for r in rounds) == plan.rows
    for r in rounds:
        assert need(r.chunks) <= 3.5 * one
        assert len({plan.chunks[i].group for i in r.chunks}) * 2 == len(r.chunks)
    monkeypatch.setattr(gp, "free_device_bytes", lambda: int(0.5 * one / gp._DEVICE_SHARE))
    assert gp._rounds(pf, plan, (0, 2)) is None
    monkeypatch.setattr(gp, "free_device_bytes", lambda: None)  # unknown: one round
    assert len(gp._rounds(pf, plan, (0, 2))) == 1


def test_decoded_rounds_become_the_streams_chunks(tmp_path, monkeypatch):
    """The GPU engine's rounds (``(where, src, dst)``) reach the stream as chunks marked
    ``decoded``, named by file and row groups, in file order: here with the device
    decoding of a round stood in for by pyarrow (the glue, not the kernels)."""
    gp = pytest.importorskip("concomp._gpu.parquet")
    from concomp import streaming

    path = _file(tmp_path, m=3000, row_group_size=1000)
    pf = pq.ParquetFile(path)
    plan = pages.column_plan(pf, (0, 2))
    whole = pq.read_table(path)

    def round_on_host(cp, fd, name, plan, rnd):
        groups = sorted({plan.chunks[i].group for i in rnd.chunks})
        t = pf.read_row_groups(groups, columns=["src", "dst"])
        return t.column("src").to_numpy(), t.column("dst").to_numpy()

    one = plan.chunks[0].size + plan.chunks[1].size
    monkeypatch.setattr(gp, "free_device_bytes", lambda: int(8 * one / gp._DEVICE_SHARE))
    monkeypatch.setattr(gp, "cupy_or_raise", lambda: np)
    monkeypatch.setattr(gp, "decode_round", round_on_host)
    chunks = list(streaming._parquet_device_chunks(str(path), "graph"))
    assert len(chunks) >= 2 and all(c.decoded for c in chunks)
    assert chunks[0].label.startswith(f"graph ({str(path)!r}, row group")
    np.testing.assert_array_equal(np.concatenate([c.src for c in chunks]), whole["src"])
    np.testing.assert_array_equal(np.concatenate([c.dst for c in chunks]), whole["dst"])


def test_a_graph_read_from_parquet_parses_the_footer_once(tmp_path, monkeypatch):
    """The file opened to look at its columns is the one the decoder plans from: a
    second ``ParquetFile`` of the same file would parse its footer again (one is made
    per reading thread only on the host path, which the device path does not take)."""
    gp = pytest.importorskip("concomp._gpu.parquet")
    from concomp import streaming

    path = _file(tmp_path, m=3000, row_group_size=1000)
    whole = pq.read_table(path)

    def round_on_host(cp, fd, name, plan, rnd):
        groups = sorted({plan.chunks[i].group for i in rnd.chunks})
        t = whole.slice(groups[0] * 1000, len(groups) * 1000)
        return t.column("src").to_numpy(), t.column("dst").to_numpy()

    monkeypatch.setattr(gp, "cupy_or_raise", lambda: np)
    monkeypatch.setattr(gp, "decode_round", round_on_host)
    monkeypatch.setattr(gp, "free_device_bytes", lambda: None)
    opened = []
    real = pq.ParquetFile
    monkeypatch.setattr(pq, "ParquetFile", lambda *a, **k: opened.append(a) or real(*a, **k))
    edges = streaming._parquet_edges(str(path), None, False)
    chunks = list(edges.device_chunks())
    assert len(opened) == 1 and all(c.decoded for c in chunks)
    np.testing.assert_array_equal(np.concatenate([c.src for c in chunks]), whole["src"])


def test_a_failed_round_waits_for_its_reads_and_kernels():
    """On an error the GPU decoder waits for the reads still filling pinned slots and
    the Snappy launches still writing device memory (their own errors are not raised
    over the one being raised) before the memory goes back for later calls."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    gp = pytest.importorskip("concomp._gpu.parquet")
    gate = threading.Event()
    done = []

    def slow_read():
        gate.wait(5)
        done.append("read")

    def failing_read():
        raise OSError("a read that failed")

    class Stream:
        def synchronize(self):
            done.append("stream")

    with ThreadPoolExecutor(2) as pool:
        reads = [pool.submit(slow_read), pool.submit(failing_read)]
        threading.Timer(0.05, gate.set).start()
        gp._settle(reads, (Stream(), Stream()))
    assert done == ["read", "stream", "stream"]
