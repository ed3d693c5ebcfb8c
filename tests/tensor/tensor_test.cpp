#include "tensor/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "tensor/error.h"

namespace bnscope {

TEST(Shape, CountsAndFormatsLikeTensorFlow) {
  EXPECT_EQ(num_elements({2, 3, 4}), 24);
  EXPECT_EQ(num_elements({}), 1);
  EXPECT_EQ(num_elements({5, 0, 7}), 0);
  EXPECT_EQ(shape_str({2, 1}), "[2,1]");
  EXPECT_EQ(shape_str({}), "[]");
}

TEST(Shape, RejectsNegativeDimsAndOverflow) {
  EXPECT_THROW(num_elements({2, -1}), Error);
  EXPECT_THROW(num_elements({INT64_MAX / 2, 3}), Error);
  EXPECT_THROW(num_elements({1 << 20, 1 << 20, 1 << 20, 1 << 20}), Error);
}

TEST(Tensor, ZeroFilledAlignedAndCopiedByValue) {
  Tensor t(DType::F32, {3, 5});
  EXPECT_EQ(t.numel(), 15);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.raw()) % 64, 0u);
  for (std::int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.get(i), 0.0);
  t.set(4, 2.5);
  Tensor copy = t;
  copy.set(4, -1);
  EXPECT_EQ(t.get(4), 2.5);
  EXPECT_EQ(copy.get(4), -1);
}

TEST(Tensor, ConvertsBetweenEveryDType) {
  const std::vector<double> v{0.5, -1.25, 3.0, 1024.0};
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes) {
      const Tensor t = Tensor::from_doubles(from, {2, 2}, v).to(to);
      EXPECT_EQ(t.dtype(), to);
      EXPECT_EQ(t.to_doubles(), v) << dtype_name(from) << "->" << dtype_name(to);
    }
  EXPECT_EQ(Tensor::from_doubles(DType::F16, {1}, std::vector<double>{0.1}).get(0),
            static_cast<double>(half_bits_to_float(float_to_half_bits(0.1f))));
}

// The bulk conversions dispatch once per tensor; they must agree with get/set element by element.
TEST(Tensor, BulkDoublesMatchElementAccess) {
  const std::vector<double> v = {1.0, -0.1, 65519.0, 1e-8, -3.0e38, 0.5};
  for (DType dt : kAllDTypes) {
    Tensor bulk(dt, {6}), single(dt, {6});
    bulk.set_doubles(v);
    for (std::int64_t i = 0; i < 6; ++i) single.set(i, v[static_cast<std::size_t>(i)]);
    EXPECT_EQ(std::memcmp(bulk.raw(), single.raw(), bulk.nbytes()), 0) << dtype_name(dt);
    const std::vector<double> back = bulk.to_doubles();
    for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(back[i], single.get(i)) << dtype_name(dt);
    Tensor prefix(dt, {6});
    prefix.set_doubles(std::vector<double>{7.0, 8.0});  // a shorter vector writes a prefix
    EXPECT_EQ(prefix.get(1), 8.0);
    EXPECT_EQ(prefix.get(2), 0.0);
  }
}

TEST(Tensor, TypedAccessChecksTheDType) {
  Tensor t(DType::BF16, {2});
  EXPECT_NO_THROW(t.data<bf16>());
  EXPECT_THROW(t.data<float>(), Error);
}

TEST(Tensor, CopiesShareStorageUntilOneIsWritten) {
  Tensor t(DType::F32, {3, 5});
  t.set(0, 1.5);
  Tensor copy = t;
  const Tensor& ct = t;
  EXPECT_TRUE(copy.shares_storage_with(t));
  EXPECT_EQ(static_cast<const Tensor&>(copy).raw(), ct.raw());  // reading does not copy
  copy.set(0, 7);                                               // writing does
  EXPECT_FALSE(copy.shares_storage_with(t));
  EXPECT_EQ(t.get(0), 1.5);
  EXPECT_EQ(copy.get(0), 7);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(copy.raw()) % 64, 0u);
  // A reset that keeps the size must not write into storage another tensor still holds.
  Tensor again = t;
  again.reset(DType::F32, {15});
  EXPECT_FALSE(again.shares_storage_with(t));
  EXPECT_EQ(t.get(0), 1.5);
}

TEST(Tensor, UninitializedAndLargeBuffersAreAligned) {
  const Tensor small = Tensor::uninitialized(DType::F16, {7});
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.raw()) % 64, 0u);
  const Tensor big = Tensor::uninitialized(DType::F32, {3, 1 << 20});
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.raw()) % (2u << 20), 0u);
  EXPECT_EQ(big.numel(), 3 << 20);
}

TEST(Tensor, ResetKeepsTheAllocationWhenTheSizeMatches) {
  Tensor t(DType::F32, {4, 4});
  const void* before = t.raw();
  t.reset(DType::F32, {2, 8});
  EXPECT_EQ(t.raw(), before);
  EXPECT_EQ(t.shape(), (Shape{2, 8}));
  t.reset(DType::F64, {2, 8});
  EXPECT_EQ(t.dtype(), DType::F64);
  EXPECT_EQ(t.numel(), 16);
}

TEST(Tensor, ReshapeNeedsTheSameCount) {
  const Tensor t(DType::F32, {2, 6});
  EXPECT_EQ(t.reshaped({3, 4}).shape(), (Shape{3, 4}));
  EXPECT_THROW(t.reshaped({5}), Error);
}

TEST(Tensor, AbsurdSizeIsAnErrorNotACrash) {
  EXPECT_THROW(Tensor(DType::F64, {INT64_MAX / 4}), Error);
}

}  // namespace bnscope

#include "tensor/memory_limit.h"

namespace bnscope {

TEST(MemoryLimit, TensorsOverTheLimitAreRefusedBeforeAllocation) {
  set_memory_limit_bytes(1 << 20);
  EXPECT_NO_THROW(Tensor(DType::F32, {256, 256}));
  try {
    Tensor(DType::F32, {1024, 1024});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("[1024,1024]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("memory limit"), std::string::npos) << e.what();
  }
  set_memory_limit_bytes(0);
  EXPECT_GT(memory_limit_bytes(), std::uint64_t{1} << 20);
}

// Storage from elsewhere (a shared-memory segment) is held, read in place and copied before a
// write while its owner still holds it.
TEST(Tensor, AdoptsStorageItDoesNotOwn) {
  alignas(64) static float values[6] = {1, 2, 3, 4, 5, 6};
  auto owner = std::make_shared<int>(0);
  std::shared_ptr<std::byte> storage(owner, reinterpret_cast<std::byte*>(values));
  Tensor t = Tensor::adopt(DType::F32, {2, 3}, storage);
  EXPECT_EQ(std::as_const(t).raw(), static_cast<const void*>(values));  // read in place
  EXPECT_EQ(t.get(4), 5.0);
  EXPECT_EQ(owner.use_count(), 3);  // owner, storage, the tensor
  t.set(0, 9);                      // another handle holds it: the tensor copies first
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(t.get(0), 9.0);
  EXPECT_EQ(t.get(5), 6.0);
  EXPECT_THROW(Tensor::adopt(DType::F32, {2}, nullptr), Error);
}

}  // namespace bnscope
