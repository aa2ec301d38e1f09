"""The pairs of pinned slots a thread keeps per use (concomp._gpu.pinned), with a stand-in
for CuPy's pinned allocator: the rules for when a pair is made again hold on any machine."""

from __future__ import annotations

import threading

import numpy as np

from concomp._gpu.pinned import PinnedSlot, thread_slots


class _FakeCuPy:
    """What the slots use of CuPy: a pinned allocation and an event."""

    made = 0

    class cuda:
        @staticmethod
        def alloc_pinned_memory(nbytes):
            _FakeCuPy.made += 1
            return bytearray(nbytes)

        class Event:
            def __init__(self, disable_timing=False):
                self.disable_timing = disable_timing


def test_a_pair_is_kept_while_it_is_large_enough():
    a = thread_slots(_FakeCuPy, "t-grow", 100)
    assert len(a) == 2 and a[0] is not a[1] and all(s.nbytes == 100 for s in a)
    assert thread_slots(_FakeCuPy, "t-grow", 60) is a  # smaller need: the same pair
    b = thread_slots(_FakeCuPy, "t-grow", 101)  # larger need: a new pair
    assert b is not a and b[0].nbytes == 101


def test_an_exact_pair_is_made_again_when_its_size_changes():
    a = thread_slots(_FakeCuPy, "t-exact", 128, exact=True)
    assert thread_slots(_FakeCuPy, "t-exact", 128, exact=True) is a
    b = thread_slots(_FakeCuPy, "t-exact", 64, exact=True)
    assert b is not a and b[0].nbytes == 64


def test_uses_and_threads_keep_their_own_pairs():
    mine = thread_slots(_FakeCuPy, "t-use-a", 32)
    assert thread_slots(_FakeCuPy, "t-use-b", 32) is not mine
    theirs = []
    t = threading.Thread(target=lambda: theirs.append(thread_slots(_FakeCuPy, "t-use-a", 32)))
    t.start()
    t.join()
    assert theirs[0] is not mine and thread_slots(_FakeCuPy, "t-use-a", 32) is mine


def test_views_cover_the_slot_in_any_dtype():
    slot = PinnedSlot(_FakeCuPy, 64)
    assert slot.view().dtype == np.uint8 and slot.view().shape == (64,)
    slot.view(np.int64)[:] = np.arange(8)
    assert slot.view(np.int32)[::2].tolist() == list(range(8))  # one memory (little endian)
    assert slot.copied.disable_timing
