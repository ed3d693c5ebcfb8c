"""Shared-memory segments bnscope created, mapped by path, kept by id until bnscope releases them."""

import errno
import mmap
import os

import numpy as np

# bfloat16 travels as its 16 bits; the framework side reinterprets them.
STORAGE = {"float16": np.float16, "bfloat16": np.uint16, "float32": np.float32,
           "float64": np.float64}


class Segments:
    def __init__(self, prefetch=None):
        self._prefetch = prefetch  # mapped while the framework imported (prefetch.py)
        self._maps = {}
        self._written = set()  # segments write() gave their pages, not mapped yet

    def has_pages(self, seg):
        """Whether the segment's pages exist (this worker mapped or wrote it): then a copy into
        its mapping is the faster way to fill it again."""
        return seg in self._maps or seg in self._written

    def view(self, seg, path, size, dtype, shape):
        """A numpy array over segment `seg` (mapped on first use)."""
        m = self._maps.get(seg)
        if m is None and self._prefetch is not None:
            m = self._prefetch.take(seg, max(size, 1))
            if m is not None:
                self._maps[seg] = m
        if m is None:
            fd = os.open(path, os.O_RDWR)
            try:
                m = mmap.mmap(fd, max(size, 1), flags=mmap.MAP_SHARED)
            finally:
                os.close(fd)
            # Every page mapped now, not at the kernel's first reads: one byte read a page, each
            # fault mapping its neighbours too (the kernel's fault-around, 16 pages), 205 MB in
            # 18 ms where MAP_POPULATE, which walks page by page, took 24 ms.
            np.frombuffer(m, dtype=np.uint8)[::mmap.PAGESIZE].max()
            self._maps[seg] = m
        count = int(np.prod(shape)) if len(shape) else 1
        return np.frombuffer(m, dtype=STORAGE[dtype], count=count).reshape(shape)

    def write(self, seg, path, array):
        """Writes an array's bytes (C order) at the start of a segment this worker has not
        mapped, through its descriptor: the segment's pages, none of which exist yet, are
        allocated holding the bytes, with no zero-fill before and no page fault for each (mapped,
        then copied into, they would be both)."""
        data = memoryview(np.ascontiguousarray(array).reshape(-1).view(np.uint8))
        fd = os.open(path, os.O_WRONLY)
        try:
            done = 0
            while done < len(data):  # Linux writes at most about 2 GiB a call
                n = os.pwrite(fd, data[done:], done)
                if n == 0:
                    raise OSError(errno.ENOSPC, f"no room for {len(data) - done} bytes in {path}")
                done += n
        finally:
            os.close(fd)
        self._written.add(seg)

    def release(self, segs):
        for seg in segs:
            if self._prefetch is not None:
                self._prefetch.drop(seg)
            self._written.discard(seg)
            m = self._maps.pop(seg, None)
            if m is not None:
                try:
                    m.close()
                except BufferError:  # a framework tensor still views it; dropped with it
                    pass
