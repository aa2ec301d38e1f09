"""String ids renumbered from their Arrow buffers (:mod:`concomp._strings`) give the
codes and ``node_ids`` of the object path (:func:`concomp._renumber._renumber_host`),
and every case the fast path declines (no pyarrow, nulls, other values, a hash
collision) still answers through the object path."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import concomp
from concomp import _renumber, _strings
from concomp.errors import InvalidGraphError

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")


def _object_path(src: list, dst: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _renumber._renumber_host(
        np.array(src, dtype=object), np.array(dst, dtype=object), objects=True
    )


def _assert_same(got, want) -> None:
    assert got is not None
    assert [a.tolist() for a in got] == [a.tolist() for a in want]
    assert got[2].dtype == object and got[0].dtype == want[0].dtype


#: code point order against byte order, prefixes, NUL bytes, empty strings, strings
#: longer than the fixed-width rows, and strings ending at the data buffer's end
TRICKY = [
    "",
    "a",
    "a\x00",
    "a\x00b",
    "ab",
    "b",
    "z",
    "é",
    "\uffff",
    "\U0001f600",
    "Zürich",
    "x" * 7,
    "x" * 8,
    "x" * 9,
    "y" * 56,
    "y" * 57,
    "user-00000000000000ff",
]


def _edges(pool: list, m: int, seed: int) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    return (
        [pool[i] for i in rng.integers(0, len(pool), m)],
        [pool[i] for i in rng.integers(0, len(pool), m)],
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("long", [False, True])
@pytest.mark.parametrize("kind", ["string", "large_string", "binary", "chunked-sliced"])
def test_arrow_codes_equal_the_object_path(seed, long, kind):
    pool = TRICKY + [f"id-{i}" * (20 if long else 1) for i in range(50)]
    if kind == "binary":
        pool = [s.encode() for s in pool]
    src, dst = _edges(pool, 400, seed)
    want = _object_path(src, dst)
    if kind == "chunked-sliced":  # chunks that are slices of bigger arrays (offset > 0)
        whole_s, whole_d = pa.array(["pad", *src, "pad"]), pa.array(["pad", *dst])
        s = pa.chunked_array([whole_s.slice(1, 150), whole_s.slice(151, len(src) - 150)])
        d = pa.chunked_array([whole_d.slice(1, 399), whole_d.slice(400, 1)])
    else:
        t = {"string": pa.string(), "large_string": pa.large_string(), "binary": pa.binary()}
        s, d = pa.array(src, type=t[kind]), pa.array(dst, type=t[kind])
    got = _strings.renumber_strings(_strings.arrow_strings(s), _strings.arrow_strings(d))
    _assert_same(got, want)


def test_numpy_and_object_arrays_take_the_arrow_path(monkeypatch):
    # NumPy str arrays drop trailing NULs, so the pool holds none
    src, dst = _edges([s for s in TRICKY if not s.endswith("\x00")], 200, 5)
    want = _object_path(src, dst)

    def refuse(*args, **kwargs):
        raise AssertionError("the object path ran")

    monkeypatch.setattr(_renumber, "_renumber_host", refuse)
    for s, d in [
        (np.array(src), np.array(dst)),
        (np.array(src, dtype=object), np.array(dst, dtype=object)),
        (pd.Series(src, dtype="str"), pd.Series(dst, dtype="str")),
        (pd.Series(src, dtype="category"), pd.Series(dst, dtype="category")),
        (pa.array(src), pa.chunked_array([pa.array(dst)])),
    ]:
        g = concomp.as_graph(
            pd.DataFrame({"src": s, "dst": d}) if isinstance(s, pd.Series) else (s, d)
        )
        assert g.node_ids.tolist() == want[2].tolist()
        assert [a.tolist() for a in g.coo()] == [want[0].tolist(), want[1].tolist()]


def test_without_pyarrow_the_object_path_answers(monkeypatch):
    src, dst = _edges(TRICKY, 200, 6)
    with_arrow = concomp.connected_components((np.array(src), np.array(dst)))
    # NUL bytes inside NumPy str items survive (pyarrow alone would cut them)
    assert "a\x00b" in with_arrow.node_ids.tolist()
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails
    assert _strings.arrow_strings(np.array(src)) is None
    without = concomp.connected_components((np.array(src), np.array(dst)))
    assert without.node_ids.tolist() == with_arrow.node_ids.tolist()
    assert without.labels.tolist() == with_arrow.labels.tolist()


@pytest.mark.parametrize("long", [False, True])
def test_a_hash_collision_falls_back_to_the_object_path(monkeypatch, long):
    src, dst = _edges([s * (10 if long else 1) for s in TRICKY], 200, 7)
    want = _object_path(src, dst)
    s, d = pa.array(src), pa.array(dst)
    # every string hashes alike: the byte check must see the different strings
    monkeypatch.setattr(_strings, "_hash_kernel", lambda off, data, words, out: out.fill(7))
    assert _strings.renumber_strings(_strings.arrow_strings(s), _strings.arrow_strings(d)) is None
    g = concomp.as_graph((s, d))
    assert g.node_ids.tolist() == want[2].tolist()
    assert [a.tolist() for a in g.coo()] == [want[0].tolist(), want[1].tolist()]


def test_values_the_arrow_path_declines():
    assert _strings.arrow_strings(np.array([1, 2])) is None
    assert _strings.arrow_strings(np.array(["a", 1], dtype=object)) is None
    assert _strings.arrow_strings(np.array(["a", None], dtype=object)) is None
    assert _strings.arrow_strings(pa.array([1, 2])) is None
    # a categorical of integers is not strings: its ids stay numbers
    df = pd.DataFrame({"src": pd.Series([10**12, 5], dtype="category"), "dst": [5, 7]})
    assert concomp.as_graph(df).node_ids.tolist() == [5, 7, 10**12]
    # strings against bytes: the object path (which cannot sort them) keeps first appearance
    res = concomp.connected_components((pa.array(["b", "a"]), pa.array([b"a", b"c"])))
    assert res.node_ids.tolist() == ["b", "a", b"a", b"c"]


def test_arrow_columns_with_missing_ids_and_renumber_false_are_named():
    df = pd.DataFrame({"src": pd.Series(["a", None, "c"], dtype="str"), "dst": ["b", "c", "a"]})
    with pytest.raises(InvalidGraphError, match=r"argument `src`: .* at position 1 is missing"):
        concomp.connected_components(df)
    df = pd.DataFrame({"src": pd.Series(["a", "b"], dtype="category"), "dst": ["b", "c"]})
    with pytest.raises(InvalidGraphError, match=r"argument `src`: .*renumber=False, got dtype"):
        concomp.connected_components(df, renumber=False)
    with pytest.raises(InvalidGraphError, match=r"argument `num_nodes`: 3 .*not integers"):
        concomp.connected_components(df, num_nodes=3)


def test_empty_string_columns():
    df = pd.DataFrame({"src": pd.Series([], dtype="str"), "dst": pd.Series([], dtype="str")})
    g = concomp.as_graph(df)
    assert g.num_nodes == 0 and g.node_ids.dtype == object
