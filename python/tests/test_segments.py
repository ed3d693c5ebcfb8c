"""The worker's two ways of filling a segment bnscope made: written through its descriptor while
it has no pages, copied into its mapping once it has; both leave the same bytes where bnscope
reads them."""

import mmap
import os
import sys

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))
from bnscope_worker.prefetch import Prefetch  # noqa: E402
from bnscope_worker.segments import Segments  # noqa: E402


class Memfd:
    def __init__(self, size):
        self.fd = os.memfd_create("segment-test")
        os.ftruncate(self.fd, size)
        self.path = f"/proc/{os.getpid()}/fd/{self.fd}"
        self.map = mmap.mmap(self.fd, size)  # what bnscope reads

    def close(self):
        self.map.close()
        os.close(self.fd)


def test_a_written_segment_is_copied_into_after():
    rng = np.random.default_rng(3)
    shape = (6, 300, 1000)  # 7.2 MB, pages not whole
    a = rng.standard_normal(shape, dtype=np.float32)
    b = rng.standard_normal(shape, dtype=np.float32)
    seg = Memfd(a.nbytes)
    s = Segments()
    try:
        assert not s.has_pages(1)
        s.write(1, seg.path, a)
        assert s.has_pages(1)
        assert seg.map[:] == a.tobytes()
        view = s.view(1, seg.path, a.nbytes, "float32", list(shape))
        np.testing.assert_array_equal(view, a)
        np.copyto(view, b)
        del view
        assert seg.map[:] == b.tobytes()
        s.release([1])
        assert not s.has_pages(1)
    finally:
        seg.close()


def test_a_strided_array_is_written_in_order():
    a = np.arange(24, dtype=np.float32).reshape(4, 6).T  # not C-contiguous
    seg = Memfd(a.nbytes)
    try:
        Segments().write(2, seg.path, a)
        assert seg.map[:] == np.ascontiguousarray(a).tobytes()
    finally:
        seg.close()


def test_an_empty_segment_maps():
    seg = Memfd(1)  # bnscope maps at least a page for an empty tensor
    s = Segments()
    try:
        assert s.view(3, seg.path, 0, "float32", [0]).size == 0
        s.release([3])
    finally:
        seg.close()


def test_a_prefetched_segment_is_the_mapping_a_run_uses():
    shape = (4, 1024, 256)  # 4 MiB
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    seg = Memfd(a.nbytes)
    other = Memfd(a.nbytes)
    try:
        np.frombuffer(seg.map, np.float32)[:] = a.reshape(-1)
        prefetch = Prefetch(f"7:{a.nbytes}:{seg.path};8:{a.nbytes}:{other.path}")
        assert prefetch.prefetched() == [7, 8]
        segments = Segments(prefetch)
        view = segments.view(7, seg.path, a.nbytes, "float32", list(shape))
        assert prefetch.prefetched() == [8]  # taken, not mapped a second time
        assert np.array_equal(view, a)
        segments.release([7, 8])  # 8 was never used: its mapping goes too
        assert prefetch.prefetched() == []
        del view
    finally:
        seg.close()
        other.close()
