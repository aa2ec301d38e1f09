"""High-diameter graphs with ids along their paths: every variant, both engines.

The small shapes are in the zoo (``hd_*``) and so in every engine x variant test. Here
the GPU runs each shape at 2^20 vertices through the public call, fresh graph each
time, in a child process under a time limit that only a stall can reach (no speed is
asserted), and checks the result against the CPU engine.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from concomp.testing import reference_components
from concomp.testing.adversarial import high_diameter_graphs
from hang_guard import run_json_child

#: Far above a linear run of any shape at 2^20 vertices, far below a quadratic one at
#: the sizes users bring.
HANG_GUARD_S = 120


def test_shapes_are_connected_and_have_their_sizes():
    for name, (src, dst, n) in high_diameter_graphs(4096).items():
        count, _ = reference_components(src, dst, n)
        assert count == 1, name
        assert src.shape[0] >= n - 1, name
        assert np.all(np.diff(src) >= 0), f"{name}: edges in id order"


@pytest.mark.gpu
def test_gpu_public_call_on_every_shape_at_2_20_does_not_stall():
    code = textwrap.dedent("""
        import json
        import numpy as np
        import concomp
        from concomp.testing.adversarial import high_diameter_graphs
        out = {}
        for name, (src, dst, n) in high_diameter_graphs(1 << 20).items():
            import cupy as cp
            s, d = cp.asarray(src), cp.asarray(dst)
            count, labels = concomp.connected_components((s, d), num_nodes=n)
            ref = concomp.connected_components((src, dst), num_nodes=n, device="cpu")[1]
            out[name] = [int(count), bool((cp.asnumpy(labels) == ref).all())]
        print(json.dumps(out))
    """)
    got = run_json_child(code, HANG_GUARD_S)
    assert set(got) == set(high_diameter_graphs(64))
    assert all(v == [1, True] for v in got.values()), got
