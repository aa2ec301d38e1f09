"""The one timer of concomp's benchmarks: warm-up, then the median of at least five runs.

On the CPU each run is timed with :func:`time.perf_counter`. On the GPU each run is
timed with a pair of CUDA events recorded around it on the current stream, so the
time is the device's (kernels and copies queued by the call), not the host's; with
``wall=True`` a GPU run is timed on the host instead, from the call to a device
synchronisation (what a user waiting for the result sees). Every time is kept, with
its median, minimum and maximum, in a :class:`Timing`.

``setup`` builds fresh state for each run outside the timed region (a new
:class:`~concomp.IncrementalConnectivity`, a copy of an array the call consumes);
the timed function then receives it as its one argument.

Examples
--------
>>> from concomp.bench.timing import measure
>>> t = measure(lambda: sum(range(1000)), reps=5)
>>> len(t.times_ms), t.min_ms <= t.median_ms <= t.max_ms
(5, True)
>>> measure(lambda: None, reps=3)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: argument `reps`: 3 is fewer than 5; a median needs at least 5 timed runs...
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["MIN_REPS", "Timing", "TooSlowError", "measure", "measure_rounds"]

#: The fewest timed runs a median is taken over.
MIN_REPS = 5


class TooSlowError(RuntimeError):
    """The warm-up run took longer than the caller's limit; nothing was timed."""

    def __init__(self, seconds: float, limit_s: float) -> None:
        super().__init__(f"the warm-up run took {seconds:.1f} s, over the limit of {limit_s} s")
        self.seconds, self.limit_s = seconds, limit_s


@dataclass(frozen=True)
class Timing:
    """Times of the runs of one measurement, in milliseconds.

    Attributes
    ----------
    times_ms : tuple of float
        Every timed run, in order (warm-up runs excluded).
    clock : str
        ``"perf_counter"`` (host wall clock) or ``"cuda_events"``.
    warmup : int
        Untimed runs made before the timed ones.
    """

    times_ms: tuple[float, ...]
    clock: str
    warmup: int

    @property
    def median_ms(self) -> float:
        """Median of :attr:`times_ms`."""
        return float(statistics.median(self.times_ms))

    @property
    def min_ms(self) -> float:
        """Fastest run."""
        return float(min(self.times_ms))

    @property
    def max_ms(self) -> float:
        """Slowest run."""
        return float(max(self.times_ms))

    def to_dict(self) -> dict[str, Any]:
        """Plain fields for a result file (every time kept)."""
        return {
            "median_ms": self.median_ms,
            "min_ms": self.min_ms,
            "max_ms": self.max_ms,
            "times_ms": list(self.times_ms),
            "clock": self.clock,
            "warmup": self.warmup,
        }


def _check_counts(reps: Any, warmup: Any) -> tuple[int, int]:
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < MIN_REPS:
        raise ValueError(
            f"argument `reps`: {reps!r} is fewer than {MIN_REPS}; a median needs at least "
            f"{MIN_REPS} timed runs. Fix: pass reps >= {MIN_REPS}."
        )
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(
            f"argument `warmup`: {warmup!r} is not a count >= 0. Fix: pass e.g. warmup=1."
        )
    return reps, warmup


def measure(
    fn: Callable[..., Any],
    *,
    device: str = "cpu",
    reps: int = MIN_REPS,
    warmup: int = 1,
    setup: Callable[[], Any] | None = None,
    wall: bool = False,
    limit_s: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Timing:
    """Time ``fn``: ``warmup`` untimed runs, then ``reps`` timed ones.

    Parameters
    ----------
    fn : callable
        The work: ``fn()``, or ``fn(state)`` with ``state = setup()`` when ``setup``
        is given.
    device : {"cpu", "gpu"}
        ``"gpu"`` times each run with CUDA events (or, with ``wall=True``, on the host
        up to a device synchronisation).
    reps : int
        Timed runs, at least :data:`MIN_REPS`.
    warmup : int
        Untimed runs first (kernel compilation, caches, memory pools).
    setup : callable, optional
        Called before every run, untimed; its result is passed to ``fn``.
    wall : bool
        GPU only: host time from the call to a device synchronisation.
    limit_s : float, optional
        Give up (raise :class:`TooSlowError`) when the first warm-up run takes longer:
        a pathological pairing (label propagation on a grid) is reported as such
        instead of holding the run for minutes.
    clock : callable
        Seconds counter for host timing (tests inject a fake one).

    Returns
    -------
    Timing

    Raises
    ------
    ValueError
        ``reps`` below :data:`MIN_REPS`, a negative ``warmup`` or an unknown ``device``.
    TooSlowError
        The first warm-up run exceeded ``limit_s``.
    """
    reps, warmup = _check_counts(reps, warmup)
    if device not in ("cpu", "gpu"):
        raise ValueError(f"argument `device`: {device!r} is not valid; use 'cpu' or 'gpu'.")
    for i in range(warmup):
        start = clock()
        fn() if setup is None else fn(setup())
        _sync(device)
        took = clock() - start
        if i == 0 and limit_s is not None and took > limit_s:
            raise TooSlowError(took, limit_s)
    run = _event_timer if device == "gpu" and not wall else _host_timer
    times: list[float] = []
    for _ in range(reps):
        if setup is None:
            times.append(run(fn, device, clock))
        else:
            state = setup()
            _sync(device)  # the setup's queued device work stays out of the timed region
            times.append(run(functools.partial(fn, state), device, clock))
    return Timing(tuple(times), "cuda_events" if run is _event_timer else "perf_counter", warmup)


def measure_rounds(
    fns: dict[str, Callable[[], Any]],
    *,
    reps: int = MIN_REPS,
    warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, Timing]:
    """Time several host calls side by side: ``warmup`` untimed runs of each, then
    ``reps`` rounds of one timed run of each, every round starting one call further on.

    What a call leaves behind (memory the OS still has to zero or compact after freeing
    it, caches holding its data) then reaches every call alike, instead of the one timed
    right after it, as happens when each is timed in a series of its own.

    Examples
    --------
    >>> t = measure_rounds({"a": lambda: sum(range(100)), "b": lambda: None}, reps=5)
    >>> sorted(t), len(t["a"].times_ms)
    (['a', 'b'], 5)
    """
    reps, warmup = _check_counts(reps, warmup)
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {key: [] for key in fns}
    keys = list(fns)
    for r in range(reps):
        for key in keys[r % len(keys) :] + keys[: r % len(keys)]:
            times[key].append(_host_timer(fns[key], "cpu", clock))
    return {key: Timing(tuple(times[key]), "perf_counter", warmup) for key in keys}


def _sync(device: str) -> None:
    if device == "gpu":
        from .._gpu._compat import cupy_or_raise

        cupy_or_raise().cuda.Device().synchronize()


def _host_timer(fn: Callable[[], Any], device: str, clock: Callable[[], float]) -> float:
    start = clock()
    fn()
    _sync(device)
    return (clock() - start) * 1e3


def _event_timer(fn: Callable[[], Any], device: str, clock: Callable[[], float]) -> float:
    from .._gpu._compat import cupy_or_raise

    cupy = cupy_or_raise()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return float(cupy.cuda.get_elapsed_time(start, end))
