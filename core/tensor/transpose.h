#pragma once
// The matrix transpose under the layout conversions (layout.h): one batch element is a
// spatial x channels matrix one way and channels x spatial the other.

#include <cstddef>
#include <cstdint>

namespace bnscope {

// dst (cols x rows) = src (rows x cols) transposed, for src rows [r0, r1) (dst columns). Elements
// of element_size bytes are moved as bytes; src and dst must not overlap. Any element size;
// 2, 4 and 8 take vector tile transposes where the CPU has them, every other size a scalar tile
// loop, with the same bytes on every path.
void transpose_rows(std::size_t element_size, const std::byte* src, std::byte* dst,
                    std::int64_t rows, std::int64_t cols, std::int64_t r0, std::int64_t r1);

// The portable path alone, whatever the CPU: for the tests to hold the vector path to.
void transpose_rows_scalar(std::size_t element_size, const std::byte* src, std::byte* dst,
                           std::int64_t rows, std::int64_t cols, std::int64_t r0, std::int64_t r1);

}  // namespace bnscope
