"""Shared pytest configuration: the ``gpu`` marker, real-data fixture, hypothesis profiles.

- Tests marked ``gpu`` are skipped, with the reason, where CuPy or a CUDA
  device is missing (``concomp._gpu._compat.gpu_status``).
- ``device`` runs a test on each engine: ``"cpu"``, and ``"gpu"`` marked ``gpu``.
- ``gpu_available`` says whether a GPU is usable, for the tests of what happens
  without one.
- ``real_data_dir`` is the folder of real graphs (``../shared/data/real`` or
  ``$CONCOMP_REAL_DATA``); tests that use it are skipped where it is absent.
- ``CONCOMP_TEST_GPUS=0,1`` with pytest-xdist (``-n``) spreads the workers over those
  GPUs: each worker sees one of them (``CUDA_VISIBLE_DEVICES``, set before CuPy loads).
- Hypothesis profiles: ``default`` (60 examples, no deadline), ``ci`` (30
  examples, derandomised so CI runs are reproducible) and ``thorough`` (1000
  examples). Pick one with ``HYPOTHESIS_PROFILE=ci``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _pin_xdist_worker_to_a_gpu() -> None:
    gpus = [g for g in os.environ.get("CONCOMP_TEST_GPUS", "").split(",") if g.strip()]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ...
    if gpus and worker.startswith("gw"):
        os.environ["CUDA_VISIBLE_DEVICES"] = gpus[int(worker[2:]) % len(gpus)].strip()


_pin_xdist_worker_to_a_gpu()

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a test extra; property tests skip without it
    settings = None

if settings is not None:
    _common = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
    settings.register_profile("default", max_examples=60, **_common)
    settings.register_profile("ci", max_examples=30, derandomize=True, print_blob=True, **_common)
    settings.register_profile("thorough", max_examples=1000, **_common)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not any(item.get_closest_marker("gpu") for item in items):
        return
    from concomp._gpu._compat import gpu_status

    usable, reason = gpu_status()
    if usable:
        return
    skip = pytest.mark.skip(reason=f"no usable GPU: {reason}")
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def gpu_available() -> bool:
    """Whether CuPy imports and a CUDA device is usable here."""
    from concomp._gpu._compat import gpu_status

    return gpu_status()[0]


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request: pytest.FixtureRequest) -> str:
    """The engine a test runs on: once on the CPU, once on the GPU (marked ``gpu``)."""
    return request.param


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """Folder of the real graphs; skips the test where it is absent."""
    from concomp.testing import real_data_dir as folder

    path = folder()
    if not path.is_dir():
        pytest.skip(f"real graph data not found at {path} (set CONCOMP_REAL_DATA to its folder)")
    return path
