#!/usr/bin/env python3
"""Writes the small .npy/.npz fixtures the io tests read. Needs numpy and ml_dtypes:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy ml_dtypes
    /tmp/venv/bin/python tests/io/data/make_fixtures.py
The tests check the values these arrays hold, so change both together."""

import os
import zipfile

import ml_dtypes
import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def save_version(name, arr, version):
    with open(path(name), "wb") as f:
        npformat.write_array(f, arr, version=version)


# 0, 1, 2, ... in C order, scaled so every value is exact in every float type.
grid = (np.arange(24, dtype=np.float64) * 0.5 - 4.0).reshape(2, 3, 4)

# bfloat16 as ml_dtypes writes it: descr '<V2'.
np.save(path("bf16_ml_dtypes.npy"),
        np.array([[1.5, -2.0, 3.0], [0.1, 65280.0, -0.0]], dtype=ml_dtypes.bfloat16))

# Header versions 1.0, 2.0 and 3.0 (3.0 is 2.0 with a utf8 header).
for v in (1, 2, 3):
    save_version(f"v{v}_f4.npy", grid.astype(np.float32), (v, 0))

# Big-endian floats and integers.
np.save(path("be_f8.npy"), grid.astype(">f8"))
np.save(path("be_f2.npy"), grid.astype(">f2"))
np.save(path("be_i4.npy"), np.array([-7, 0, 123456789], dtype=">i4"))

# Fortran order: same values as grid, column-major on disk.
np.save(path("fortran_f4.npy"), np.asfortranarray(grid.astype(np.float32)))

# Every integer type and bool: the extremes of each.
for code in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"):
    info = np.iinfo(np.dtype(code))
    np.save(path(f"int_{code}.npy"), np.array([info.min, 0, 1, info.max], dtype="<" + code))
np.save(path("bool.npy"), np.array([True, False, True]))

# Archives: a stored and a deflated one with the same members, plus a text member.
members = {
    "x": grid.astype(np.float32),
    "scale": np.array([1.0, 2.0, 3.0, 4.0]),
    "count": np.array([3, -1], dtype=np.int32),
}
np.savez(path("stored.npz"), **members)
np.savez_compressed(path("deflated.npz"), **members)
for name in ("stored.npz", "deflated.npz"):
    with zipfile.ZipFile(path(name), "a") as z:
        z.writestr("notes.txt", "not an array\n")


# The same members as zipfile writes them to a stream it cannot seek: deflated, each followed by
# a data descriptor, with Zip64 sizes in the local headers (numpy's force_zip64).
class Unseekable:
    def __init__(self, f):
        self.f = f

    def write(self, b):
        return self.f.write(b)

    def flush(self):
        self.f.flush()


with open(path("streamed.npz"), "wb") as raw:
    with zipfile.ZipFile(Unseekable(raw), "w", compression=zipfile.ZIP_DEFLATED) as z:
        for key, arr in members.items():
            with z.open(key + ".npy", "w", force_zip64=True) as m:
                npformat.write_array(m, arr)
        z.writestr("notes.txt", "not an array\n")

# What the CLI's --inputs gets: op inputs next to an unrelated member.
np.savez(path("grad_inputs.npz"),
         y_backprop=np.ones((1, 1, 2, 3), dtype=np.float32),
         x=grid.astype(np.float32).reshape(1, 2, 4, 3),
         unrelated=np.zeros(2))
