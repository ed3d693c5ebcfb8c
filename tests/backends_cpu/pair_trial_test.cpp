// The rows reduce pass walks rows in pairs or one at a time, whichever timed chunks of the
// pass itself show faster (pair_trial.h). The choice must never change a bit, a trial must
// time only the chunks in the middle of a long span, alternating the walks, and the process
// keeps a walk only once two trials in a row agree.

#include "backends/cpu/pair_trial.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

using cpu::PairPolicy;
using cpu::PairTrial;
using cpu::PairVerdict;
using cpu::PairWalks;
using cpu::simd::Elem;

TEST(PairTrial, AVerdictNeedsAFivePercentGapInMedians) {
  EXPECT_EQ(cpu::pair_verdict({1.0, 1.0, 1.0}, {0.9, 0.9, 5.0}), PairVerdict::Rows);
  EXPECT_EQ(cpu::pair_verdict({0.9, 5.0, 0.9}, {1.0, 1.0, 1.0}), PairVerdict::Pairs);
  EXPECT_EQ(cpu::pair_verdict({1.0, 1.0, 1.0}, {0.96, 0.96, 0.96}), PairVerdict::None);
  EXPECT_EQ(cpu::pair_verdict({0.96, 0.96, 0.96}, {1.0, 1.0, 1.0}), PairVerdict::None);
  EXPECT_EQ(cpu::pair_verdict({}, {1.0}), PairVerdict::None);
  EXPECT_EQ(cpu::pair_verdict({1.0}, {}), PairVerdict::None);
}

TEST(PairTrial, AWalkIsKeptWhenTwoTrialsInARowSayIt) {
  PairWalks walks;
  EXPECT_FALSE(walks.pairs(256, Elem::F32).has_value());
  walks.add(256, Elem::F32, PairVerdict::Rows);
  EXPECT_FALSE(walks.pairs(256, Elem::F32).has_value());
  walks.add(256, Elem::F32, PairVerdict::Pairs);  // disagrees: starts over
  EXPECT_FALSE(walks.pairs(256, Elem::F32).has_value());
  walks.add(256, Elem::F32, PairVerdict::None);  // says nothing
  walks.add(256, Elem::F32, PairVerdict::Pairs);
  ASSERT_TRUE(walks.pairs(256, Elem::F32).has_value());
  EXPECT_TRUE(*walks.pairs(256, Elem::F32));
  walks.add(256, Elem::F32, PairVerdict::Rows);
  walks.add(256, Elem::F32, PairVerdict::Rows);
  EXPECT_TRUE(*walks.pairs(256, Elem::F32)) << "a decision is kept";
  EXPECT_EQ(walks.trials(256, Elem::F32), 6);
  // Keyed by lanes and element type.
  EXPECT_FALSE(walks.pairs(256, Elem::BF16).has_value());
  EXPECT_FALSE(walks.pairs(512, Elem::F32).has_value());
  walks.add(512, Elem::BF16, PairVerdict::Rows);
  walks.add(512, Elem::BF16, PairVerdict::Rows);
  EXPECT_FALSE(*walks.pairs(512, Elem::BF16));
  walks.clear();
  EXPECT_FALSE(walks.pairs(512, Elem::BF16).has_value());
  EXPECT_EQ(walks.trials(512, Elem::BF16), 0);
}

// Walks a span the way the reduce pass does, chunk i taking pairs_time or rows_time seconds;
// returns the walk of every chunk ('P' or 'R') and, in lower case, the timed ones.
std::string walk(PairTrial& trial, std::int64_t chunks, double pairs_time, double rows_time) {
  std::string seen;
  for (std::int64_t k = 0; k < chunks; ++k) {
    const bool pairs = trial.pairs();
    const char c = pairs ? 'P' : 'R';
    seen += trial.timed() ? static_cast<char>(c - 'A' + 'a') : c;
    trial.record(pairs ? pairs_time : rows_time);
  }
  return seen;
}

TEST(PairTrial, TimesAlternatingChunksInTheMiddleOfALongSpan) {
  PairWalks walks;
  const std::int64_t chunks = 100;
  const std::int64_t first = chunks / 2 - PairTrial::kTimed;
  const std::string window = "prrpprrpprrp";
  ASSERT_EQ(window.size(), 2u * PairTrial::kTimed);

  PairTrial one(256, Elem::F32, chunks, PairPolicy::Measure, walks);
  const std::string a = walk(one, chunks, 2.0, 1.0);
  EXPECT_EQ(a.substr(0, first), std::string(first, 'P'));
  EXPECT_EQ(a.substr(first, window.size()), window);
  // One verdict decides nothing yet: the span goes on in pairs.
  EXPECT_EQ(a.substr(first + window.size()), std::string(chunks - first - window.size(), 'P'));
  EXPECT_FALSE(walks.pairs(256, Elem::F32).has_value());

  PairTrial two(256, Elem::F32, chunks, PairPolicy::Measure, walks);
  const std::string b = walk(two, chunks, 2.0, 1.0);
  EXPECT_EQ(b.substr(first, window.size()), window);
  EXPECT_EQ(b.substr(first + window.size()), std::string(chunks - first - window.size(), 'R'))
      << "the second agreeing verdict decides the rest of its span";

  PairTrial three(256, Elem::F32, chunks, PairPolicy::Measure, walks);
  EXPECT_EQ(walk(three, chunks, 2.0, 1.0), std::string(chunks, 'R')) << "decided: no trial";
  EXPECT_EQ(walks.trials(256, Elem::F32), 2);
}

TEST(PairTrial, ShortSpansAndForcedPoliciesAreNotTimed) {
  PairWalks walks;
  PairTrial short_span(256, Elem::F32, PairTrial::kMinChunks - 1, PairPolicy::Measure, walks);
  EXPECT_EQ(walk(short_span, PairTrial::kMinChunks - 1, 2.0, 1.0),
            std::string(PairTrial::kMinChunks - 1, 'P'));
  PairTrial pairs(256, Elem::F32, 100, PairPolicy::Pairs, walks);
  EXPECT_EQ(walk(pairs, 100, 2.0, 1.0), std::string(100, 'P'));
  PairTrial rows(256, Elem::F32, 100, PairPolicy::Rows, walks);
  EXPECT_EQ(walk(rows, 100, 1.0, 2.0), std::string(100, 'R'));
  EXPECT_EQ(walks.trials(256, Elem::F32), 0);
}

Elem elem_of(DType dtype) {
  return dtype == DType::F32 ? Elem::F32 : dtype == DType::BF16 ? Elem::BF16 : Elem::F16;
}

struct EnvGuard {
  ~EnvGuard() { unsetenv("BNSCOPE_ROW_PAIRS"); }
};

// Channels-last training grads of 16384 rows of 256 channels: 64 chunks of 256 rows, past the
// caches, so the two-pass structure runs and one thread's span is long enough for a trial.
TEST(PairTrial, BothWalksAndTheTrialGiveTheSameBits) {
  if (std::getenv("BNSCOPE_ROW_PAIRS")) GTEST_SKIP() << "BNSCOPE_ROW_PAIRS forces the walk";
  EnvGuard guard;
  std::uint32_t seed = 40;
  for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
    const Variant v = sweep_variant(find_op("FusedBatchNormGradV3"), "NHWC", true, dtype,
                                    Shape{4, 64, 64, 256}, seed++);
    const Problem pb = make_problem(v);
    RunContext ctx;
    ctx.threads = 1;
    cpu::pair_walks().clear();
    const Result measured = run_problem(pb, "cpu", ctx);
    EXPECT_EQ(cpu::pair_walks().trials(256, elem_of(dtype)), 1)
        << describe(v) << ": the reduce pass ran one trial";
    setenv("BNSCOPE_ROW_PAIRS", "pairs", 1);
    expect_bitwise_equal(measured, run_problem(pb, "cpu", ctx), describe(v) + " pairs");
    setenv("BNSCOPE_ROW_PAIRS", "rows", 1);
    expect_bitwise_equal(measured, run_problem(pb, "cpu", ctx), describe(v) + " rows");
    unsetenv("BNSCOPE_ROW_PAIRS");
  }
  cpu::pair_walks().clear();
}

}  // namespace
}  // namespace bnscope::testing
