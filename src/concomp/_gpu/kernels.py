"""Variant -> C++ policy names, kernel name expressions, and launch helpers.

The C++ policy of a union rule comes from its row in the rule registry
(:func:`concomp._rules.union_rule`), as do its auxiliary state (``aux``) and
JTB's packed words (``packed``); this module only names the kernels of
``cuda/cc.cu`` for one rule.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable

import numpy as np

from .._rules import union_rule, union_rules_for
from ..variants import Finish, Variant
from ._compat import device_info
from ._compile import get_kernel, prefetch

#: Threads per block of every grid-stride kernel.
BLOCK = 256


def ctype(dtype: np.dtype) -> str:
    return "int" if np.dtype(dtype) == np.int32 else "long long"


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def cc_names(unite: str, jtb: bool, itype: str, record: bool, aux: bool) -> dict[str, str]:
    """Name expressions of every cc.cu kernel one union rule needs.

    ``jtb``: the rule keeps JTB's packed words; ``aux``: it keeps the auxiliary
    int array; ``record``: the run records hook edges (spanning forests).
    """
    r, j, a = _b(record), _b(jtb), _b(aux)
    return {
        "init": f"init_state<{itype}, {a}, {j}, {r}>",
        "kout": f"kout_first<{itype}, {unite}, {r}>",
        "koutr": f"kout_random<{itype}, {unite}, {r}>",
        "kout_lower": f"kout_lower<{itype}, {unite}, {r}, false>",
        "kout_lower_one_side": f"kout_lower<{itype}, {unite}, {r}, true>",
        "hb_hook": f"hb_hook<{itype}, {j}, {r}>",
        "hb_roots": f"hb_roots<{itype}, {unite}, {j}, {r}>",
        "hb_fused": f"hb_fused<{itype}, {unite}>",
        "frequent": f"frequent_label<{itype}, {unite}>",
        "finish_csr": f"finish_csr<{itype}, {unite}, {r}, false>",
        "finish_csr_one_side": f"finish_csr<{itype}, {unite}, {r}, true>",
        "finish_csr_warp": f"finish_csr_warp<{itype}, {unite}, {j}, {r}>",
        "finish_heavy": f"finish_heavy<{itype}, {unite}, {r}>",
        "finish_coo": f"finish_coo<{itype}, {unite}, {j}, {r}>",
        "compress": f"compress_all<{itype}, {j}>",
        "root_min": f"root_min<{itype}>",
        "apply_root_min": f"apply_root_min<{itype}>",
        "bfs_td": f"bfs_top_down<{itype}, {j}, {r}>",
        "bfs_bu": f"bfs_bottom_up<{itype}, {j}, {r}>",
        "q2bits": f"queue_to_bitmap<{itype}>",
        "bfs_min": f"bfs_star_min<{itype}, {j}>",
        "bfs_reroot": f"bfs_reroot<{itype}, {j}>",
    }


#: Longest piece of a heavy row one block takes (``HEAVY_PIECE`` in cuda/uf.cuh, which
#: a test keeps equal).
HEAVY_PIECE = 4096


def heavy_queue_slots(n: int, entries: int, heavy_degree: int) -> int:
    """Slots a heavy-row queue may fill (uf.cuh's ``queue_heavy``): one per row longer
    than ``heavy_degree`` (at most ``n``, and at most ``entries / (heavy_degree + 1)``),
    and one more per :data:`HEAVY_PIECE` entries, where long rows split.

    Examples
    --------
    >>> heavy_queue_slots(10, 100, 64)  # one row can be heavy, in one piece
    2
    >>> heavy_queue_slots(2**20, 2**21, 64)  # a star: one row of 2**20 entries
    32776
    """
    return min(max(n, 1), entries // (heavy_degree + 1)) + entries // HEAVY_PIECE + 1


def grid_for(work: int, block: int = BLOCK, per_sm: int = 32) -> tuple[int]:
    """Blocks for a grid-stride launch over ``work`` items: enough to fill the
    device (``per_sm`` blocks per SM, read off the device), never more than the work needs."""
    return (max(1, min((int(work) + block - 1) // block, device_info()["sm_count"] * per_sm)),)


class KernelSet:
    """Named kernels of one CUDA source, each compiled on first use.

    ``kernels.frequent`` returns the compiled function for the name expression
    ``names["frequent"]``; only the kernels a run launches are compiled (one NVRTC
    module each, shared with every other set that names the same instantiation),
    and handles are fetched once and reused.
    """

    def __init__(self, filename: str, names: dict[str, str]) -> None:
        self.filename = filename
        self.names = names
        self._fns: dict = {}

    def prefetch(self, keys: Iterable[str]) -> None:
        """Start compiling the kernels ``keys`` not loaded yet, side by side on worker
        threads (:func:`concomp._gpu._compile.prefetch`); returns at once."""
        fns, names = self.__dict__["_fns"], self.__dict__["names"]
        todo = [names[key] for key in keys if key not in fns]
        if todo:
            prefetch(self.__dict__["filename"], todo)

    def compile_all(self) -> None:
        """Compile every kernel of the set now (ahead-of-time warm-up)."""
        for key in self.names:
            getattr(self, key)

    def __getattr__(self, key: str):
        fns = self.__dict__["_fns"]
        fn = fns.get(key)
        if fn is None:
            names = self.__dict__["names"]
            if key not in names:
                raise AttributeError(key)
            fn = fns[key] = get_kernel(self.__dict__["filename"], names[key])
        return fn


class CCKernels(KernelSet):
    """The cc.cu kernels for one (union rule, index type, record) triple."""

    def __init__(self, variant: Variant, dtype: np.dtype, record: bool = False) -> None:
        row = union_rule(variant.finish)
        self.jtb = row.packed
        self.needs_aux = row.aux
        super().__init__(
            "cc.cu",
            cc_names(
                row.cpp_policy(str(variant.compress)), row.packed, ctype(dtype), record, row.aux
            ),
        )


def all_cc_instantiations() -> list[str]:
    """Every cc.cu name expression any variant can request (for the compile test)."""
    names: set[str] = set()
    for row, itype, record in itertools.product(
        union_rules_for("gpu"), ("int", "long long"), (False, True)
    ):
        for compress in row.compress:
            names.update(
                cc_names(row.cpp_policy(compress), row.packed, itype, record, row.aux).values()
            )
    return sorted(names)


@functools.cache
def cc_kernels(finish: Finish, compress: str, dtype: str, record: bool) -> CCKernels:
    """Memoized :class:`CCKernels` (their function handles are reused across runs)."""
    return CCKernels(Variant(finish=finish, compress=compress), np.dtype(dtype), record)
