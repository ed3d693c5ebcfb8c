#include "library_versions.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace bnscope::gpu {

LibraryVersions library_versions() {
  LibraryVersions v;
  if (cudaRuntimeGetVersion(&v.runtime) != cudaSuccess) v.runtime = 0;
  if (cudaDriverGetVersion(&v.driver) != cudaSuccess) v.driver = 0;
  cudaGetLastError();
  v.cudnn = cudnnGetVersion();
  v.cudnn_headers = CUDNN_VERSION;
  return v;
}

}  // namespace bnscope::gpu
