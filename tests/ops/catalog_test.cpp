#include "ops/catalog.h"

#include <gtest/gtest.h>

namespace bnscope {
TEST(Catalog, HasTheEightOps) {
  EXPECT_EQ(op_catalog().size(), 8u);
}
}  // namespace bnscope
