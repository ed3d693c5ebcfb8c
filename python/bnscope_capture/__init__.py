"""bnscope_capture: the batch-normalization gradients of one TensorFlow training step, as bnscope
problem files with TensorFlow's outputs for reference."""

from .capture import CaptureResult, capture
from .errors import CaptureError

__all__ = ["capture", "CaptureError", "CaptureResult"]
__version__ = "0.1.0"
