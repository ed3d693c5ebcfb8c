"""The segments bnscope names when it starts a worker (BNSCOPE_WORKER_PREFETCH, entries
"seg:bytes:path" joined by ';'): mapped, with their page tables made, on a thread while the
framework imports (seconds), so that the first run finds them mapped. Making the page tables of
205 MB of shared memory takes about as long as copying the bytes; hidden behind the import, the
first run waits for neither. bnscope may still be writing the bytes meanwhile: the mapping is the
same memory either way, and the run that reads them is sent after the writing.

madvise(MADV_POPULATE_READ) makes the page tables in one call, which ctypes makes without
holding the GIL the import needs; a kernel without it (before Linux 5.14) gets one byte read a
page instead. No numpy here: the thread starts before anything heavy is imported."""

import ctypes
import mmap
import os
import threading

MADV_POPULATE_READ = 22


def parse(spec):
    entries = []
    for item in filter(None, (spec or "").split(";")):
        seg, size, path = item.split(":", 2)
        entries.append((int(seg), int(size), path))
    return entries


class Prefetch:
    def __init__(self, spec):
        self._maps = {}  # seg -> (bytes, mmap)
        entries = parse(spec)
        self._thread = None
        if entries:
            self._thread = threading.Thread(target=self._map_all, args=(entries,), daemon=True)
            self._thread.start()

    def _map_all(self, entries):
        libc = ctypes.CDLL(None, use_errno=True)
        for seg, size, path in entries:
            try:
                fd = os.open(path, os.O_RDWR)
                try:
                    m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED)
                finally:
                    os.close(fd)
            except (OSError, ValueError):
                continue  # mapped when a run names it
            start = ctypes.c_char.from_buffer(m)
            done = libc.madvise(ctypes.c_void_p(ctypes.addressof(start)), ctypes.c_size_t(size),
                                MADV_POPULATE_READ) == 0
            del start  # the mapping can be closed again
            if not done:
                for at in range(0, size, mmap.PAGESIZE):
                    m[at]
            self._maps[seg] = (size, m)

    def _wait(self):
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def take(self, seg, size=None):
        """The mapping of segment `seg` if it was prefetched at `size` bytes (None: any), else
        None; it is the caller's from then on."""
        self._wait()
        entry = self._maps.pop(seg, None)
        if entry is None:
            return None
        if size is not None and entry[0] != size:
            entry[1].close()
            return None
        return entry[1]

    def drop(self, seg):
        m = self.take(seg)
        if m is not None:
            m.close()

    def prefetched(self):
        """The segments mapped so far (waits for the thread)."""
        self._wait()
        return sorted(self._maps)
