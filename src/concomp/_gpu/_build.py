"""Building CuPy modules from the sources in ``cuda/``: one cache for the package, and
compiles started ahead of use on worker threads.

Every module of the package comes from :func:`module`, whether its caller is the
kernel getter (:mod:`concomp._gpu._compile`) or one of the modules below it that take
the CuPy module from their caller (:mod:`~concomp._gpu.checks`, :mod:`~concomp._gpu.rows`,
:mod:`~concomp._gpu.ops`). A module is keyed by (source, name expressions, device), so
the same key always makes the same NVRTC program and CuPy's on-disk cache serves it
in every later process.

On a machine whose kernel cache is empty, NVRTC's code generation is most of a first
call. NVRTC releases the GIL while it compiles, and programs compile independently,
so :func:`prefetch` hands the kernels a call is about to launch to a thread pool:
their compiles run side by side (and beside the caller's own work), and
:func:`module` waits for the one it needs. With a warm cache a prefetched module is a
read from disk.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ._source import NVRTC_OPTIONS, source_text

__all__ = ["BLOCK", "built", "function", "grid", "module", "prefetch", "prefetch_cupy", "wait"]

#: Threads per block of the grid-stride kernels launched below the kernel getter
#: (checks, rows, ops), and at most this many blocks (each thread strides over the rest).
BLOCK = 256
MAX_BLOCKS = 4096


def grid(work: int) -> tuple[int]:
    """Blocks for a grid-stride launch over ``work`` items (at least one)."""
    return (max(1, min(-(-int(work) // BLOCK), MAX_BLOCKS)),)


_lock = threading.Lock()
_modules: dict[tuple[str, tuple[str, ...], int], Future] = {}
_functions: dict[tuple[str, str, int], Any] = {}
_pool: ThreadPoolExecutor | None = None
_built = 0


def _forget_threads() -> None:
    """In a forked child the pool's threads are gone: start afresh (modules under way
    in the parent are built again when asked for)."""
    global _lock, _pool
    _lock = threading.Lock()
    _pool = None
    for key, fut in list(_modules.items()):
        if not fut.done():
            del _modules[key]


os.register_at_fork(after_in_child=_forget_threads)


def built() -> int:
    """How many modules this process has built (compiled or read from CuPy's disk
    cache); the warm-up test reads it."""
    return _built


def wait() -> None:
    """Wait until every module started so far is built (or failed)."""
    with _lock:
        pending = list(_modules.values())
    for fut in pending:
        fut.exception()  # waits; a failure is raised where the module is used


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        workers = max(2, min(8, os.cpu_count() or 2))
        _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="concomp-nvrtc")
    return _pool


def _build(cp: Any, filename: str, names: tuple[str, ...], device_id: int) -> Any:
    global _built
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(
            code=source_text(filename), options=NVRTC_OPTIONS, name_expressions=list(names)
        )
        mod.compile()
    with _lock:
        _built += 1
    return mod


def _claim(key: tuple[str, tuple[str, ...], int]) -> tuple[Future, bool]:
    """The future of ``key``, and whether the caller created it (and must fill it)."""
    with _lock:
        fut = _modules.get(key)
        if fut is not None:
            return fut, False
        fut = _modules[key] = Future()
        return fut, True


def _run(fut: Future, key: tuple[str, tuple[str, ...], int], cp: Any) -> None:
    try:
        fut.set_result(_build(cp, *key))
    except BaseException as exc:
        with _lock:  # a later request tries again (and raises in its own caller)
            _modules.pop(key, None)
        fut.set_exception(exc)


def module(cp: Any, filename: str, names: Iterable[str], device_id: int | None = None) -> Any:
    """The compiled module of ``cuda/<filename>`` holding the name expressions ``names``
    (in that order), on ``device_id`` (default: the current device). Built here unless
    :func:`prefetch` started it; then this waits for it."""
    dev = cp.cuda.Device().id if device_id is None else int(device_id)
    key = (filename, tuple(names), dev)
    fut, mine = _claim(key)
    if mine:
        _run(fut, key, cp)
    return fut.result()


def function(cp: Any, filename: str, name: str) -> Any:
    """The kernel ``name`` of ``cuda/<filename>`` on the current device, from the module
    holding it alone (the handle is kept: later calls are one dictionary read)."""
    dev = cp.cuda.Device().id
    fn = _functions.get((filename, name, dev))
    if fn is None:
        fn = _functions[(filename, name, dev)] = module(cp, filename, (name,), dev).get_function(
            name
        )
    return fn


def prefetch_cupy(cp: Any, key: str, task: Any) -> None:
    """Run ``task()`` once per process and device on a worker thread: a small CuPy
    operation whose kernel CuPy compiles on first use (the caller's own use then finds
    it built). Its errors are dropped: the real use raises them."""
    dev = cp.cuda.Device().id
    with _lock:
        if (key, (), dev) in _modules:
            return
        fut: Future = Future()
        _modules[(key, (), dev)] = fut

    def run() -> None:
        try:
            with cp.cuda.Device(dev):
                task()
                cp.cuda.get_current_stream().synchronize()
        except Exception:  # only a head start: the caller's own use reports errors
            pass
        fut.set_result(None)

    _executor().submit(run)


def prefetch(cp: Any, filename: str, groups: Iterable[Iterable[str]]) -> None:
    """Start building one module per group of name expressions on worker threads, and
    return at once. Groups already built or under way are skipped."""
    dev = cp.cuda.Device().id
    for names in groups:
        key = (filename, tuple(names), dev)
        fut, mine = _claim(key)
        if mine:
            _executor().submit(_run, fut, key, cp)
