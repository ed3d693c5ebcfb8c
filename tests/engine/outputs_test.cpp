// Output sets made ahead of a run: the same outputs as a finished run, their pages written once.

#include "engine/outputs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "engine/engine.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

Result sample_run() {
  SampleSpec spec;
  spec.shape = {2, 40, 40, 8};  // x_backprop: 100 KiB, many pages
  return run_problem(random_problem(spec), "cpu");
}

TEST(OutputsLike, SameOutputsOwnBuffers) {
  const Result run = sample_run();
  const Result like = outputs_like(run);
  EXPECT_EQ(like.op, run.op);
  ASSERT_EQ(like.outputs.size(), run.outputs.size());
  for (std::size_t i = 0; i < run.outputs.size(); ++i) {
    const OutputTensor &a = like.outputs[i], &b = run.outputs[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.defined, b.defined);
    EXPECT_EQ(a.tensor.dtype(), b.tensor.dtype());
    EXPECT_EQ(a.tensor.shape(), b.tensor.shape());
    EXPECT_FALSE(a.tensor.shares_storage_with(b.tensor)) << a.name;
  }
}

TEST(FaultIn, WritesEveryPageOfBuffersItHoldsAlone) {
  Result r = outputs_like(sample_run());
  Tensor& data = r.outputs.front().tensor;
  ASSERT_GT(data.nbytes(), std::size_t{4 * 4096});
  std::memset(data.raw(), 0x5a, data.nbytes());
  Result shared = outputs_like(r);
  std::memset(shared.outputs.front().tensor.raw(), 0x5a, shared.outputs.front().tensor.nbytes());
  const Tensor other_handle = shared.outputs.front().tensor;  // someone else reads it

  fault_in(r);
  fault_in(shared);
  const auto* bytes = static_cast<const unsigned char*>(std::as_const(data).raw());
  for (std::size_t at = 0; at < data.nbytes(); at += 4096) EXPECT_EQ(bytes[at], 0u) << at;
  const auto* untouched = static_cast<const unsigned char*>(other_handle.raw());
  for (std::size_t at = 0; at < other_handle.nbytes(); at += 4096)
    EXPECT_EQ(untouched[at], 0x5au) << at;
}

}  // namespace
}  // namespace bnscope
