"""File plumbing behind :mod:`concomp.io`: bytes in and out, compression, detection.

Compression is recognised by magic bytes when reading and by suffix when
writing; a format by extension, then by content (:func:`sniff_format`). Nothing
here needs numba, so ``import concomp.io`` stays light.

gzip goes through ``isal`` (Intel's ISA-L, several times zlib's speed both ways)
where it is installed (the ``io`` extra), else through the standard library.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import GraphFormatError

__all__ = ["Input", "pyarrow_or_raise", "sniff_format"]

_EXTENSIONS = {
    ".txt": "snap",
    ".edges": "snap",
    ".edgelist": "snap",
    ".el": "snap",
    ".tsv": "snap",
    ".csv": "csv",
    ".mtx": "mtx",
    ".mm": "mtx",
    ".gr": "gr",
    ".dimacs": "dimacs",
    ".graph": "metis",
    ".metis": "metis",
    ".npz": "npz",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_COMPRESSIONS = {".gz": "gzip", ".xz": "xz", ".bz2": "bz2"}
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"),
    *((b"BZh" + bytes([c]), "bz2") for c in b"123456789"),
)


# ----------------------------------------------------------------------------- bytes
_BOM = b"\xef\xbb\xbf"
#: gzip level of written files: ISA-L's highest (its levels run 0-3; level 3 compresses
#: about as well as zlib's 6 at many times the speed), zlib's 6 without ISA-L.
ISAL_LEVEL = 3
ZLIB_LEVEL = 6


def _isal_gzip():
    """``isal.igzip`` where installed, else None."""
    try:
        from isal import igzip
    except ImportError:
        return None
    return igzip


def _gzip_errors() -> tuple[type[BaseException], ...]:
    """Exception types a gzip stream raises on damaged data (ISA-L's own included)."""
    import zlib

    try:
        from isal.isal_zlib import error as isal_error
    except ImportError:
        return (zlib.error,)
    return (zlib.error, isal_error)


class Input:
    """A graph file opened for reading in blocks, decompressed on the fly.

    Compression is recognised by magic bytes (an extension can lie: a ``.gz``
    already inflated by a browser). A leading UTF-8 byte order mark is dropped.
    Every decompression failure (``zlib.error``, ``lzma.LZMAError``, ``EOFError``
    of a truncated stream, ``OSError`` of a bad header) becomes a
    :class:`~concomp.GraphFormatError` naming the file and the byte offsets.
    """

    def __init__(self, name: str, progress: bool = False) -> None:
        self.name = name
        self.raw = open(name, "rb")
        magic = self.raw.read(6)
        self.raw.seek(0)
        self.kind = next((k for m, k in _MAGIC if magic.startswith(m)), None)
        if self.kind == "gzip":
            igzip = _isal_gzip()
            if igzip is not None:
                self.stream = igzip.GzipFile(fileobj=self.raw, mode="rb")
            else:
                import gzip

                self.stream = gzip.GzipFile(fileobj=self.raw, mode="rb")
        elif self.kind == "xz":
            import lzma

            self.stream = lzma.LZMAFile(self.raw)
        elif self.kind == "bz2":
            import bz2

            self.stream = bz2.BZ2File(self.raw)
        else:
            self.stream = self.raw
        self.offset = 0  # bytes delivered so far (after decompression, BOM included)
        self.bar = None
        self._seen = 0
        if progress:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # progress bars are a nicety, never a requirement
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(
                    total=os.path.getsize(name),
                    unit="B",
                    unit_scale=True,
                    desc=os.path.basename(name),
                )

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` decompressed bytes (all that is left for ``-1``); ``b""`` at the end."""
        import lzma

        try:
            data = self.stream.read(size)
        except (OSError, EOFError, ValueError, lzma.LZMAError, *_gzip_errors()) as exc:
            what = f"{self.kind} stream" if self.kind else "file"
            raise GraphFormatError(
                f"{self.name}: corrupt or truncated {what} after {self.offset} decompressed "
                f"bytes (compressed byte {self.raw.tell()} of {os.path.getsize(self.name)}): "
                f"{type(exc).__name__}: {exc}. Fix: download or copy the file again (`gzip -t`, "
                "`xz -t` or `bzip2 -t` show whether it is intact)."
            ) from exc
        if self.offset == 0 and data.startswith(_BOM):
            data = data[len(_BOM) :]
            self.offset = len(_BOM)
        self.offset += len(data)
        if self.bar is not None:
            pos = self.raw.tell()
            self.bar.update(pos - self._seen)
            self._seen = pos
        return data

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.stream is not self.raw:
            self.stream.close()
        self.raw.close()

    def __enter__(self) -> Input:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _split_compression(name: str) -> tuple[str, str | None]:
    suffix = Path(name).suffix.lower()
    if suffix in _COMPRESSIONS:
        return name[: -len(suffix)], _COMPRESSIONS[suffix]
    return name, None


def _open_for_writing(name: str, comp: str | None):
    if comp == "gzip":
        igzip = _isal_gzip()
        if igzip is not None:
            return igzip.open(name, "wb", compresslevel=ISAL_LEVEL)
        import gzip

        # level 9 costs far more time than 6 for little size
        return gzip.open(name, "wb", compresslevel=ZLIB_LEVEL)
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
            raise GraphFormatError(
                f"{name}: a .gr file needs a 'p sp n m' (DIMACS) or "
                "'p tw n m' (PACE) line before the edges. Fix: add it, or "
                "pass format='snap' for a plain edge list."
            )
        return sniffed
    return fmt if fmt is not None else sniff_format(data)


def sniff_format(data: bytes) -> str:
    """Best guess of a file's format from its first bytes (``"snap"`` by default)."""
    if data.startswith(b"PK\x03\x04"):
        return "npz"
    if data.startswith(b"PAR1"):
        return "parquet"
    head = data[: 1 << 16]
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
        raise ImportError(
            "Parquet files need pyarrow, which is not installed. Fix: pip install "
            "'concomp[io]' (or pip install pyarrow)."
        ) from exc
    return pa, pq
