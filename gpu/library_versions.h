#pragma once
// The versions of the CUDA runtime and cuDNN bnscope runs with, as the loaded libraries report
// them. Asked without a device: what is installed, where device_query.h says what can run.

#include <cstddef>

namespace bnscope::gpu {

struct LibraryVersions {
  int runtime = 0;                // cudaRuntimeGetVersion: 1000*major + 10*minor
  int driver = 0;                 // cudaDriverGetVersion: the newest CUDA it runs; 0: no driver
  std::size_t cudnn = 0;          // cudnnGetVersion of the library loaded
  std::size_t cudnn_headers = 0;  // CUDNN_VERSION of the headers bnscope was built with
};

LibraryVersions library_versions();

}  // namespace bnscope::gpu
