"""Run a test's script in a child process under a time limit only a stall can reach.

The GPU hang-guard tests (high-diameter shapes at 2^20 vertices) run their calls in
a fresh interpreter so that a stalled kernel ends with the child, not the test run;
the script prints one JSON object on its last line, which comes back parsed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parents[1] / "src")


def run_json_child(code: str, timeout: float) -> Any:
    """The JSON value the script ``code`` prints last, run with ``src/`` on the path;
    fails the test with the child's error output if it exits with an error."""
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])
