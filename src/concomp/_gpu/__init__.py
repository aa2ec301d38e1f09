"""GPU engine: CuPy drivers in Python, CUDA C++ kernels in ``cuda/`` compiled at first use.

Nothing here is imported by ``import concomp``; the dispatcher imports the
engine's modules only after :func:`concomp._gpu._compat.gpu_status` says a GPU
is usable. The modules mirror the engine contract (:mod:`concomp._engine`);
:data:`UNSUPPORTED` names what this engine lacks, and why.
"""

#: Contract names this engine does not implement -> the reason the dispatcher reports.
UNSUPPORTED = {
    "scc.strong_component_labels": "SciPy's numbering of strong components is the completion "
    "order of a sequential depth-first search; concomp.csgraph computes it on the CPU engine",
    "msf.msf_ids_by_position": "SciPy's position tie rule serves concomp.csgraph, which runs "
    "its minimum spanning trees on the CPU engine",
}
