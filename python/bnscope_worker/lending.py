"""Output lending: the framework's kernel writes its large outputs straight into bnscope's
segments, so a re-run ends without a copy of them.

bnscope preloads native/output_lending.c into the worker (LD_PRELOAD). Around the kernel call
only (its inputs are made before, its outputs read after), the worker lends the mapping of each
output's segment to the allocation of exactly that many bytes; after the call it looks at where
each output lies. An output in its segment needs no copy; one elsewhere is copied as without
lending, and the allocation that made it is the one lent to the next time (a kernel may allocate a
temporary of the output's size first). Without the preloaded library every call here does
nothing and every output is copied."""

import contextlib
import ctypes

# Smaller outputs are copied: they take microseconds, and the library does not look at them
# (its LEND_MIN_BYTES).
MIN_BYTES = 1 << 20


def _library():
    try:
        lib = ctypes.CDLL(None)
        lib.bnscope_lend.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        lib.bnscope_lend.restype = ctypes.c_int
        lib.bnscope_lend_ordinal.argtypes = [ctypes.c_void_p]
        lib.bnscope_lend_ordinal.restype = ctypes.c_int
        lib.bnscope_lent_held.restype = ctypes.c_int
    except (OSError, AttributeError):  # not preloaded: this process allocates as always
        return None
    return lib


def address(array):
    return array.__array_interface__["data"][0]


class LendingBroken(RuntimeError):
    """The framework kept a block it was lent: that segment's bytes are not bnscope's any more."""


class Lending:
    def __init__(self):
        self.lib = _library()
        self.ordinal = {}  # (run key, output name) -> which allocation of its size was the output
        self.lent = []  # (output name, segment view) lent in the current or last window

    @staticmethod
    def preloaded():
        return _library() is not None

    @contextlib.contextmanager
    def window(self, key, segments):
        """Lends each (name, segment view) of at least MIN_BYTES for the `with` block."""
        self.lent = []
        if self.lib is not None:
            for name, view in segments:
                if view.nbytes < MIN_BYTES or not view.flags.c_contiguous:
                    continue
                skip = self.ordinal.get((key, name), 0)
                if self.lib.bnscope_lend(address(view), view.nbytes, skip) == 0:
                    self.lent.append((name, view))
        try:
            yield
        finally:
            if self.lib is not None:
                self.lib.bnscope_lend_end()

    def landed(self, key, name, value):
        """Whether output `name` lies in its lent segment as the segment holds it (C order, the
        segment's dtype and shape); if not, the allocation that made it is lent to next time."""
        view = dict(self.lent).get(name)
        if view is None:
            return False
        if (address(value) == address(view) and value.flags.c_contiguous
                and value.dtype == view.dtype and value.shape == view.shape):
            return True
        ordinal = self.lib.bnscope_lend_ordinal(address(value))
        if ordinal >= 0:
            self.ordinal[(key, name)] = ordinal
        return False

    def detached(self, value):
        """`value`, or a copy of it when it lies in a lent segment it did not land in (two
        outputs of one size that took each other's segment): copying it into its own segment
        must not read bytes the other's copy has overwritten."""
        lo = address(value)
        hi = lo + value.nbytes
        for _, view in self.lent:
            if lo < address(view) + view.nbytes and address(view) < hi:
                return value.copy()
        return value

    def finish(self, landed):
        """After the outputs were looked at: only those that landed may still hold lent blocks;
        any other holder is a framework buffer living in a segment bnscope will read and reuse.
        The segments' views are let go (a segment bnscope releases is unmapped)."""
        names = ", ".join(name for name, _ in self.lent)
        self.lent = []
        held = self.lib.bnscope_lent_held() if self.lib is not None else 0
        if held > landed:
            raise LendingBroken(f"the framework kept {held - landed} of the blocks lent for "
                                f"{names}")
