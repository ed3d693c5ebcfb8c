"""reserve_space_2 between TensorFlow's CPU convention (the variance) and the inverse standard
deviation 1/sqrt(variance + epsilon) that PyTorch and cuDNN save. Computed in float64 (PyTorch's
CPU forward computes its invstd in double for float input) and rounded to float32 once."""

import numpy as np


def variance_to_inv_std(variance, epsilon):
    v = np.asarray(variance, dtype=np.float64)
    return (1.0 / np.sqrt(v + np.float64(epsilon))).astype(np.float32)


def inv_std_to_variance(inv_std, epsilon):
    s = np.asarray(inv_std, dtype=np.float64)
    return (1.0 / (s * s) - np.float64(epsilon)).astype(np.float32)


def note(direction, framework):
    if direction == "to_inv_std":
        text = ("reserve_space_2 converted from the variance to 1/sqrt(variance + epsilon) "
                f"before {framework}'s call, the convention its kernel reads (float64, rounded "
                "to float32)")
    else:
        text = ("reserve_space_2 converted from 1/sqrt(variance + epsilon) to the variance "
                f"before {framework}'s call, the convention its kernel reads (float64, rounded "
                "to float32)")
    return {"code": "reserve-convention-converted", "message": text, "subject": "reserve_space_2"}
