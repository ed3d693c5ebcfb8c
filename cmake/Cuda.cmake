# Enables the CUDA language when a toolkit is present; without one the GPU backends report "not built".
# Sets BNSCOPE_HAVE_CUDA ON only when nvcc, the CUDA runtime, cuDNN 9 and the NVTX 3 headers are all
# found. Included (not add_subdirectory'd), so plain set() reaches the top level.
set(BNSCOPE_HAVE_CUDA OFF)
set(BNSCOPE_CUDA_MISSING "")

set(BNSCOPE_CUDA_ROOT "/usr/local/cuda" CACHE PATH "CUDA toolkit root searched for nvcc, cuDNN and NVTX")
if(NOT CMAKE_CUDA_COMPILER AND EXISTS "${BNSCOPE_CUDA_ROOT}/bin/nvcc")
  set(CMAKE_CUDA_COMPILER "${BNSCOPE_CUDA_ROOT}/bin/nvcc" CACHE FILEPATH "CUDA compiler")
endif()

include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER OR NOT EXISTS "${CMAKE_CUDA_COMPILER}")
  set(BNSCOPE_CUDA_MISSING "no CUDA toolkit at configure time")
endif()

if(NOT BNSCOPE_CUDA_MISSING)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80;90")
  endif()
  # CMake 3.25 knows no C++20 flag for nvcc 13; the kernels and the headers they include are C++17.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)

  find_path(BNSCOPE_CUDNN_INCLUDE_DIR cudnn.h
    HINTS ${BNSCOPE_CUDA_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS})
  find_library(BNSCOPE_CUDNN_LIBRARY cudnn
    HINTS ${BNSCOPE_CUDA_ROOT}/lib64 ${BNSCOPE_CUDA_ROOT}/lib ${CUDAToolkit_LIBRARY_DIR})
  find_path(BNSCOPE_NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h
    HINTS ${BNSCOPE_CUDA_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS})
  if(NOT BNSCOPE_CUDNN_INCLUDE_DIR OR NOT BNSCOPE_CUDNN_LIBRARY)
    set(BNSCOPE_CUDA_MISSING "no cuDNN (cudnn.h and libcudnn.so) at configure time")
  elseif(NOT BNSCOPE_NVTX3_INCLUDE_DIR)
    set(BNSCOPE_CUDA_MISSING "no NVTX 3 headers (nvtx3/nvToolsExt.h) at configure time")
  endif()
endif()

if(BNSCOPE_CUDA_MISSING)
  message(STATUS "bnscope: GPU backends not built: ${BNSCOPE_CUDA_MISSING}")
else()
  if(NOT TARGET bnscope::cudnn)
    add_library(bnscope::cudnn UNKNOWN IMPORTED)
    set_target_properties(bnscope::cudnn PROPERTIES
      IMPORTED_LOCATION "${BNSCOPE_CUDNN_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${BNSCOPE_CUDNN_INCLUDE_DIR}")
    add_library(bnscope::nvtx3 INTERFACE IMPORTED)
    set_target_properties(bnscope::nvtx3 PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${BNSCOPE_NVTX3_INCLUDE_DIR}")
  endif()
  set(BNSCOPE_HAVE_CUDA ON)
  message(STATUS "bnscope: GPU backends built for sm ${CMAKE_CUDA_ARCHITECTURES} "
                 "(nvcc ${CMAKE_CUDA_COMPILER_VERSION}, cuDNN ${BNSCOPE_CUDNN_LIBRARY})")
endif()
