"""GPU engine: CuPy drivers in Python, CUDA C++ kernels in ``cuda/`` compiled at first use.

Nothing here is imported by ``import concomp``; the dispatcher imports it only
after :func:`concomp._gpu._compat.gpu_status` says a GPU is usable.
"""
