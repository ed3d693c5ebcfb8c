// SeededRng::normals runs Box-Muller's steps over a batch; it must give normal()'s values bit for
// bit and leave the generator where the same number of normal() calls would.

#include "tensor/seeded_rng.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace bnscope {
namespace {

TEST(SeededRng, NormalsAreNormalBitForBit) {
  for (int n : {0, 1, 255, 256, 257, 1000}) {
    SeededRng one(42), batch(42);
    std::vector<double> want(static_cast<std::size_t>(n)), got(want.size());
    for (double& v : want) v = one.normal();
    batch.normals(got.data(), n);
    EXPECT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(double)), 0) << n;
    EXPECT_EQ(one.next(), batch.next()) << "generator state after " << n << " values";
  }
}

}  // namespace
}  // namespace bnscope
