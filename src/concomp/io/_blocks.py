"""Blocks of whole lines from a file being read, one block read ahead in a thread.

The text scanners parse a file a block at a time (:func:`concomp.io._parse.scan_body`,
:func:`~concomp.io._parse.scan_metis`). Reading a block (decompressing it, for
``.gz``, ``.xz`` and ``.bz2``) and parsing the one before are independent, and
both release the GIL (zlib, ISA-L, lzma and bz2 while they inflate; the numba
scanners throughout), so :func:`line_blocks` reads block ``i + 1`` on a
background thread while the caller parses block ``i``. A read error surfaces in
the caller, at the block it concerns.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

__all__ = ["line_blocks"]


class _Reader(Protocol):
    def read(self, size: int = -1) -> bytes: ...


def _next_block(src: _Reader, carry: bytes, size: int) -> tuple[bytes | memoryview, bytes, bool]:
    """``(block, carry, done)``: whole lines from ``carry`` and the bytes read after it.

    A block ends after its last newline and the rest is carried into the next one;
    a line longer than ``size`` makes it read on. At the end of the file the block
    is whatever was carried (a last line without a newline) and ``done`` is true.
    """
    while True:
        more = src.read(size)
        if not more:
            return carry, b"", True
        data = carry + more  # no copy while nothing is carried: bytes + b"" is bytes
        cut = data.rfind(b"\n") + 1
        if cut:
            return memoryview(data)[:cut], data[cut:], False
        carry = data


def line_blocks(src: _Reader, carry: bytes, size: int) -> Iterator[tuple[bytes | memoryview, bool]]:
    """Yield ``(block, done)``: ``carry`` and then the rest of ``src`` in blocks of whole
    lines of about ``size`` bytes, reading the next block while the caller works on
    this one. ``done`` is true for the last block (possibly empty).

    Examples
    --------
    >>> import io
    >>> [(bytes(b), done) for b, done in line_blocks(io.BytesIO(b"2 3\\n4 5"), b"0 1\\n", 4)]
    [(b'0 1\\n2 3\\n', False), (b'4 5', True)]
    """
    # one worker: reads stay in file order; leaving the with-block (the caller raised
    # or stopped early) waits for the read in flight, so `src` is never closed under it
    with ThreadPoolExecutor(1, thread_name_prefix="concomp-read") as reader:
        ahead = reader.submit(_next_block, src, carry, size)
        done = False
        while not done:
            block, carry, done = ahead.result()
            if not done:
                ahead = reader.submit(_next_block, src, carry, size)
            yield block, done
