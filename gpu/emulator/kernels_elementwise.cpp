// kernels/elementwise.cu compiled unchanged as host C++ for the emulator (BNSCOPE_EMULATED).
#include "../kernels/elementwise.cu"
