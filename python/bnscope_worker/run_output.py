from dataclasses import dataclass, field


@dataclass
class RunOutput:
    outputs: dict  # output name -> numpy array (bfloat16 as its uint16 bits)
    kernel_seconds: float
    transfer_seconds: float = 0.0  # framework tensors made from the shared inputs
    download_seconds: float = 0.0  # framework outputs to numpy (device to host on a GPU)
    notes: list = field(default_factory=list)


# The logical NCHW order of a channels-last tensor and back (PyTorch's channels_last memory
# format is a permuted view, no copy).
TO_CHANNELS_FIRST = {"NHWC": (0, 3, 1, 2), "NDHWC": (0, 4, 1, 2, 3)}
FROM_CHANNELS_FIRST = {"NHWC": (0, 2, 3, 1), "NDHWC": (0, 2, 3, 4, 1)}
