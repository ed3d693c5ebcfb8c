"""bnscope problem files (.npz), written the way core/ops/problem_io.cpp reads them.

An archive of NAME.npy members (the op's inputs, plus out_<output> for TensorFlow's outputs) and a
text member problem.json: {"bnscope_problem": 1, "op": ..., "attrs": {...}, "convention": ...,
"strict": false}. bnscope takes the out_ members as the expected outputs (`diff --against` on the
same file, `sweep`), never as inputs.
"""

import io
import json
import zipfile

import numpy as np

PROBLEM_MEMBER = "problem.json"
EXPECTED_PREFIX = "out_"
FORMAT_VERSION = 1


def dtype_name(a):
    """bnscope's name for an array's dtype (float16, bfloat16, float32, float64, ...)."""
    return str(a.dtype)


def _npy_bytes(a):
    buf = io.BytesIO()
    # The same writer np.save and np.savez use; bfloat16 (ml_dtypes) goes out as 2-byte void,
    # which bnscope reads as bfloat16.
    # ascontiguousarray would turn a 0-d array (reserve_space_3) into shape (1,).
    a = np.asarray(a)
    np.lib.format.write_array(buf, a if a.flags.c_contiguous else a.copy(order="C"),
                              allow_pickle=False)
    return buf.getvalue()


def problem_json(op, attrs, convention):
    return json.dumps(
        {
            "bnscope_problem": FORMAT_VERSION,
            "op": op,
            "attrs": attrs,
            "convention": convention,
            "strict": False,
        },
        indent=2,
    ) + "\n"


def write_problem(path, op, attrs, convention, inputs, expected):
    """inputs and expected: dicts of name -> numpy array; expected are stored as out_<name>."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, a in inputs.items():
            z.writestr(name + ".npy", _npy_bytes(a))
        for name, a in expected.items():
            z.writestr(EXPECTED_PREFIX + name + ".npy", _npy_bytes(a))
        z.writestr(PROBLEM_MEMBER, problem_json(op, attrs, convention))


def read_problem(path):
    """(meta, inputs, expected) as written by write_problem."""
    inputs, expected = {}, {}
    with zipfile.ZipFile(path) as z:
        meta = json.loads(z.read(PROBLEM_MEMBER).decode())
        for member in z.namelist():
            if not member.endswith(".npy"):
                continue
            a = np.lib.format.read_array(io.BytesIO(z.read(member)), allow_pickle=False)
            if a.dtype.kind == "V" and a.dtype.itemsize == 2:
                import ml_dtypes  # comes with TensorFlow

                a = a.view(ml_dtypes.bfloat16)
            name = member[: -len(".npy")]
            if name.startswith(EXPECTED_PREFIX):
                expected[name[len(EXPECTED_PREFIX):]] = a
            else:
                inputs[name] = a
    return meta, inputs, expected
