# Enables the CUDA language when a toolkit is present; without one the GPU backends report "not built".
set(BNSCOPE_HAVE_CUDA OFF)
