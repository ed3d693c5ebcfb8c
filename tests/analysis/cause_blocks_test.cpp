// A cause confirmed on every channel a block at a time: the same verdict, worst figures and
// squared error as one re-run of the whole problem, and on a real-size layer the cause the
// whole re-run finds, with what it says checked by running its fix directly.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/cause_finder.h"
#include "analysis/causes/catalog.h"
#include "analysis/causes/channels.h"
#include "analysis/causes/search.h"
#include "engine/engine.h"
#include "ops/catalog.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

using causes::Score;
using causes::Search;
using causes::Trial;

// cuDNN's reserve convention read as TensorFlow's: the fix is a re-run with the other one.
struct Trap {
  Problem user;
  Result expected;
};
Trap convention_trap(const Shape& shape, DataFormat format) {
  SampleSpec spec;
  spec.shape = shape;
  spec.format = format;
  spec.convention = ReserveConvention::InvStd;
  Trap t;
  const Problem truth = random_problem(spec);
  t.expected = run_problem(truth, "cpu-reference");
  t.user = truth;
  t.user.convention = ReserveConvention::Variance;
  return t;
}

// Where the error is the trap's (far past tolerance), blocks and the whole problem measure it
// alike; where a fix leaves only rounding, each re-run rounds in its own walk's order, so both
// just pass with figures at rounding's level.
void expect_same_score(const Score& whole, const Score& blocks, const char* what) {
  EXPECT_TRUE(whole.ran && blocks.ran) << what;
  EXPECT_EQ(whole.passed, blocks.passed) << what;
  EXPECT_NEAR(blocks.ratio, whole.ratio, 1e-3 * whole.ratio) << what;
  EXPECT_NEAR(blocks.max_abs, whole.max_abs, 1e-3 * whole.max_abs) << what;
  EXPECT_NEAR(blocks.sq, whole.sq, 1e-3 * whole.sq) << what;
}
constexpr double kRounding = 0.1;  // a passing re-run's worst ratio: rounding, not a trap

TEST(CauseBlocks, BlocksScoreAsTheWholeProblem) {
  for (const DataFormat format : {DataFormat::NHWC, DataFormat::NCHW}) {
    const Trap t = convention_trap({2, 5, 4, 12}, format);
    const OpSpec& op = *find_op(t.user.op);
    const Result got = run_problem(t.user, "cpu");
    const Comparison before =
        compare_results("expected", t.expected.outputs, "cpu", got.outputs, {});
    ASSERT_FALSE(before.passed);
    const Search s(t.user, op, got, t.expected.outputs, {}, before, {});
    const Trial as_is;
    const Score whole = s.score(as_is, s.whole());
    ASSERT_GT(whole.ratio, 10.0);
    const std::vector<Trial> fixes = causes::detect_convention(s, Trial{});
    ASSERT_FALSE(fixes.empty());
    const Score fixed_whole = s.score(fixes.front(), s.whole());
    ASSERT_TRUE(fixed_whole.passed);
    for (const std::int64_t per_block : {1, 5, 7, 12, 40}) {
      expect_same_score(whole, s.score_in_blocks(as_is, per_block), "as is");
      const Score fixed = s.score_in_blocks(fixes.front(), per_block);
      EXPECT_TRUE(fixed.ran && fixed.passed) << per_block;
      EXPECT_LT(fixed.ratio, kRounding) << per_block;
      EXPECT_LT(fixed.sq, 1e-6 * whole.sq) << per_block;
    }
  }
}

// Picked channels, consecutive or not, a few or a row of them (copied a run at a time, gathered
// element by element otherwise): every element as indexed, in both layouts and every width.
TEST(CauseBlocks, ABlockOfChannelsHoldsThoseChannels) {
  std::vector<std::int64_t> wide(120);
  for (std::size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<std::int64_t>(i) + 40;
  const std::vector<std::vector<std::int64_t>> picks = {{3, 4, 5, 6}, {0, 2, 7}, {8}, wide};
  for (const bool last : {true, false})
    for (const DType dt : {DType::F16, DType::BF16, DType::F32, DType::F64})
      for (const auto& block : picks) {
        const std::int64_t c = block.size() > 10 ? 200 : 9;
        const Shape shape = last ? Shape{2, 3, 4, c} : Shape{2, c, 3, 4};
        std::vector<double> v(static_cast<std::size_t>(num_elements(shape)));
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 1000);
        const Tensor t = Tensor::from_doubles(dt, shape, v);
        const ChannelView view = channel_view(shape, last);
        const Tensor b = causes::take_channels(t, view, last, block);
        const ChannelView bv = channel_view(b.shape(), last);
        const auto k = static_cast<std::int64_t>(block.size());
        ASSERT_EQ(bv.channels, k);
        for (std::int64_t o = 0; o < view.outer; ++o)
          for (std::int64_t i = 0; i < k; ++i)
            for (std::int64_t j = 0; j < view.inner; ++j)
              ASSERT_EQ(b.get(bv.index(o, i, j)), t.get(view.index(o, block[i], j)))
                  << last << " " << dtype_name(dt) << " " << k << " channels";
      }
}

// A score's squared error: for each output, the squared differences over the reference's squares
// (where the difference is finite), summed over the outputs, whatever types the candidate's
// outputs are stored in (a half-precision run's data output against a float32 reference).
TEST(CauseBlocks, ASquaredErrorScoreSumsEveryOutputInEveryStoredType) {
  const Trap t = convention_trap({3, 5, 4, 12}, DataFormat::NHWC);
  const OpSpec& op = *find_op(t.user.op);
  const Result got = run_problem(t.user, "cpu");
  const Comparison before = compare_results("expected", t.expected.outputs, "cpu", got.outputs, {});
  const Search s(t.user, op, got, t.expected.outputs, {}, before, {});
  for (const DType dt : kAllDTypes) {
    std::vector<OutputTensor> outs = got.outputs;
    for (OutputTensor& o : outs)
      if (o.defined && o.tensor.rank() == 4) o.tensor = o.tensor.to(dt);
    outs[0].tensor.set(7, std::numeric_limits<double>::infinity());  // not summed
    double want = 0;
    for (const OutputTensor& e : t.expected.outputs) {
      if (!e.defined) continue;
      for (const OutputTensor& o : outs) {
        if (o.name != e.name || !o.defined || o.tensor.numel() != e.tensor.numel()) continue;
        double err = 0, ref = 0;
        for (std::int64_t i = 0; i < e.tensor.numel(); ++i) {
          const double d = o.tensor.get(i) - e.tensor.get(i);
          if (std::isfinite(d)) err += d * d, ref += e.tensor.get(i) * e.tensor.get(i);
        }
        want += err / (ref + 1e-300);
      }
    }
    ASSERT_GT(want, 0.0);
    EXPECT_NEAR(s.score_outputs(outs, s.whole()).sq, want, 1e-12 * want) << dtype_name(dt);
  }
}

// A block of a real-size tensor is copied on every core, a range of rows each: every element as
// indexed still, in both layouts, for a block and for scattered channels.
TEST(CauseBlocks, ALargeBlockIsCopiedInPartsAsIndexed) {
  for (const bool last : {true, false}) {
    const Shape shape = last ? Shape{64, 32, 32, 64} : Shape{64, 64, 32, 32};
    std::vector<double> v(static_cast<std::size_t>(num_elements(shape)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 4093);
    const Tensor t = Tensor::from_doubles(DType::F32, shape, v);
    const ChannelView view = channel_view(shape, last);
    std::vector<std::int64_t> block(10);
    std::iota(block.begin(), block.end(), 20);
    for (const auto& pick : {block, std::vector<std::int64_t>{1, 5, 9, 33, 60, 61, 62, 63, 2, 7}}) {
      const Tensor b = causes::take_channels(t, view, last, pick);
      ASSERT_GT(b.nbytes(), std::size_t{2} << 20);  // past one part's worth
      const ChannelView bv = channel_view(b.shape(), last);
      const float* got = b.data<float>();
      const float* from = t.data<float>();
      std::int64_t wrong = 0;
      for (std::int64_t o = 0; o < view.outer; ++o)
        for (std::int64_t i = 0; i < bv.channels; ++i)
          for (std::int64_t j = 0; j < view.inner; ++j)
            wrong +=
                got[bv.index(o, i, j)] != from[view.index(o, pick[static_cast<std::size_t>(i)], j)];
      EXPECT_EQ(wrong, 0) << last;
    }
  }
}

// Past Search::kWholeBytes of data, confirmation goes by blocks: the cause and what it says hold
// for the whole problem, its fix run directly.
TEST(CauseBlocks, ARealSizeLayerIsConfirmedByBlocks) {
  const Shape shape{20, 32, 32, 256};  // 21 MB of float32 x
  const Trap t = convention_trap(shape, DataFormat::NHWC);
  ASSERT_GT(t.user.inputs.at("x").nbytes(), Search::kWholeBytes);
  const std::vector<Cause> causes =
      find_causes(t.user, run_problem(t.user, "cpu"), t.expected.outputs, {});
  ASSERT_FALSE(causes.empty());
  EXPECT_EQ(causes[0].code, "reserve-convention");
  EXPECT_TRUE(causes[0].resolves);
  const std::optional<Problem> fixed = apply_cause_fix(t.user, causes[0]);
  ASSERT_TRUE(fixed);
  const Comparison direct = compare_results("expected", t.expected.outputs, "fixed",
                                            run_problem(*fixed, "cpu").outputs, {});
  EXPECT_TRUE(direct.passed);
  EXPECT_LT(direct.worst_tolerance_ratio(), kRounding);
  EXPECT_GT(causes[0].before, 10.0);
  EXPECT_LT(causes[0].after, kRounding);
}

}  // namespace
}  // namespace bnscope
