"""File plumbing behind :mod:`concomp.io`: bytes in and out, compression, detection.

Compression is recognised by magic bytes when reading and by suffix when
writing; a format by extension, then by content (:func:`sniff_format`). Nothing
here needs numba, so ``import concomp.io`` stays light.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import GraphFormatError

__all__ = ["pyarrow_or_raise", "sniff_format"]

_EXTENSIONS = {".txt": "snap", ".edges": "snap", ".edgelist": "snap", ".el": "snap",
               ".tsv": "snap", ".csv": "csv", ".mtx": "mtx", ".mm": "mtx", ".gr": "gr",
               ".dimacs": "dimacs", ".graph": "metis", ".metis": "metis", ".npz": "npz",
               ".parquet": "parquet", ".pq": "parquet"}
_COMPRESSIONS = {".gz": "gzip", ".xz": "xz", ".bz2": "bz2"}
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), *((b"BZh" + bytes([c]), "bz2")
                                                            for c in b"123456789"))


# ----------------------------------------------------------------------------- bytes
def _read_bytes(name: str, progress: bool) -> bytes:
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # progress bars are a nicety, never a requirement
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=os.path.getsize(name), unit="B", unit_scale=True,
                       desc=os.path.basename(name))
    with open(name, "rb") as f:
        if bar is None:
            return f.read()
        parts = []
        while block := f.read(1 << 24):
            parts.append(block)
            bar.update(len(block))
        bar.close()
        return b"".join(parts)


def _decompress(raw: bytes, name: str) -> bytes:
    # magic bytes decide: an extension can lie (a .gz already inflated by a browser)
    kind = next((k for magic, k in _MAGIC if raw.startswith(magic)), None)
    try:
        if kind == "gzip":
            import gzip

            return gzip.decompress(raw)
        if kind == "xz":
            import lzma

            return lzma.decompress(raw)
        if kind == "bz2":
            import bz2

            return bz2.decompress(raw)
    except (OSError, EOFError, ValueError) as exc:
        raise GraphFormatError(f"{name}: corrupt or truncated {kind} stream ({exc}). Fix: "
                               "download the file again.") from exc
    return raw


def _split_compression(name: str) -> tuple[str, str | None]:
    suffix = Path(name).suffix.lower()
    if suffix in _COMPRESSIONS:
        return name[: -len(suffix)], _COMPRESSIONS[suffix]
    return name, None


def _open_for_writing(name: str, comp: str | None):
    if comp == "gzip":
        import gzip

        return gzip.open(name, "wb", compresslevel=6)  # level 9 costs far more time for little size
    if comp == "xz":
        import lzma

        return lzma.open(name, "wb")
    if comp == "bz2":
        import bz2

        return bz2.open(name, "wb")
    return open(name, "wb")


def _write_chunks(name: str, comp: str | None, chunks: list) -> None:
    with _open_for_writing(name, comp) as f:
        f.writelines(memoryview(chunk) for chunk in chunks)


# ----------------------------------------------------------------------------- detection
def _detect_format(name: str, data: bytes) -> str:
    base, _ = _split_compression(name)
    fmt = _EXTENSIONS.get(Path(base).suffix.lower())
    if fmt == "gr":
        sniffed = sniff_format(data)
        if sniffed not in ("dimacs", "pace"):
            raise GraphFormatError(f"{name}: a .gr file needs a 'p sp n m' (DIMACS) or "
                                   "'p tw n m' (PACE) line before the edges. Fix: add it, or "
                                   "pass format='snap' for a plain edge list.")
        return sniffed
    return fmt if fmt is not None else sniff_format(data)


def sniff_format(data: bytes) -> str:
    """Best guess of a file's format from its first bytes (``"snap"`` by default)."""
    if data.startswith(b"PK\x03\x04"):
        return "npz"
    if data.startswith(b"PAR1"):
        return "parquet"
    head = data[:1 << 16]
    if head.lstrip().startswith(b"%%MatrixMarket"):
        return "mtx"
    lines = head.splitlines()
    if len(data) > len(head) and len(lines) > 1:
        lines.pop()  # cut off mid-line
    for line in lines:
        s = line.strip()
        if not s or s[:1] in b"#%" or s == b"c" or s[:2] in (b"c ", b"c\t"):
            continue
        tokens = s.split()
        if tokens[0] == b"p" and len(tokens) >= 2:
            return "pace" if tokens[1] == b"tw" else "dimacs"
        return "csv" if b"," in s else "snap"
    return "snap"


def pyarrow_or_raise():
    """``(pyarrow, pyarrow.parquet)``, or ImportError naming the ``io`` extra."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ImportError("Parquet files need pyarrow, which is not installed. Fix: pip install "
                          "'concomp[io]' (or pip install pyarrow).") from exc
    return pa, pq
