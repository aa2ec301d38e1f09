"""The GPU Parquet decoder's Snappy decompressor (``cuda/snappy.cuh``) compiled for the host.

The header is plain C++ apart from its qualifiers, so the decompressor the kernel runs
is checked here without a GPU: against pyarrow's Snappy on streams of every element kind
(literals of every length form, copies with 1-, 2- and 4-byte offsets, copies that
overlap their own output), at every alignment of input and output in the buffer, and on
corrupt streams, which must give an error code or any output, but never a write outside
the page's output range. Skipped where no C++ compiler is installed.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from concomp._gpu._compile import CUDA_DIR

pa = pytest.importorskip("pyarrow")
CXX = shutil.which("c++") or shutil.which("g++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler on PATH")

_HARNESS = """
#include "snappy.cuh"
// The lanes of a group one after another, each with rings of its own: the last one runs
// with every other lane's share of the split literals already stored, as after the
// group's barrier on the device, so the buffer ends as the group leaves it. Every lane
// must return the same code (else -1).
extern "C" int sn_host(unsigned char* bytes, long long in_pos, long long in_len,
                       long long out_pos, long long size, int lanes) {
    int code = 0;
    for (int lane = 0; lane < lanes; ++lane) {
        u64 ring[SN_RING], in_ring[SN_IN_RING];
        int c = sn_decompress(bytes, in_pos, in_len, out_pos, size, ring, in_ring, 1, lane,
                              lanes, 0u);
        if (lane > 0 && c != code) return -1;
        code = c;
    }
    return code;
}
"""
GUARD = 0xA5


@pytest.fixture(scope="module")
def decompress(tmp_path_factory):
    folder = tmp_path_factory.mktemp("snappy")
    (folder / "h.cpp").write_text(_HARNESS)
    lib = folder / "libsn.so"
    cmd = [CXX, "-O2", "-fno-strict-aliasing", "-shared", "-fPIC", f"-I{CUDA_DIR}"]
    res = subprocess.run([*cmd, str(folder / "h.cpp"), "-o", str(lib)], capture_output=True)
    assert res.returncode == 0, res.stderr.decode()[-4000:]
    fn = ctypes.CDLL(str(lib)).sn_host
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p] + [ctypes.c_longlong] * 4 + [ctypes.c_int]

    def run(
        stream: bytes, size: int, in_at: int, out_at: int, lanes: int = 1
    ) -> tuple[int, np.ndarray, bool]:
        """Decompress ``stream`` placed at byte ``in_at`` into ``size`` bytes at
        ``out_at`` of a guarded buffer by a group of ``lanes``: (status, output, guards
        intact)."""
        out_lo = in_at + len(stream) + out_at
        total = -(-(out_lo + size + 64) // 8) * 8
        buf = np.full(total, GUARD, np.uint8)
        buf[in_at : in_at + len(stream)] = np.frombuffer(stream, np.uint8)
        before = buf.copy()
        code = fn(buf.ctypes.data, in_at, len(stream), out_lo, size, lanes)
        outside = np.ones(total, bool)
        outside[out_lo : out_lo + size] = False
        return code, buf[out_lo : out_lo + size].copy(), bool((buf == before)[outside].all())

    return run


def _snappy(data: bytes) -> bytes:
    return pa.compress(data, codec="snappy", asbytes=True)


def _stream(elements: list) -> tuple[bytes, bytes]:
    """A Snappy stream of the given elements (``bytes``: a literal, ``(offset, length)``:
    a copy, 1 <= length <= 64) written by hand, where pyarrow's compressor would not pick
    them (it stops looking for copies in bytes that do not compress), and the bytes it
    decompresses to."""
    body, out = bytearray(), bytearray()
    for e in elements:
        if isinstance(e, bytes):
            n = len(e) - 1
            if n < 60:
                body.append(n << 2)
            else:
                size = (n.bit_length() + 7) // 8
                body.append((59 + size) << 2)
                body += n.to_bytes(size, "little")
            body += e
            out += e
        else:
            off, length = e
            body.append(((length - 1) << 2) | 2)  # two-byte offset
            body += off.to_bytes(2, "little")
            for _ in range(length):
                out.append(out[-off])
    head, n = bytearray(), len(out)
    while n >= 0x80:
        head.append((n & 0x7F) | 0x80)
        n >>= 7
    head.append(n)
    return bytes(head + body), bytes(out)


def _shared_literal_stream() -> tuple[bytes, bytes]:
    """Literals long enough for a group's lanes to share them, each followed by copies that
    read the literal's last words from the ring (every distance it holds), the words just
    past the ring, and words far back that another lane stored."""
    rng = np.random.default_rng(11)
    elements: list = []
    for i in range(48):
        elements.append(rng.integers(0, 256, 515 + 131 * i, dtype=np.uint8).tobytes())
        # the first copy reads the ring's oldest words (a later one is already further on)
        elements.append((96 + i, 8))
        for off in range(4 + i % 3, 140, 7):
            elements.append((off, 8))
        elements += [(300 + 17 * i, 64), (500 + i, 5), rng.integers(0, 256, 3 + i).tobytes()]
    return _stream(elements)


def _samples() -> dict[str, bytes]:
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 1 << 24, 20000).astype(np.int64)
    return {
        "empty": b"",
        "one byte": b"x",
        "int64 ids": ids.tobytes(),
        "int32 ids": ids.astype(np.int32).tobytes(),
        "sorted ids": np.sort(ids).tobytes(),
        "random bytes": rng.integers(0, 256, 70000, dtype=np.uint8).tobytes(),
        "runs": b"a" * 5000 + b"ab" * 3000 + b"abcdefg" * 999,
        "text": b"the quick brown fox jumps over the lazy dog " * 4000,
        "long repeat far apart": rng.integers(0, 256, 3000, dtype=np.uint8).tobytes() * 40,
        "mixed": (rng.integers(0, 4, 200000, dtype=np.uint8) * 60).tobytes(),
        # long literals (copied in bulk) each followed by copies reaching back into them
        "literals then near copies": b"".join(
            piece + piece[-k : -k + 8] + piece[-3:] * 3
            for k, piece in (
                (9 + i % 7, rng.integers(0, 256, 33 + i, dtype=np.uint8).tobytes())
                for i in range(60)
            )
        ),
    }


@pytest.mark.parametrize("lanes", [1, 4, 32])
@pytest.mark.parametrize("name", sorted(_samples()))
@pytest.mark.parametrize("align", [(0, 0), (3, 5), (7, 1), (1, 7)])
def test_decompresses_like_pyarrow(decompress, name, align, lanes):
    data = _samples()[name]
    code, out, guards = decompress(_snappy(data), len(data), *align, lanes=lanes)
    assert code == 0
    assert out.tobytes() == data
    assert guards


@pytest.mark.parametrize("lanes", [1, 2, 32])
@pytest.mark.parametrize("align", [(0, 0), (3, 5), (6, 2)])
def test_shared_literals_then_copies_back_into_them(decompress, align, lanes):
    stream, data = _shared_literal_stream()
    assert _snappy_reference(stream) == data
    code, out, guards = decompress(stream, len(data), *align, lanes=lanes)
    assert (code, out.tobytes(), guards) == (0, data, True)


def _snappy_reference(stream: bytes) -> bytes:
    return pa.decompress(stream, decompressed_size=_declared(stream), codec="snappy", asbytes=True)


def _declared(stream: bytes) -> int:
    n = shift = 0
    for b in stream:
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return n
    raise ValueError("no length")


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=3000),
    st.integers(0, 2),
    st.integers(0, 7),
    st.integers(0, 7),
)
def test_any_bytes_round_trip(decompress, data, repeat, in_at, out_at):
    data = data * (1 + repeat)  # repeats give copies, far and near
    code, out, guards = decompress(_snappy(data), len(data), in_at, out_at)
    assert (code, out.tobytes(), guards) == (0, data, True)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupt_streams_never_write_outside_the_page(decompress, data):
    raw = data.draw(st.sampled_from(sorted(_samples())))
    plain = _samples()[raw][:4000]
    stream = bytearray(_snappy(plain))
    for _ in range(data.draw(st.integers(1, 6))):
        if stream:
            stream[data.draw(st.integers(0, len(stream) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(stream)))
    size = data.draw(st.sampled_from([len(plain), max(0, len(plain) - 3), len(plain) + 5]))
    lanes = data.draw(st.sampled_from([1, 32]))
    code, out, guards = decompress(bytes(stream[:cut]), size, 3, 5, lanes=lanes)
    assert code in (0, 1, 2)
    assert guards
    if code == 0 and cut == len(stream) and size == len(plain) and bytes(stream) == _snappy(plain):
        assert out.tobytes() == plain


def test_wrong_declared_size_and_bad_offsets(decompress):
    data = b"abcdefgh" * 100
    stream = _snappy(data)
    assert decompress(stream, len(data) + 1, 0, 0)[0] == 2  # the varint says another size
    # a copy reaching before the page's first byte: literal "ab", then copy len 4 offset 3
    bad = bytes([6, 1 << 2, ord("a"), ord("b"), 0b01, 3])
    assert decompress(bad, 6, 0, 0)[0] == 1
    # a copy of offset 0
    zero = bytes([6, 1 << 2, ord("a"), ord("b"), 0b01, 0])
    assert decompress(zero, 6, 0, 0)[0] == 1
    # a literal longer than the stream
    assert decompress(bytes([10, 9 << 2, 1, 2]), 10, 0, 0)[0] == 1
    # an element that would write past the declared size
    assert decompress(bytes([2, 3 << 2, 1, 2, 3, 4]), 2, 0, 0)[0] == 1
