# Third-party libraries the engine links.
find_package(PkgConfig REQUIRED)
# zlib: deflated .npz members and the CRC-32; bnscope reads and writes the zip records itself,
# without a zip library (whose crypto and bzip2 dependencies would cost every process memory).
pkg_check_modules(ZLIB REQUIRED IMPORTED_TARGET zlib)
target_link_libraries(bnscope_core PUBLIC PkgConfig::ZLIB)

# Highway: the cpu backend's vector loops, one binary with runtime target dispatch. The kernels
# promise the same bits as their scalar tails on every target, so no fused multiply-adds there.
pkg_check_modules(HWY REQUIRED IMPORTED_TARGET libhwy)
target_link_libraries(bnscope_core PUBLIC PkgConfig::HWY)
# Every target is compiled into each Highway file, and under the sanitizers they are the slowest
# compiles of the build. SSSE3 without SSE4 (Core 2, the first Atoms) is left to the portable
# baseline; PUBLIC, so that the tests that enumerate targets see the same list.
target_compile_definitions(bnscope_core PUBLIC HWY_DISABLED_TARGETS=HWY_SSSE3)
# Each Highway file includes itself once per target (foreach_target): it stays out of unity
# batches, where that re-inclusion would meet another such file.
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/backends/cpu/simd_kernels.cpp
                            ${CMAKE_CURRENT_SOURCE_DIR}/backends/cpu/simd_affine.cpp
                            ${CMAKE_CURRENT_SOURCE_DIR}/backends/cpu/simd_global_half.cpp
                            ${CMAKE_CURRENT_SOURCE_DIR}/backends/cpu/simd_channels.cpp
                            ${CMAKE_CURRENT_SOURCE_DIR}/analysis/diff_scan.cpp
                            PROPERTIES COMPILE_OPTIONS "-ffp-contract=off" SKIP_UNITY_BUILD_INCLUSION ON)
