"""concomp.label and concomp.label_stats on both engines, against scipy.ndimage.

Every case compares the labels themselves (not only the partition): both engines
promise SciPy's numbering, raster order of first appearance.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

import concomp
from concomp._cpu.label_runs import find_bit_runs, find_runs, runs_upto
from concomp.errors import InvalidImageError
from concomp.testing.images import label_reference, maze, random_mask, spiral

DENSITIES = (0.05, 0.3, 0.5, 0.59, 0.8, 1.0)
SHAPES_2D = [(1, 97), (97, 1), (31, 37), (64, 64), (2, 3)]
SHAPES_3D = [(7, 11, 13), (1, 17, 19), (13, 1, 5), (16, 16, 16)]


def _to_engine(a, device):
    if device == "gpu":
        import cupy

        return cupy.asarray(a)
    return a


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _check(image, device, connectivity=1, **kw):
    got, n = concomp.label(
        _to_engine(image, device), connectivity, return_num=True, device=device, **kw
    )
    want, m = label_reference(
        image,
        connectivity,
        background=kw.get("background", 0),
        multilabel=kw.get("multilabel", False),
    )
    assert n == m
    np.testing.assert_array_equal(_host(got), want)
    return got


@pytest.mark.parametrize("p", DENSITIES)
@pytest.mark.parametrize("shape", SHAPES_2D + SHAPES_3D)
def test_random_masks_match_scipy_for_every_connectivity(device, shape, p):
    image = random_mask(shape, p, seed=len(shape) * 100 + int(p * 100))
    for connectivity in range(1, image.ndim + 1):
        _check(image, device, connectivity)


@pytest.mark.parametrize("shape", [(3, 4, 5, 6), (2, 2, 2, 2, 9)])
def test_n_dimensional_images_on_the_cpu(shape):
    image = random_mask(shape, 0.5, seed=3)
    for connectivity in range(1, image.ndim + 1):
        _check(image, "cpu", connectivity)


def test_one_dimensional_and_large_slab_counts(device):
    _check(random_mask((1000,), 0.5, seed=1), device)
    # many slabs along axis 0: every slab boundary must be merged
    _check(random_mask((257, 3), 0.7, seed=2), device, 2)


@pytest.mark.parametrize("per_thread", [1, 7, 40])
def test_every_slab_count_gives_scipys_labels(monkeypatch, per_thread):
    """The CPU labeller's slabs (one or many per thread, and more slabs than rows) are
    merged across every boundary: 2-D and 3-D, bool masks and integer images, multilabel."""
    import concomp._cpu.label as cpu_label

    monkeypatch.setattr(cpu_label, "SLABS_PER_THREAD", per_thread)
    for shape in [(61, 70), (9, 13, 17)]:
        for p in (0.4, 0.7):
            mask = random_mask(shape, p, seed=len(shape))
            for image in (mask, mask.astype(np.uint8)):
                for c in range(1, len(shape) + 1):
                    _check(image, "cpu", c)
    values = np.random.default_rng(1).integers(0, 3, (40, 33)).astype(np.uint8)
    for c in (1, 2):
        _check(values, "cpu", c, multilabel=True, background=1)


@pytest.mark.parametrize("width", [7, 8, 9, 16, 61, 63, 64, 65, 127, 128, 129, 203])
def test_masks_of_long_runs_and_noisy_rows(width):
    # the CPU scan of bool masks takes 64 pixels per word: runs that start and end on
    # and off word boundaries or span several words, rows narrower than a word, widths
    # that leave a partial last word, and rows alternating between few runs and many
    rng = np.random.default_rng(width)
    rows = []
    for k in range(60):
        if k % 5 == 4:
            rows.append(rng.random(width) < 0.5)
            continue
        row = np.zeros(width, dtype=bool)
        for _ in range(rng.integers(0, 3)):
            a, b = sorted(rng.integers(0, width + 1, 2))
            row[a:b] = True
        rows.append(row)
    image = np.array(rows)
    for connectivity in (1, 2):
        _check(image, "cpu", connectivity)
        _check(~image, "cpu", connectivity)
    _check(image.reshape(6, 10, width), "cpu", 3)


@pytest.mark.parametrize("width", [1, 5, 63, 64, 65, 128, 130, 4100])
def test_bit_scan_finds_the_runs_and_counts_of_the_byte_scan(width):
    """The 64-pixel scan of a 0/1 row gives the general scan's runs, and its words give
    the general scan's per-pixel counts of runs started at or before each pixel."""
    rng = np.random.default_rng(width)
    for p in (0.0, 0.05, 0.5, 0.95, 1.0):
        row = (rng.random(width) < p).astype(np.uint8)
        if width > 64 and p == 0.5:
            row[60:70] = 1  # a run across a word boundary
        rs, re = np.zeros(width + 2, np.int32), np.zeros(width + 2, np.int32)
        cnt = np.zeros(width, np.int32)
        n = find_runs(row, 0, width, np.uint8(0), False, True, rs, re, 0, cnt, 0)
        words = (width + 63) // 64
        bs, be = np.zeros(width + 2, np.int32), np.zeros(width + 2, np.int32)
        sw, sb = np.zeros(words, np.uint64), np.zeros(words, np.int64)
        m = find_bit_runs(row, 0, width, bs, be, 0, sw, sb, 0)
        assert m == n
        np.testing.assert_array_equal(bs[:n], rs[:n])
        np.testing.assert_array_equal(be[:n], re[:n])
        np.testing.assert_array_equal(_counts_off_words(sw, sb, width), cnt)


@numba.njit
def _counts_off_words(sw, sb, width):
    """``runs_upto`` at every pixel of a row."""
    out = np.empty(width, np.int64)
    for x in range(width):
        out[x] = runs_upto(sw, sb, 0, x)
    return out


@pytest.mark.parametrize("shape", [(1, 200), (200, 1), (37, 90), (131, 17), (19, 5, 33)])
def test_bool_masks_take_the_byte_scan_and_the_general_one_alike(shape):
    # bool masks with background False are scanned as 0/1 bytes; background True,
    # multilabel and uint8 take the general scan: all must agree with SciPy, across
    # the slab borders (heights that are no multiple of the slab count) and in a
    # component that crosses every slab
    image = random_mask(shape, 0.6, seed=sum(shape))
    image[..., 0] = True
    for connectivity in range(1, image.ndim + 1):
        _check(image, "cpu", connectivity)
        _check(image, "cpu", connectivity, background=True)
        _check(image, "cpu", connectivity, multilabel=True)
        _check(image.astype(np.uint8), "cpu", connectivity)
        for dtype in (np.int32, np.uint64):
            got = concomp.label(image, connectivity, device="cpu", out=dtype)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, label_reference(image, connectivity)[0])
        out = np.empty(shape, dtype=np.uint16)
        concomp.label(image, connectivity, device="cpu", out=out)
        np.testing.assert_array_equal(out, label_reference(image, connectivity)[0])


@pytest.mark.parametrize("n", [1, 2, 5, 64, 101])
def test_spirals_are_one_component(device, n):
    labels = _check(spiral(n), device)
    assert int(_host(labels).max()) == 1


@pytest.mark.parametrize("shape", [(9, 9), (64, 101), (257, 129)])
def test_mazes_are_one_component(device, shape):
    for connectivity in (1, 2):
        labels = _check(maze(shape, seed=shape[0]), device, connectivity)
        assert int(_host(labels).max()) == 1


def test_volume_spiral_through_slices(device):
    # a spiral in every slice, joined slice to slice at alternate corners
    vol = np.zeros((6, 33, 33), dtype=bool)
    vol[:] = spiral(33)
    _check(vol, device)
    _check(vol, device, 3)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.int64, np.uint64])
def test_integer_images_multilabel_and_background(device, dtype):
    rng = np.random.default_rng(7)
    image = rng.integers(0, 4, (23, 29)).astype(dtype)
    for connectivity in (1, 2):
        _check(image, device, connectivity)
        _check(image, device, connectivity, multilabel=True)
        _check(image, device, connectivity, multilabel=True, background=3)
        _check(image, device, connectivity, background=2)


def test_multilabel_volume(device):
    image = np.random.default_rng(8).integers(0, 3, (9, 10, 11)).astype(np.int32)
    for connectivity in (1, 2, 3):
        _check(image, device, connectivity, multilabel=True)


@pytest.mark.parametrize("width", [1, 2, 63, 64, 65, 128, 200])
def test_plane_scan_matches_scipy_for_every_structure_and_width(width):
    """2-D masks take the one-pass plane scan on the CPU: every symmetric structure
    (one-sided reaches above, none, only along the row) at widths around the 64-pixel
    words, with many slabs (the rows above a slab's first row are another slab's)."""
    strels = np.loadtxt(
        f"{ndimage.__path__[0]}/tests/data/label_strels.txt", dtype=np.int64
    ).reshape(-1, 3, 3)
    row_only = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]])
    for seed, p in enumerate((0.3, 0.6, 0.9)):
        image = random_mask((67, width), p, seed=seed)
        for s in [*strels, row_only, ndimage.generate_binary_structure(2, 2)]:
            got, n = concomp.label(image, structure=s, return_num=True, device="cpu")
            want, m = ndimage.label(image, s)
            assert n == m
            np.testing.assert_array_equal(got, want)


def test_structure_matches_scipy(device):
    strels = np.loadtxt(
        f"{ndimage.__path__[0]}/tests/data/label_strels.txt", dtype=np.int64
    ).reshape(-1, 3, 3)
    image = random_mask((40, 41), 0.5, seed=9)
    for s in strels:
        got, n = concomp.label(
            _to_engine(image, device), structure=s, return_num=True, device=device
        )
        want, m = ndimage.label(image, s)
        assert n == m
        np.testing.assert_array_equal(_host(got), want)


def test_output_dtype_is_the_smallest_that_holds_the_labels():
    assert concomp.label(np.ones((3, 3), bool), device="cpu").dtype == np.uint8
    checker = (np.indices((40, 40)).sum(axis=0) % 2).astype(bool)  # 800 single pixels
    labels = concomp.label(checker, device="cpu")
    assert labels.dtype == np.uint16 and int(labels.max()) == 800
    assert concomp.label(np.zeros((2, 2), bool), device="cpu").dtype == np.uint8


def test_out_as_dtype_and_as_array():
    image = random_mask((50, 60), 0.5, seed=4)
    want, _ = ndimage.label(image)
    np.testing.assert_array_equal(concomp.label(image, out=np.int64, device="cpu"), want)
    buf = np.full(image.shape, -1, dtype=np.int32)
    got = concomp.label(image, out=buf, device="cpu")
    assert got is buf
    np.testing.assert_array_equal(buf, want)
    with pytest.raises(InvalidImageError, match="int8"):
        concomp.label(random_mask((64, 64), 0.4, seed=1), out=np.int8, device="cpu")


@pytest.mark.parametrize("dtype", [">i4", ">u2", ">i8"])
def test_big_endian_images_and_out_dtypes(dtype):
    """Data stored big-endian (as some file formats hold it) labels as its values say;
    an ``out`` dtype of either byte order gives native labels."""
    image = (random_mask((37, 70), 0.5, seed=2) * np.arange(70) % 3).astype(dtype)
    native = image.astype(np.dtype(dtype).newbyteorder("="))
    for kw in ({}, {"multilabel": True}, {"out": np.dtype(">i4")}):
        got = concomp.label(image, device="cpu", **kw)
        np.testing.assert_array_equal(got, concomp.label(native, device="cpu", **kw))
        assert got.dtype.isnative
    stats = concomp.label_stats(concomp.label(image, device="cpu").astype(">i4"))
    np.testing.assert_array_equal(stats.sizes, concomp.label_stats(concomp.label(native)).sizes)


def test_out_arrays_the_labels_cannot_be_written_into_are_refused():
    image = np.ones((4, 4), bool)
    with pytest.raises(InvalidImageError, match=r"argument `out`: dtype >i4 .*byte order"):
        concomp.label(image, out=np.zeros((4, 4), ">i4"), device="cpu")
    frozen = np.zeros((4, 4), np.int32)
    frozen.flags.writeable = False
    with pytest.raises(InvalidImageError, match="argument `out`: the array is read-only"):
        concomp.label(image, out=frozen, device="cpu")


def test_empty_and_all_background_images():
    assert concomp.label(np.zeros((0, 5), bool), return_num=True, device="cpu")[1] == 0
    labels, n = concomp.label(np.zeros((4, 5), np.uint16), return_num=True, device="cpu")
    assert n == 0 and not labels.any()


def test_non_contiguous_input():
    image = random_mask((40, 50), 0.55, seed=5)
    view = np.asfortranarray(image)[:, ::2]
    got = concomp.label(view, device="cpu")
    np.testing.assert_array_equal(got, ndimage.label(view)[0])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"connectivity": 0}, "connectivity"),
        ({"connectivity": 3}, "connectivity"),
        ({"connectivity": True}, "connectivity"),
        ({"connectivity": 1, "structure": np.ones((3, 3))}, "both given"),
        ({"structure": np.ones((3, 3, 3))}, "shape"),
        ({"structure": np.array([[1, 0, 0], [0, 1, 0], [0, 0, 0]])}, "symmetric"),
        ({"structure": np.array([["a"] * 3] * 3)}, "dtype"),
        ({"background": 300}, "range"),
        ({"background": 1.5}, "integer"),
        ({"multilabel": "yes"}, "multilabel"),
        ({"out": np.float32}, "out"),
        ({"out": np.zeros((2, 2), np.int32)}, "shape"),
        ({"out": "nonsense"}, "out"),
    ],
)
def test_clear_errors(kwargs, match):
    with pytest.raises(InvalidImageError, match=match):
        concomp.label(np.ones((4, 4), np.uint8), device="cpu", **kwargs)


@pytest.mark.parametrize(
    ("image", "match"),
    [
        (np.ones((3, 3), np.float64), "dtype float64"),
        (np.ones((3, 3), np.complex64), "dtype complex64"),
        (np.array(["a", "b"]), "dtype"),
        (np.array(1), "0-d"),
    ],
)
def test_unsupported_images(image, match):
    with pytest.raises(InvalidImageError, match=match):
        concomp.label(image, device="cpu")


def test_label_stats_match_scipy(device):
    image = random_mask((37, 41), 0.45, seed=6)
    labels = concomp.label(_to_engine(image, device), 2, device=device)
    stats = concomp.label_stats(labels, device=device)
    host = _host(labels).astype(np.int64)
    n = int(host.max())
    index = np.arange(1, n + 1)
    np.testing.assert_array_equal(_host(stats.sizes), np.bincount(host.ravel())[1:])
    assert stats.slices() == ndimage.find_objects(host)
    np.testing.assert_allclose(
        _host(stats.centroids), np.array(ndimage.center_of_mass(host > 0, host, index))
    )
    assert stats.num == n


def test_label_stats_absent_labels_and_volume():
    labels = np.zeros((4, 5, 6), dtype=np.uint16)
    labels[1, 2:4, 3] = 2
    stats = concomp.label_stats(labels, num=3, device="cpu")
    assert stats.sizes.tolist() == [0, 2, 0]
    assert stats.slices() == [None, (slice(1, 2), slice(2, 4), slice(3, 4)), None]
    assert stats.bbox_start[1].tolist() == [1, 2, 3] and stats.bbox_stop[1].tolist() == [2, 4, 4]
    assert np.isnan(stats.centroids[0]).all()
    with pytest.raises(InvalidImageError, match="num"):
        concomp.label_stats(labels, num=1, device="cpu")
    with pytest.raises(InvalidImageError, match="negative"):
        concomp.label_stats(np.array([[-1, 0]]), device="cpu")
    with pytest.raises(InvalidImageError, match="integer"):
        concomp.label_stats(np.ones((2, 2)), device="cpu")


def test_gpu_request_without_gpu_is_refused(gpu_available):
    if gpu_available:
        pytest.skip("a GPU is usable here")
    with pytest.raises(concomp.DeviceUnavailableError):
        concomp.label(np.ones((2, 2), bool), device="gpu")


def test_torch_tensors_come_back_as_tensors():
    torch = pytest.importorskip("torch")
    image = random_mask((20, 30), 0.5, seed=11)
    got = concomp.label(torch.from_numpy(image), device="cpu")
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), ndimage.label(image)[0])


@pytest.mark.gpu
def test_gpu_volumes_beyond_three_dimensions_are_refused():
    import cupy

    with pytest.raises(concomp.EngineCapabilityError, match="device='cpu'"):
        concomp.label(cupy.ones((2, 2, 2, 2), bool))


@pytest.mark.gpu
def test_gpu_large_random_masks_match_scipy():
    import cupy

    for shape, p in (((1031, 997), 0.59), ((67, 71, 73), 0.31)):
        image = random_mask(shape, p, seed=12)
        for connectivity in range(1, image.ndim + 1):
            got, n = concomp.label(cupy.asarray(image), connectivity, return_num=True)
            want, m = label_reference(image, connectivity)
            assert n == m
            np.testing.assert_array_equal(got.get(), want)


def _symmetric_structures(ndim: int, count: int, seed: int):
    """Symmetric ``3 x ... x 3`` structures: every one in 2-D, a random sample in 3-D."""
    half = (3**ndim - 1) // 2
    rng = np.random.default_rng(seed)
    picks = range(2**half) if 2**half <= count else rng.integers(0, 2**half, count)
    for bits in picks:
        flat = np.zeros(3**ndim, dtype=bool)
        flat[:half] = [(int(bits) >> b) & 1 for b in range(half)]
        yield flat.reshape((3,) * ndim) | flat[::-1].reshape((3,) * ndim)


@pytest.mark.parametrize("shape", [(23, 29), (5, 7, 9)])
def test_every_neighbourhood_shape_matches_scipy(device, shape):
    image = random_mask(shape, 0.45, seed=13)
    for s in _symmetric_structures(len(shape), 40, seed=14):
        got, n = concomp.label(
            _to_engine(image, device), structure=s, return_num=True, device=device
        )
        want, m = ndimage.label(image, s)
        assert n == m, s.astype(int).tolist()
        np.testing.assert_array_equal(_host(got), want)


@given(
    st.lists(st.integers(1, 9), min_size=1, max_size=3).flatmap(
        lambda shape: st.tuples(
            st.just(tuple(shape)),
            st.integers(1, len(shape)),
            st.lists(st.integers(0, 2), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))),
        )
    )
)
@settings(max_examples=150, deadline=None)
def test_property_small_images_match_the_reference(case):
    shape, connectivity, values = case
    image = np.array(values, dtype=np.uint8).reshape(shape)
    for multilabel in (False, True):
        got, n = concomp.label(
            image, connectivity, multilabel=multilabel, return_num=True, device="cpu"
        )
        want, m = label_reference(image, connectivity, multilabel=multilabel)
        assert n == m
        np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
def test_gpu_tiles_lines_spirals_and_multilabel_match_scipy():
    """Shapes that cut many tiles at odd places: long lines, one component snaking
    through every tile, and multilabel regions that touch across tile faces."""
    import cupy

    cases = [
        (random_mask((1_000_003,), 0.9, seed=21), 1, False),
        (random_mask((3, 100_001), 0.7, seed=22), 2, False),
        (random_mask((100_001, 3), 0.7, seed=23), 1, False),
        (spiral(1023), 1, False),
        (maze((513, 1025), seed=24), 2, False),
        (random_mask((5, 300, 7), 0.5, seed=25), 3, False),
        (np.random.default_rng(26).integers(0, 4, (515, 517)).astype(np.int16), 1, True),
        (np.random.default_rng(27).integers(0, 3, (33, 35, 37)).astype(np.uint8), 3, True),
    ]
    for image, connectivity, multilabel in cases:
        got, n = concomp.label(
            cupy.asarray(image), connectivity, multilabel=multilabel, return_num=True
        )
        want, m = label_reference(image, connectivity, multilabel=multilabel)
        assert n == m, image.shape
        np.testing.assert_array_equal(got.get(), want)


def test_gpu_neighbourhood_layout_and_tiles():
    """The neighbourhood array the GPU kernels read (no GPU needed to build it)."""
    from concomp._gpu.label import MAX_TILE, ROWS_2D, neighbourhood, tile_rows, tile_shape

    eight = np.array([[0, -1, -1], [0, -1, 0], [0, -1, 1], [0, 0, -1]])
    nb = neighbourhood(eight).tolist()
    k, ql, qu, lo, hi = nb[0], nb[1], nb[2], nb[3:6], nb[6:9]
    rows = [tuple(nb[9 + 3 * q : 12 + 3 * q]) for q in range(k)]
    adj = nb[9 + 3 * k :]
    assert (k, ql, qu) == (4, 0, 1) and lo == [0, -1, -1] and hi == [0, 0, 1]
    assert rows[:2] == [(0, 0, -1), (0, -1, 0)] and set(rows) == {tuple(r) for r in eight}
    # (0,0,-1) and (0,-1,-1) differ by (0,-1,0); (0,0,-1) and (0,-1,1) by (0,-1,2): no
    assert adj[0] >> rows.index((0, -1, -1)) & 1 and not adj[0] >> rows.index((0, -1, 1)) & 1
    assert neighbourhood(np.zeros((0, 3), int)).tolist() == [0, -1, -1, 0, 0, 0, 0, 0, 0]
    for shape in [(1, 1, 1), (1, 1, 10**6), (1, 3, 5), (1, 8192, 8192), (300, 1, 1), (7, 3, 2)]:
        tz, ty, tx = tile_shape(*shape)
        assert 1 <= tz <= 64 and tz * ty * tx <= MAX_TILE
        assert all(t <= max(1, 1 << (s - 1).bit_length()) for t, s in zip((tz, ty, tx), shape))
    # an image's tile takes up to ROWS_2D rows per thread, no more than its height
    # fills; a volume's one (its border pass stages the tile a block's threads cover)
    assert ROWS_2D >= 2
    assert tile_rows(1, 8192, 8) == ROWS_2D and tile_rows(1, 9, 8) == 2
    assert tile_rows(1, 8, 8) == tile_rows(1, 3, 4) == tile_rows(1, 1, 1) == 1
    assert tile_rows(512, 512, 8) == tile_rows(2, 4096, 8) == 1


def test_gpu_halo_covers_the_pixel_for_one_sided_neighbourhoods():
    """A neighbourhood whose offsets all lie on one side (a single diagonal) still stages
    the pixel itself: the box of offsets includes 0 on every axis."""
    from concomp._gpu.label import neighbourhood, staged_bytes

    diagonal = np.array([[0, -1, 1]])
    nb = neighbourhood(diagonal).tolist()
    assert nb[3:6] == [0, -1, 0] and nb[6:9] == [0, 0, 1]
    # x: tile 32, no left step, one column right; y: one row up; z: the plane alone
    assert staged_bytes(neighbourhood(diagonal), (1, 8, 32), 1) == -(-(1 * 9 * 33) // 16) * 16
    # 8-connectivity: one more column before the tile (x step), one more row (y step)
    eight = neighbourhood(np.array([[0, -1, -1], [0, -1, 0], [0, -1, 1], [0, 0, -1]]))
    assert staged_bytes(eight, (1, 8, 32), 4) == -(-(1 * (8 + 2) * (32 + 3) * 4) // 16) * 16
