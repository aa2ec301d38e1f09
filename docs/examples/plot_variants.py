"""
Choosing a variant
==================

Every point of the design space is a :class:`concomp.Variant` named by its
canonical string; all of them return the same components.
"""

import concomp
from concomp.variants import Variant

g = concomp.generators.rmat(10, 8, seed=3)
cpu = concomp.all_variants(device="cpu")
print(len(cpu), "CPU variants, e.g.", [str(v) for v in cpu[:4]])

v = Variant.parse("kout-rem_cas-splice-csr")
print(v, v.sampling, v.finish)

counts = {str(v): concomp.number_connected_components(g, algorithm=v, device="cpu") for v in cpu}
print(set(counts.values()))

# %%
# An illegal combination lists the legal choices.

try:
    Variant.parse("none-async-splice-coo")
except concomp.InvalidVariantError as exc:
    print(exc)
