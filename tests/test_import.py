"""``import concomp`` stays light: no CuPy, no numba.cuda, and it works without CuPy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")

GPU_MODULES = "('cupy', 'cupyx', 'cupy_backends', 'numba.cuda')"


def _run(code: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_does_not_load_gpu_libraries():
    result = _run(f"""
        import json, sys
        import concomp, concomp.csgraph, concomp.testing, concomp.variants
        loaded = [m for m in sys.modules
                  if any(m == p or m.startswith(p + '.') for p in {GPU_MODULES})]
        print(json.dumps({{"loaded": loaded}}))
    """)
    assert result["loaded"] == []


def test_import_loads_no_compiler_or_heavy_library():
    """numba (and its LLVM), SciPy and pyarrow load on first use, not at import."""
    result = _run("""
        import json, sys
        import concomp, concomp.generators, concomp.io, concomp.options, concomp.variants
        heavy = ('numba', 'llvmlite', 'scipy', 'pyarrow', 'pandas', 'polars')
        loaded = sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy})
        print(json.dumps({"loaded": loaded}))
    """)
    assert result["loaded"] == [], f"import concomp loads {result['loaded']}"


def test_plain_import_defers_every_engine_and_optional_library():
    """``import concomp`` alone: the engines (numba kernels in ``concomp._cpu``, the io
    scanners, the generators' kernels), the integrations (``concomp.nx``, ``concomp.dask``,
    ``concomp.bench``) and every optional library load on first use."""
    result = _run("""
        import json, sys
        import concomp
        libraries = ('numba', 'llvmlite', 'scipy', 'pandas', 'polars', 'pyarrow', 'cupy',
                     'cupyx', 'networkx', 'dask', 'distributed', 'isal', 'tqdm', 'matplotlib')
        ours = ('concomp._cpu', 'concomp._gpu', 'concomp.io._parse', 'concomp.generators._host',
                'concomp.nx', 'concomp.dask', 'concomp.bench', 'concomp.csgraph')
        loaded = sorted(m for m in sys.modules
                        if m.split('.')[0] in libraries or m.startswith(ours))
        print(json.dumps({"loaded": loaded}))
    """)
    assert result["loaded"] == [], f"import concomp loads {result['loaded']}"


def test_works_when_cupy_is_absent():
    result = _run("""
        import json, sys
        for name in ('cupy', 'cupyx'):
            sys.modules[name] = None  # makes `import cupy` raise ImportError
        import numpy as np
        import concomp
        from concomp import csgraph
        count, labels = concomp.connected_components((np.array([0, 2]), np.array([1, 3])))
        strong = csgraph.connected_components(np.eye(3), connection='strong')[0]
        try:
            concomp.connected_components((np.array([0]), np.array([1])), device='gpu')
            error = None
        except concomp.DeviceUnavailableError as exc:
            error = str(exc)
        print(json.dumps({"count": count, "labels": labels.tolist(), "strong": strong,
                          "error": error}))
    """)
    assert result["count"] == 2 and result["labels"] == [0, 0, 1, 1]
    assert result["strong"] == 3
    assert result["error"] is not None and "CuPy" in result["error"]
