"""The GPU module builder's bookkeeping (``concomp._gpu._build``), without a GPU."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def test_a_forked_child_forgets_the_parents_compile_threads():
    """The hook the builder registers for forked children."""
    from concurrent.futures import Future

    from concomp._gpu import _build

    pending: Future = Future()
    done: Future = Future()
    done.set_result("module")
    saved = dict(_build._modules)
    try:
        _build._modules[("x.cu", ("a",), 0)] = pending
        _build._modules[("x.cu", ("b",), 0)] = done
        _build._forget_threads()
        assert ("x.cu", ("a",), 0) not in _build._modules
        assert _build._modules[("x.cu", ("b",), 0)] is done
        assert _build._pool is None
    finally:
        _build._modules.clear()
        _build._modules.update(saved)


def test_the_hook_is_registered_and_import_needs_no_cupy():
    code = (
        "import sys, os\n"
        "import concomp._gpu._build as b\n"
        "b._modules[('x.cu', ('a',), 0)] = __import__('concurrent.futures').futures.Future()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if not b._modules and b._pool is None else 1)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print(os.waitstatus_to_exitcode(status), 'cupy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["0", "False"]
