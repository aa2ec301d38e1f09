"""Issue 31 on the CPU: the GPU drivers' up-front size check, the index types they pick,
and the hostile-input table that ``tests/test_gpu_hostile.py`` replays on the device.

Everything here runs without a GPU: the size check takes the device's total memory as
an argument, the size formulas and index types are plain arithmetic, and the hostile
table runs on the CPU engine (where it must raise the same documented errors).
"""

from __future__ import annotations

import numpy as np
import pytest

import concomp
from concomp._gpu._compat import check_device_fits
from concomp._gpu._limits import msf_bytes, static_run_bytes
from concomp._gpu.msf import _index_dtype as msf_index_dtype
from concomp._gpu.unionfind import index_dtype_of
from concomp.errors import ConcompError, DeviceMemoryError, InvalidGraphError
from concomp.options import Options
from concomp.testing.hostile import hostile_cases, past_memory
from concomp.variants import Variant, all_variants

GIB = 2**30


def test_check_device_fits_passes_up_to_the_total_and_names_the_bytes_beyond() -> None:
    assert check_device_fits("x", 80 * GIB, total=80 * GIB) == 80 * GIB
    with pytest.raises(DeviceMemoryError) as err:
        check_device_fits("labels of 2**40 vertices", 2**43, total=80 * GIB, fix="do less")
    msg = str(err.value)
    assert msg.startswith("labels of 2**40 vertices needs at least 8796093022208 bytes")
    assert "total memory of 85899345920 bytes (80 GiB)" in msg
    assert msg.endswith("Fix: do less.")
    assert isinstance(err.value, MemoryError) and isinstance(err.value, ConcompError)


def test_check_device_fits_builds_its_message_only_when_it_refuses() -> None:
    def what() -> str:
        raise AssertionError("the message was built for a request that fits")

    assert check_device_fits(what, 10, total=10) == 10
    with pytest.raises(DeviceMemoryError, match="the late subject needs at least 11 bytes"):
        check_device_fits(lambda: "the late subject", 11, total=10)


def test_sizes_past_int64_are_compared_exactly() -> None:
    # 2**62 labels of 8 bytes: 2**65 bytes, which a 64-bit size would wrap to 0
    with pytest.raises(DeviceMemoryError, match=r"needs at least 36893488147419103232 bytes"):
        check_device_fits("labels", 2**62 * 8, total=80 * GIB)


@pytest.mark.parametrize("variant", all_variants("gpu")[::9], ids=str)
def test_static_run_bytes_counts_at_least_the_labels(variant: Variant) -> None:
    for dt in (np.dtype(np.int32), np.dtype(np.int64)):
        least = static_run_bytes(1000, variant, dt, record=False)
        assert least >= 1000 * dt.itemsize
        assert static_run_bytes(2000, variant, dt, record=False) == 2 * least
        assert static_run_bytes(0, variant, dt, record=False) == least // 1000


def test_static_run_bytes_counts_each_array_of_a_union_find_run() -> None:
    i8 = np.dtype(np.int64)
    base = static_run_bytes(10, Variant.parse("none-async-halve-coo"), i8, False)
    assert base == 80  # the parents
    assert static_run_bytes(10, Variant.parse("none-async-halve-coo"), i8, True) == 160  # hooks
    assert static_run_bytes(10, Variant.parse("none-async-halve-csr"), i8, False) == 160  # queue
    assert static_run_bytes(10, Variant.parse("none-hooks-halve-coo"), i8, False) == 120  # aux
    jtb = next(v for v in all_variants("gpu") if str(v.finish) == "jtb" and v.layout == "coo")
    assert static_run_bytes(10, jtb, i8, False) == 80 + 10 * (8 + 8)  # packed words, minima


def test_msf_bytes_counts_keys_and_vertex_arrays() -> None:
    assert msf_bytes(100, 300, np.dtype(np.int64)) == 8 * 300 + 4 * 100 * 8
    assert msf_bytes(100, 0, np.dtype(np.int64)) == 0
    assert msf_bytes(1, 5, np.dtype(np.int64)) == 0


def test_forced_32_bit_kernels_give_way_on_graphs_that_need_64_bits() -> None:
    small = concomp.Graph.from_edges(np.array([0]), np.array([1]))
    big = concomp.Graph.from_edges(np.array([0]), np.array([1]), num_nodes=2**31 + 5)
    assert index_dtype_of(small, Options(index_dtype="int32")) == np.int32
    assert index_dtype_of(small, Options(index_dtype="int64")) == np.int64
    assert index_dtype_of(small, Options()) == np.int32
    assert index_dtype_of(big, Options(index_dtype="int32")) == np.int64
    assert msf_index_dtype(10, 20, "int32") == np.int32
    assert msf_index_dtype(2**31 + 5, 20, "int32") == np.int64
    assert msf_index_dtype(10, 20, "int64") == np.int64
    assert msf_index_dtype(10, 20, None) == np.int32


def test_past_memory_is_the_fewest_vertices_whose_labels_do_not_fit() -> None:
    for memory in (2**20, 12 * GIB, 16 * GIB, 80 * GIB, 141 * GIB):
        n = past_memory(memory)
        itemsize = 4 if n <= np.iinfo(np.int32).max else 8
        assert n * itemsize > memory
        assert (n - 1) * 8 <= memory or (n - 1) * 4 <= memory


CPU_CASES = {case.name: case for case in hostile_cases(np, "cpu")}


@pytest.mark.parametrize("name", sorted(CPU_CASES))
def test_hostile_input_raises_its_documented_error_on_the_cpu(name: str) -> None:
    case = CPU_CASES[name]
    assert case.check() in {e.__name__ for e in case.errors}


def test_ids_near_int64_max_are_renumbered_or_refused_never_overflow() -> None:
    big = 2**63 - 1
    res = concomp.connected_components((np.array([0]), np.array([big])), device="cpu")
    assert res.num_components == 1 and res.node_ids.tolist() == [0, big]
    with pytest.raises(InvalidGraphError, match=rf"`dst`: vertex id {big} at position 0"):
        concomp.connected_components((np.array([0]), np.array([big])), device="cpu", renumber=False)


def test_incremental_growth_holds_exactly_the_ids_where_doubling_would_not_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ic = concomp.IncrementalConnectivity(device="cpu")
    ic.insert([0], [1])
    eng = ic._engine
    limit = eng.state_bytes(2001, eng.dtype)  # room for ids 0 .. 2000, not for 2048 slots
    monkeypatch.setattr(eng, "memory_limit", lambda: limit)
    ic.insert([1], [2000])
    assert ic.capacity == 2001 and ic.num_nodes == 2001
    assert ic.num_components == 1999
    with pytest.raises(InvalidGraphError, match=r"vertex id 2001 needs state for 2002 vertices"):
        ic.insert([0], [2001])
    assert ic.capacity == 2001 and ic.num_components == 1999  # the refused batch changed nothing


def _fake_cupy(monkeypatch) -> type:
    """A stand-in ``cupy`` with the three names the memory guard reads."""
    import sys
    import types

    class OutOfMemoryError(MemoryError):
        pass

    pool = types.SimpleNamespace(free_all_blocks=lambda: None)
    fake = types.SimpleNamespace(
        cuda=types.SimpleNamespace(
            memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
            runtime=types.SimpleNamespace(memGetInfo=lambda: (3 * GIB, 80 * GIB)),
        ),
        get_default_memory_pool=lambda: pool,
    )
    monkeypatch.setitem(sys.modules, "cupy", fake)
    return OutOfMemoryError


def test_memory_guard_turns_cupy_and_thrust_failures_into_device_memory_errors(monkeypatch):
    """CuPy's allocator and Thrust's sorts (a MemoryError naming std::bad_alloc) both
    fail as DeviceMemoryError with the sizes; any other MemoryError passes unchanged."""
    from concomp._gpu._compat import out_of_memory_guard

    oom = _fake_cupy(monkeypatch)
    for exc in (oom("cupy pool"), MemoryError("std::bad_alloc: cudaErrorMemoryAllocation")):
        with pytest.raises(DeviceMemoryError, match=r"needs about 2\.00 GiB.*3\.00 GiB of 80"):
            with out_of_memory_guard("the symmetric CSR of G", 2 * GIB):
                raise exc
    with pytest.raises(MemoryError, match="host arrays") as info:
        with out_of_memory_guard("x"):
            raise MemoryError("host arrays")
    assert not isinstance(info.value, DeviceMemoryError)
