// kernels/grad_kernels.cu compiled unchanged as host C++ for the emulator (BNSCOPE_EMULATED).
#include "../kernels/grad_kernels.cu"
