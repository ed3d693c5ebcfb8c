"""bnscope_capture: the batch-normalization gradients of one TensorFlow training step, as bnscope
problem files with TensorFlow's outputs for reference."""

from .capture import CaptureResult, capture
from .errors import CaptureError
from .torch_capture import capture_torch

__all__ = ["capture", "capture_torch", "CaptureError", "CaptureResult"]
__version__ = "0.1.0"
