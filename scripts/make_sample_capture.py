"""Writes the sample captures committed under resources/captures/ (run with a Python that has
tensorflow-cpu, tf-keras and ./python installed, e.g. build/python-venv/bin/python):
  sample/        Keras 3 CNN: a channels-last BN, a channels-first BN, a channels-last BN under
                 mixed_float16 (captured through TensorFlow's autodiff)
  sample_fused/  the tf_keras CNN under mixed_float16 (TensorFlow's fused grad op tensors)
Both on the CPU, from the same tiny models the capture package's tests use."""

import os
import shutil
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "python", "tests"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import models  # noqa: E402
from bnscope_capture import capture  # noqa: E402


def main():
    root = os.path.join(REPO, "resources", "captures")
    os.makedirs(root, exist_ok=True)
    x, y = models.batch()
    for name, model in (("sample", models.keras3_cnn("sample_cnn")),
                        ("sample_fused", models.tf_keras_cnn("mixed_float16", "sample_cnn_fused"))):
        out = os.path.join(root, name)
        shutil.rmtree(out, ignore_errors=True)
        r = capture(model, x, y, out, device="cpu")
        print(f"{out}: {len(r.manifest['layers'])} layers")


if __name__ == "__main__":
    main()
