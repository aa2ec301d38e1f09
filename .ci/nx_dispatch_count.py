"""pytest plugin for CI's NetworkX step: how many tests reached the concomp backend.

Loaded with ``-p nx_dispatch_count`` (``.ci`` on ``PYTHONPATH``). It reads the call
counter of ``concomp.nx`` (every call NetworkX dispatched to the backend) before and
after each test and prints the totals at the end of the run.
"""

from __future__ import annotations

_state = {"tests": 0, "before": 0}


def _total() -> int:
    from concomp.nx import CALLS

    return sum(CALLS.values())


def pytest_runtest_setup(item):
    _state["before"] = _total()


def pytest_runtest_teardown(item, nextitem):
    if _total() > _state["before"]:
        _state["tests"] += 1


def pytest_terminal_summary(terminalreporter):
    from concomp.nx import CALLS

    by_name = ", ".join(f"{k}={v}" for k, v in sorted(CALLS.items()))
    terminalreporter.write_line(
        f"concomp.nx: {_state['tests']} tests called the concomp backend "
        f"({sum(CALLS.values())} calls: {by_name})"
    )
