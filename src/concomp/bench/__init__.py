"""The benchmark harness: one timer, one corpus, one runner per problem, one result file.

``python -m concomp.bench PROBLEM...`` (and ``concomp bench``, the same harness) times
concomp and its peers on graphs of :mod:`concomp.generators.corpus` and writes
``benchmarks/results/<date>-<gpu|cpu>-<commit>.json``; ``python -m concomp.bench.render
FILE`` turns that file into ``benchmarks/RESULTS.md`` and the README's summary table.

Modules: :mod:`~concomp.bench.timing` (the timer), :mod:`~concomp.bench.stats` (graph
statistics), :mod:`~concomp.bench.runners` (the problems and the result check, with
:mod:`~concomp.bench.static` and :mod:`~concomp.bench.dynamic`),
:mod:`~concomp.bench.cpu_peers` and :mod:`~concomp.bench.gpu_peers` (the peers),
:mod:`~concomp.bench.harness` (a run), :mod:`~concomp.bench.results` (the file),
:mod:`~concomp.bench.cli` (the command), :mod:`~concomp.bench.render` (the pages) and
:mod:`~concomp.bench.host_input` (the table of ``benchmarks/bench_host_input.py``).
"""
