"""CPU engine: numba and NumPy/SciPy drivers with the same module names as ``_gpu``."""
