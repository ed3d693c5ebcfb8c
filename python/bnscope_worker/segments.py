"""Shared-memory segments bnscope created, mapped by path, kept by id until bnscope releases them."""

import mmap
import os

import numpy as np

# bfloat16 travels as its 16 bits; the framework side reinterprets them.
STORAGE = {"float16": np.float16, "bfloat16": np.uint16, "float32": np.float32,
           "float64": np.float64}


class Segments:
    def __init__(self):
        self._maps = {}

    def view(self, seg, path, size, dtype, shape):
        """A numpy array over segment `seg` (mapped on first use)."""
        m = self._maps.get(seg)
        if m is None:
            fd = os.open(path, os.O_RDWR)
            try:
                flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
                m = mmap.mmap(fd, max(size, 1), flags=flags)
            finally:
                os.close(fd)
            self._maps[seg] = m
        count = int(np.prod(shape)) if len(shape) else 1
        return np.frombuffer(m, dtype=STORAGE[dtype], count=count).reshape(shape)

    def release(self, segs):
        for seg in segs:
            m = self._maps.pop(seg, None)
            if m is not None:
                try:
                    m.close()
                except BufferError:  # a framework tensor still views it; dropped with it
                    pass
