// Pieces every kernel source shares. NVRTC has no standard headers: builtins only.
#pragma once

typedef unsigned long long u64;

// Grid-stride loop over [0, n) with 64-bit positions: a launch may have fewer
// threads than items (kernels.grid_for caps the grid by the device's SM count).
#define GRID_STRIDE(i, n)                                                                   \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)blockDim.x * gridDim.x)
