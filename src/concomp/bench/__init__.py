"""The benchmark harness: timing, the corpus runners, peers and result files.

``concomp bench`` and the commands under ``benchmarks/`` are this harness.
"""
