"""bnscope_worker: runs TensorFlow's or PyTorch's batch-norm kernels for bnscope in a process of
the user's Python. bnscope starts it (``python -m bnscope_worker FRAMEWORK VARIANT``), sends
requests on file descriptor 3 and reads replies on 4 (4-byte little-endian length, then JSON
text); tensors travel in shared-memory segments that the requests name by path."""
