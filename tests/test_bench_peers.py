"""concomp.bench.peers without a GPU: the input writers read back by readers written from
each format's definition, the output parsers on text shaped as each peer prints it, and
runs of small shell scripts that stand in for the peer binaries."""

from __future__ import annotations

import stat
import struct
from pathlib import Path

import numpy as np
import pytest

from concomp.bench import peers
from concomp.bench.peers import PeerError, available, parse_output, write_inputs

# A triangle 0-1-2, an edge 3-4 and the isolated vertex 5, symmetric CSR with weights.
EDGES = [(0, 1, 7), (0, 2, 3), (1, 2, 5), (3, 4, 1)]


def small_graph():
    n = 6
    adj: dict[int, list[tuple[int, int]]] = {v: [] for v in range(n)}
    for u, v, w in EDGES:
        adj[u].append((v, w))
        adj[v].append((u, w))
    indptr, indices, weights = [0], [], []
    for v in range(n):
        for u, w in sorted(adj[v]):
            indices.append(u)
            weights.append(w)
        indptr.append(len(indices))
    return np.array(indptr), np.array(indices), n, np.array(weights)


# ---------------------------------------------------------------- readers from the formats


def read_egr(path: Path, weighted: bool):
    """ECLgraph.h: int nodes, int edges, int nindex[nodes+1], int nlist[edges], [int eweight]."""
    raw = path.read_bytes()
    nodes, edges = struct.unpack_from("<ii", raw, 0)
    expected = 8 + 4 * (nodes + 1) + 4 * edges * (2 if weighted else 1)
    assert len(raw) == expected
    nindex = struct.unpack_from(f"<{nodes + 1}i", raw, 8)
    nlist = struct.unpack_from(f"<{edges}i", raw, 8 + 4 * (nodes + 1))
    eweight = (
        struct.unpack_from(f"<{edges}i", raw, 8 + 4 * (nodes + 1 + edges)) if weighted else None
    )
    return nodes, edges, list(nindex), list(nlist), eweight and list(eweight)


def read_sg(path: Path):
    """GAP reader.h: bool directed, int64 edges, int64 nodes, int64 offsets[n+1], int32 neighs."""
    raw = path.read_bytes()
    (directed,) = struct.unpack_from("<?", raw, 0)
    edges, nodes = struct.unpack_from("<qq", raw, 1)
    assert len(raw) == 1 + 16 + 8 * (nodes + 1) + 4 * edges
    offsets = struct.unpack_from(f"<{nodes + 1}q", raw, 17)
    neighs = struct.unpack_from(f"<{edges}i", raw, 17 + 8 * (nodes + 1))
    return directed, edges, nodes, list(offsets), list(neighs)


def read_pairs(path: Path) -> list[tuple[int, int]]:
    """GConn's cached edge lists: struct v_struct {unsigned int src, dst;} back to back."""
    raw = path.read_bytes()
    assert len(raw) % 8 == 0
    return list(struct.iter_unpack("<II", raw))


# ---------------------------------------------------------------- writers


def test_ecl_files_read_back(tmp_path):
    indptr, indices, n, weights = small_graph()
    files = write_inputs(indptr, indices, n, weights, tmp_path)
    assert files.egr == tmp_path / "graph.egr" and files.num_entries == 8
    assert read_egr(files.egr, weighted=False) == (6, 8, list(indptr), list(indices), None)
    nodes, edges, nindex, nlist, eweight = read_egr(files.egr_weighted, weighted=True)
    assert (nodes, edges, nindex, nlist) == (6, 8, list(indptr), list(indices))
    assert eweight == list(weights)
    # the header and the first index entries, byte for byte
    assert files.egr.read_bytes()[:16] == bytes([6, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0])


def test_gapbs_serialized_graph_reads_back(tmp_path):
    indptr, indices, n, _ = small_graph()
    files = write_inputs(indptr, indices, n, None, tmp_path, formats=["gapbs"])
    assert files.egr is None and files.mtx is None and files.egr_weighted is None
    assert read_sg(files.sg) == (False, 8, 6, list(indptr), list(indices))


def test_gconn_files_read_back(tmp_path):
    indptr, indices, n, _ = small_graph()
    files = write_inputs(indptr, indices, n, None, tmp_path, formats=("gconn",))
    lines = files.mtx.read_text().splitlines()
    assert lines[0] == "%%MatrixMarket matrix coordinate pattern symmetric"
    rows, cols, header_edges = map(int, lines[1].split())
    assert (rows, cols) == (6, 6) and len(lines) == 2
    both = sorted([(u, v) for u, v, _ in EDGES] + [(v, u) for u, v, _ in EDGES])
    sorted_pairs = read_pairs(Path(f"{files.mtx}.sorted"))
    assert sorted_pairs == both
    assert Path(f"{files.mtx}.sorted_e").read_text() == "8"
    batch = read_pairs(Path(f"{files.mtx}.unsorted"))
    assert batch == [(0, 1), (0, 2), (1, 2), (3, 4), (1, 0), (2, 0), (2, 1), (4, 3)]
    assert Path(f"{files.mtx}.unsorted_e").read_text() == "8" and files.gconn_batch_edges == 8
    # gen_graph.cu allocates 2 * header_edges + 1 + V pairs before reading either list
    assert 2 * header_edges + 1 + rows >= max(len(sorted_pairs), len(batch))


def swap_first_two(indices):
    out = indices.copy()
    out[[0, 1]] = out[[1, 0]]
    return out


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda p, i, n, w: (p, i, 0, w), "num_nodes=0 must be in"),
        (
            lambda p, i, n, w: (p[:-1], i, n, w),
            "indptr must hold num_nodes \\+ 1 = 7 .* got 6 entries from 0 to 8",
        ),
        (lambda p, i, n, w: (p, np.where(i == 4, 9, i), n, w), "indices must lie in .* 0..9"),
        (lambda p, i, n, w: (p, swap_first_two(i), n, w), "entry 1 breaks"),
        (lambda p, i, n, w: (p, np.where(np.arange(8) == 1, 1, i), n, w), "entry 1 breaks"),
        (lambda p, i, n, w: (p, np.where(np.arange(8) == 0, 0, i), n, w), "self loop at entry 0"),
        (lambda p, i, n, w: (p, i.astype(float), n, w), "indices must be a 1-D integer"),
        (lambda p, i, n, w: (p, i, n, -w), r"got 8 values in -7..-1"),
        (
            lambda p, i, n, w: (p, i, n, w[:-1]),
            r"weights must hold len\(indices\) = 8 integers.* got 7 values",
        ),
    ],
    ids=[
        "no-nodes",
        "short-indptr",
        "range",
        "unsorted",
        "duplicate",
        "loop",
        "float",
        "negative",
        "short-weights",
    ],
)
def test_bad_csr_is_refused_with_the_argument_named(tmp_path, change, match):
    indptr, indices, n, weights = change(*small_graph())
    with pytest.raises(ValueError, match=match):
        write_inputs(indptr, indices, n, weights, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_unknown_format_is_refused(tmp_path):
    indptr, indices, n, _ = small_graph()
    with pytest.raises(ValueError, match="unknown \\['metis'\\]"):
        write_inputs(indptr, indices, n, None, tmp_path, formats=("ecl", "metis"))


# ---------------------------------------------------------------- parsers


def printf(fmt: str, *args) -> str:
    """C's printf formatting, which Python's % operator follows for these conversions."""
    return fmt % args


def test_ecl_cc_output():
    # HeCBench cc-cuda main.cu (build.sh widens %.4f to %.9f):
    #   printf("Average kernel execution time: %.4f s\n", runtime);
    #   printf("throughput: %.3f Mnodes/s\n", nodes * 0.000001 / runtime);
    #   printf("number of connected components: %zu\n", s1.size());
    #   printf("%s\n", ok ? "PASS" : "FAIL");
    out = (
        "ECL-CC v1.1 (main.cu)\n"
        "input graph: 6 nodes and 8 edges (graph.egr)\n"
        + printf("Average kernel execution time: %.9f s\n", 0.002012345)
        + printf("throughput: %.3f Mnodes/s\n", 2087.1)
        + printf("number of connected components: %d\n", 1798906)
        + printf("%s\n", "PASS")
    )
    assert parse_output("ecl-cc", out) == ((2.012345,), 1798906)
    with pytest.raises(ValueError, match="own check"):
        parse_output("ecl-cc", out.replace("PASS", "FAIL"))
    unpatched = out.replace(printf("%.9f", 0.002012345), printf("%.4f", 0.002012345))
    assert parse_output("ecl-cc", unpatched) == ((2.0,), 1798906)


def test_afforest_output():
    # src/util.h PrintTime: printf("%-21s%3.5lf\n", (s + ":").c_str(), seconds);
    # src/cc.h PrintCompStats: cout << "There are " << count.size() << " components" << endl;
    def line(label, seconds):
        return printf("%-21s%3.5lf\n", label + ":", seconds)

    skip = "Skipping largest intermediate component (ID: 0, approx. 97% of the graph)\n"
    out = (
        skip
        + line("Trial Time", 0.00312)
        + skip
        + line("Trial Time", 0.00168)
        + skip
        + line("Trial Time", 0.00170)
        + line("Average Time", 0.00217)
        + "\n5 biggest clusters\n4194304:0\nThere are 1798906 components\n"
    )
    times, count = parse_output("afforest", out)
    assert times == pytest.approx((3.12, 1.68, 1.70)) and count == 1798906


def test_gconn_output():
    # main.cu: printf("PASS\n") under PRINT, then printf("%f,", tot_ms[REPEAT/2]);
    # union_find.cu copy_gpu_to_cpu: fprintf(stderr,"%d,\n", cnt);
    stdout, stderr = "PASS\n" + printf("%f,", 0.457), printf("%d,\n", 16382)
    assert parse_output("gconn-kout", stdout, stderr) == ((0.457,), 16382)
    assert parse_output("gconn-nosample", stdout, stderr) == ((0.457,), 16382)
    with pytest.raises(ValueError, match="no result"):
        parse_output("gconn-kout", stdout, "")
    with pytest.raises(ValueError, match="no time"):
        parse_output("gconn-kout", "Strategy (e.g., ASYNC_NAIVE) should be specified\n", stderr)
    # what GConn prints where no GPU is usable: it checks no CUDA call
    with pytest.raises(ValueError, match="no GPU work was done"):
        parse_output("gconn-kout", "PASS\n0.000000,", "0,\n")


def test_gconn_incremental_output_gives_ms_back_from_throughput():
    # main.cu, STREAMING_SIMPLE: printf("%f,",(double)d_input.E/tot_ms[REPEAT/2]/1000000);
    edges, ms = 128_311_274, 1.57
    stdout = "PASS\n" + printf("%f,", edges / ms / 1e6)
    times, count = parse_output("gconn-inc", stdout, "1,\n", batch_edges=edges)
    assert times[0] == pytest.approx(ms, rel=1e-6) and count == 1
    with pytest.raises(ValueError, match="batch_edges"):
        parse_output("gconn-inc", stdout, "1,\n")


def test_ecl_mst_output():
    # ECL-MST_10.cu: printf("Dev%c: %12.9f s\n", filter ? '+' : '-', runtime);
    # cpuMST: printf("Host: %12.9f s\n", runtime); build.sh adds, in verify():
    # printf("GPU MST weight: %llu\n", gpuMSTweight); then printf("all good\n\n");
    out = (
        "ECL-MST v1.0\n\ninput: graph.w.egr\n"
        + printf("Dev%c: %12.9f s\n", "+", 0.00215)
        + printf("Host: %12.9f s\n", 0.44)
        + printf("GPU MST weight: %d\n", 549755813888)
        + "all good\n\n"
    )
    times, weight = parse_output("ecl-mst", out)
    assert times == pytest.approx((2.15,)) and weight == 549755813888
    assert parse_output("ecl-mst", out.replace("Dev+", "Dev-"))[0] == times
    with pytest.raises(ValueError, match="own check"):
        parse_output("ecl-mst", out.replace("all good", "ERROR: results differ!"))


def test_ecl_scc_output():
    # ECL-SCC_10.cu: printf("compute time: %.6f s\n\n", runtime);
    #                printf("%d SCCs of size %d\n", cnt, ...); printf("number of SCCs: %d\n", ...);
    out = (
        "ECL-SCC v1.0\n\nnodes: 6\nedges: 8\n"
        + printf("compute time: %.6f s\n\n", 0.000731)
        + "result:\n"
        + printf("%d SCCs of size %d\n", 3, 1)
        + printf("number of SCCs: %d\n", 4)
    )
    assert parse_output("ecl-scc", out) == ((0.731,), 4)


def test_unknown_peer_is_named():
    with pytest.raises(ValueError, match="peer='ecl-bfs' is not a known peer"):
        parse_output("ecl-bfs", "")


# ---------------------------------------------------------------- binaries and runs


def make_executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_available_lists_executables_by_peer(tmp_path):
    make_executable(tmp_path / "gconn-cc", "#!/bin/sh\n")
    make_executable(tmp_path / "ecl-mst", "#!/bin/sh\n")
    (tmp_path / "ecl-cc").write_text("not executable")
    (tmp_path / "afforest").mkdir()
    found = available(tmp_path)
    assert found == {
        "gconn-kout": tmp_path / "gconn-cc",
        "gconn-nosample": tmp_path / "gconn-cc",
        "ecl-mst": tmp_path / "ecl-mst",
    }
    assert available(tmp_path / "missing") == {}
    assert set(peers.PEERS) == {
        "ecl-cc",
        "afforest",
        "gconn-kout",
        "gconn-nosample",
        "gconn-inc",
        "ecl-mst",
        "ecl-scc",
    }


@pytest.fixture
def files(tmp_path):
    indptr, indices, n, weights = small_graph()
    return write_inputs(indptr, indices, n, weights, tmp_path / "inputs")


# A stand-in for ECL-CC: the n-th run prints n ms; it insists on the environment the
# adapter promises (eager module loading, the stack raised to its hard limit).
FAKE_ECL_CC = """#!/bin/sh
[ "$CUDA_MODULE_LOADING" = EAGER ] || { echo "lazy loading" >&2; exit 9; }
[ "$(ulimit -s)" = "$(ulimit -H -s)" ] || { echo "small stack" >&2; exit 8; }
[ "$2" = 1 ] && [ -f "$1" ] || { echo "bad arguments: $*" >&2; exit 7; }
count=$(cat "$0.count" 2>/dev/null || echo 0); count=$((count + 1)); echo $count > "$0.count"
echo "Average kernel execution time: 0.00$count s"
echo "number of connected components: 3"
echo PASS
"""


def test_single_run_peer_is_run_reps_plus_one_times_and_the_warm_up_dropped(tmp_path, files):
    bins = tmp_path / "bin"
    bins.mkdir()
    make_executable(bins / "ecl-cc", FAKE_ECL_CC)
    run = peers.run_cc("ecl-cc", files, reps=5, bin_dir=bins)
    assert run.times_ms == (2.0, 3.0, 4.0, 5.0, 6.0) and run.median_ms == 4.0
    assert (run.peer, run.problem, run.result) == ("ecl-cc", "cc", 3)
    assert run.raw_tail.endswith("PASS\n")
    assert (bins / "ecl-cc.count").read_text().strip() == "6"


def test_afforest_is_run_once_with_its_own_trials(tmp_path, files):
    bins = tmp_path / "bin"
    bins.mkdir()
    # prints the time of trial k as k ms for the -n trials it is asked for
    make_executable(
        bins / "afforest",
        '#!/bin/sh\n[ "$1 $3 $5" = "-f -n -a" ] || exit 5\n'
        'k=1; while [ $k -le "$4" ]; do printf "%-21s%3.5f\\n" "Trial Time:" "0.00$k"; '
        "k=$((k + 1)); done\necho 'There are 3 components'\n",
    )
    run = peers.run_cc("afforest", files, reps=3, bin_dir=bins)
    assert run.times_ms == pytest.approx((2.0, 3.0, 4.0)) and run.result == 3


def test_failing_peer_raises_with_peer_command_and_output(tmp_path, files):
    bins = tmp_path / "bin"
    bins.mkdir()
    make_executable(bins / "ecl-mst", "#!/bin/sh\necho 'ERROR: could not open file' >&2\nexit 3\n")
    with pytest.raises(PeerError) as err:
        peers.run_msf("ecl-mst", files, reps=2, bin_dir=bins)
    message = str(err.value)
    assert "peer 'ecl-mst' exited with status 3" in message
    assert f"command: {bins / 'ecl-mst'} {files.egr_weighted}" in message
    assert "ERROR: could not open file" in message


def test_unparsable_and_timed_out_runs_raise(tmp_path, files):
    bins = tmp_path / "bin"
    bins.mkdir()
    make_executable(bins / "ecl-scc", "#!/bin/sh\necho 'running algorithm'\n")
    with pytest.raises(PeerError, match=r"(?s)printed no usable result: no time.*running algo"):
        peers.run_scc("ecl-scc", files, bin_dir=bins)
    make_executable(bins / "ecl-scc", "#!/bin/sh\necho started\nexec sleep 30\n")
    with pytest.raises(PeerError, match=r"(?s)timed out after 0.5 s.*command: .*ecl-scc"):
        peers.run_scc("ecl-scc", files, reps=1, bin_dir=bins, timeout_s=0.5)


def test_results_that_change_between_runs_raise(tmp_path, files):
    bins = tmp_path / "bin"
    bins.mkdir()
    script = FAKE_ECL_CC.replace("components: 3", "components: $count")
    make_executable(bins / "ecl-cc", script)
    with pytest.raises(PeerError, match="different results run to run: \\[1, 2, 3\\]"):
        peers.run_cc("ecl-cc", files, reps=2, bin_dir=bins)


def test_missing_binary_wrong_problem_and_bad_reps(tmp_path, files):
    with pytest.raises(PeerError, match=r"no executable 'gconn-inc'.*build\.sh"):
        peers.run_incremental("gconn-inc", files, bin_dir=tmp_path)
    with pytest.raises(ValueError, match="not a msf peer; use one of \\['ecl-mst'\\]"):
        peers.run_msf("ecl-cc", files, bin_dir=tmp_path)
    with pytest.raises(ValueError, match="reps=0 must be a positive integer"):
        peers.run_cc("ecl-cc", files, reps=0, bin_dir=tmp_path)


def test_missing_input_format_is_named(tmp_path):
    indptr, indices, n, _ = small_graph()
    files = write_inputs(indptr, indices, n, None, tmp_path / "in")
    bins = tmp_path / "bin"
    bins.mkdir()
    make_executable(bins / "ecl-mst", "#!/bin/sh\nexit 0\n")
    with pytest.raises(PeerError, match=r"files\.egr_weighted is None"):
        peers.run_msf("ecl-mst", files, bin_dir=bins)


def test_the_harness_seam_runs_ecl_scc_for_the_scc_problem(tmp_path):
    from concomp.bench.gpu_peers import run_peers

    bins = tmp_path / "bin"
    bins.mkdir()
    script = "#!/bin/sh\n[ -f \"$1\" ] || exit 7\necho 'compute time: 0.002000 s'\necho ''\n"
    make_executable(bins / "ecl-scc", script + "echo 'number of SCCs: 5'\n")
    indptr, indices, n, _ = small_graph()
    found = run_peers("scc", bins, tmp_path / "work", indptr, indices, n, None, 3)
    timing, result = found["ecl-scc"]
    assert result == {"components": 5}
    assert timing["times_ms"] == [2.0, 2.0, 2.0] and timing["clock"] == "peer's own timer"


def test_the_scc_seam_gives_ecl_scc_the_simple_graph_of_a_directed_csr(tmp_path):
    """Directed corpus graphs keep self loops and repeated arcs; ECL-SCC gets the simple
    graph (same strongly connected components) in its own format only."""
    from concomp.bench.gpu_peers import run_peers

    bins = tmp_path / "bin"
    bins.mkdir()
    script = "#!/bin/sh\n[ -f \"$1\" ] || exit 7\necho 'compute time: 0.002000 s'\necho ''\n"
    make_executable(bins / "ecl-scc", script + "echo 'number of SCCs: 2'\n")
    # 0 -> 1 (twice), 1 -> 0, 1 -> 1 (loop), 2 -> 2 (loop); rows unsorted
    indptr, indices = np.array([0, 2, 4, 5]), np.array([1, 1, 1, 0, 2])
    found = run_peers("scc", bins, tmp_path / "work", indptr, indices, 3, None, 3)
    assert found["ecl-scc"][1] == {"components": 2}
    egr = np.fromfile(tmp_path / "work" / "graph.egr", "<i4")
    assert egr.tolist() == [3, 2, 0, 1, 2, 2, 1, 0]  # n, m, indptr, indices
    assert not (tmp_path / "work" / "graph.mtx").exists()


def test_simple_csr_sorts_rows_and_drops_loops_and_repeats():
    ptr, idx = peers.simple_csr(np.array([0, 3, 3, 6]), np.array([2, 2, 0, 2, 1, 0]))
    assert ptr.tolist() == [0, 1, 1, 3] and idx.tolist() == [2, 0, 1]
