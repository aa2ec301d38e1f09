"""CPU engine: numba and NumPy/SciPy drivers with the same module names as ``_gpu``.

It implements the engine contract of :mod:`concomp._engine`; what it lacks is
named, with the reason, in :data:`UNSUPPORTED`.
"""

#: Contract names (``"module.name"``) this engine does not implement, with the reason.
UNSUPPORTED = {
    "streaming.components_out_of_core": (
        "the CPU engine holds a host graph as it is; nothing needs streaming through a device"
    ),
    "streaming.parquet_chunks": "the CPU engine reads Parquet files with pyarrow, on all cores",
}
