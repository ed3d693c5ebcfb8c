// kernels/transpose.cu compiled unchanged as host C++ for the emulator (BNSCOPE_EMULATED).
#include "../kernels/transpose.cu"
