// The rows reduce pass walks rows in pairs or one at a time, whichever timed chunks of the
// pass itself show faster (pair_trial.h). The choice must never change a bit, a trial must
// time only the chunks in the middle of a long span, alternating the walks, and the process
// keeps a walk only once two trials in a row agree.

#include "backends/cpu/pair_trial.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cpu/host_caches.h"
#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

using cpu::PairKey;
using cpu::PairPolicy;
using cpu::PairTrial;
using cpu::PairVerdict;
using cpu::PairWalks;
using cpu::simd::Elem;

const PairKey k256{256, Elem::F32, true};
const PairKey k512{512, Elem::BF16, true};

TEST(PairTrial, AVerdictNeedsATenPercentGapInMedians) {
  EXPECT_EQ(cpu::pair_verdict({1.0, 1.0, 1.0}, {0.85, 0.85, 5.0}), PairVerdict::Rows);
  EXPECT_EQ(cpu::pair_verdict({0.85, 5.0, 0.85}, {1.0, 1.0, 1.0}), PairVerdict::Pairs);
  EXPECT_EQ(cpu::pair_verdict({1.0, 1.0, 1.0}, {0.92, 0.92, 0.92}), PairVerdict::None);
  EXPECT_EQ(cpu::pair_verdict({0.92, 0.92, 0.92}, {1.0, 1.0, 1.0}), PairVerdict::None);
  EXPECT_EQ(cpu::pair_verdict({}, {1.0}), PairVerdict::None);
  EXPECT_EQ(cpu::pair_verdict({1.0}, {}), PairVerdict::None);
}

TEST(PairTrial, PairsAreKeptAfterEightTrialsWithoutADecision) {
  PairWalks walks;
  const PairKey key{64, Elem::F16, true};
  const PairVerdict flips[] = {PairVerdict::Rows, PairVerdict::Pairs, PairVerdict::None};
  for (int i = 0; i + 1 < PairWalks::kMaxTrials; ++i) {
    walks.add(key, flips[i % 3]);
    ASSERT_FALSE(walks.pairs(key).has_value()) << "trial " << i + 1;
  }
  walks.add(key, PairVerdict::None);  // the eighth says nothing either
  ASSERT_TRUE(walks.pairs(key).has_value());
  EXPECT_TRUE(*walks.pairs(key));
  EXPECT_EQ(walks.trials(key), PairWalks::kMaxTrials);
}

TEST(PairTrial, AWalkIsKeptWhenTwoTrialsInARowSayIt) {
  PairWalks walks;
  EXPECT_FALSE(walks.pairs(k256).has_value());
  walks.add(k256, PairVerdict::Rows);
  EXPECT_FALSE(walks.pairs(k256).has_value());
  walks.add(k256, PairVerdict::Pairs);  // disagrees: starts over
  EXPECT_FALSE(walks.pairs(k256).has_value());
  walks.add(k256, PairVerdict::None);  // says nothing
  walks.add(k256, PairVerdict::Pairs);
  ASSERT_TRUE(walks.pairs(k256).has_value());
  EXPECT_TRUE(*walks.pairs(k256));
  walks.add(k256, PairVerdict::Rows);
  walks.add(k256, PairVerdict::Rows);
  EXPECT_TRUE(*walks.pairs(k256)) << "a decision is kept";
  EXPECT_EQ(walks.trials(k256), 4) << "trials after the decision do not count";
  // Keyed by lanes and element type.
  EXPECT_FALSE(walks.pairs({256, Elem::BF16}).has_value());
  EXPECT_FALSE(walks.pairs({512, Elem::F32}).has_value());
  EXPECT_FALSE(walks.pairs({256, Elem::F32, false}).has_value()) << "nor for a pass within the LLC";
  walks.add(k512, PairVerdict::Rows);
  walks.add(k512, PairVerdict::Rows);
  EXPECT_FALSE(*walks.pairs(k512));
  walks.add({64, Elem::F16, false}, PairVerdict::None);
  EXPECT_EQ(
      walks.describe(),
      "256 lanes float32 past the LLC: pairs (4 trials); 512 lanes bfloat16 past the LLC: rows "
      "(2 trials); 64 lanes float16 within the LLC: undecided (1 trial)");
  walks.clear();
  EXPECT_FALSE(walks.pairs(k512).has_value());
  EXPECT_EQ(walks.trials(k512), 0);
  EXPECT_EQ(walks.describe(), "");
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

  PairTrial one(k256, chunks, true, PairPolicy::Measure, walks);
  const std::string a = walk(one, chunks, 2.0, 1.0);
  EXPECT_EQ(a.substr(0, first), std::string(first, 'P'));
  EXPECT_EQ(a.substr(first, window.size()), window);
  // One verdict decides nothing yet: the span goes on in pairs.
  EXPECT_EQ(a.substr(first + window.size()), std::string(chunks - first - window.size(), 'P'));
  EXPECT_FALSE(walks.pairs(k256).has_value());

  PairTrial two(k256, chunks, true, PairPolicy::Measure, walks);
  const std::string b = walk(two, chunks, 2.0, 1.0);
  EXPECT_EQ(b.substr(first, window.size()), window);
  EXPECT_EQ(b.substr(first + window.size()), std::string(chunks - first - window.size(), 'R'))
      << "the second agreeing verdict decides the rest of its span";

  PairTrial three(k256, chunks, true, PairPolicy::Measure, walks);
  EXPECT_EQ(walk(three, chunks, 2.0, 1.0), std::string(chunks, 'R')) << "decided: no trial";
  EXPECT_EQ(walks.trials(k256), 2);
}

TEST(PairTrial, ShortSpansForcedPoliciesAndOtherThreadsAreNotTimed) {
  PairWalks walks;
  PairTrial short_span(k256, PairTrial::kMinChunks - 1, true, PairPolicy::Measure, walks);
  EXPECT_EQ(walk(short_span, PairTrial::kMinChunks - 1, 2.0, 1.0),
            std::string(PairTrial::kMinChunks - 1, 'P'));
  PairTrial pairs(k256, 100, true, PairPolicy::Pairs, walks);
  EXPECT_EQ(walk(pairs, 100, 2.0, 1.0), std::string(100, 'P'));
  PairTrial rows(k256, 100, true, PairPolicy::Rows, walks);
  EXPECT_EQ(walk(rows, 100, 1.0, 2.0), std::string(100, 'R'));
  PairTrial other_thread(k256, 100, false, PairPolicy::Measure, walks);
  EXPECT_EQ(walk(other_thread, 100, 2.0, 1.0), std::string(100, 'P'));
  EXPECT_EQ(walks.trials(k256), 0);
}

Elem elem_of(DType dtype) {
  return dtype == DType::F32 ? Elem::F32 : dtype == DType::BF16 ? Elem::BF16 : Elem::F16;
}

struct EnvGuard {
  ~EnvGuard() { unsetenv("BNSCOPE_ROW_PAIRS"); }
};

// Channels-last training grads of 16384 rows of 256 channels: 64 chunks of 256 rows, past the
// caches (x and dy 32 MiB in float32, 16 MiB in 16 bits: more than the L2 keeps for a single
// sweep), so the two-pass structure runs and one thread's span is long enough for a trial.
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
    const double read = 2.0 * 4 * 64 * 64 * 256 * static_cast<double>(dtype_size(dtype));
    const PairKey key{256, elem_of(dtype),
                      read > static_cast<double>(cpu::host_caches().llc_bytes())};
    EXPECT_EQ(cpu::pair_walks().trials(key), 1) << describe(v) << ": the reduce pass ran one trial";
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
