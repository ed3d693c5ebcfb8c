// The rows reduce pass walks rows in pairs or one at a time, the single sweep and the training
// reduce pass of wide rows in tiles or rows, and the rows passes with or without their software
// prefetch, whichever timed chunks of the pass itself show faster (walk_trial.h). The choice must
// never change a bit, a trial must time only the chunks in the middle of a span long enough,
// alternating the walks, and the process keeps a walk only once two trials in a row agree.

#include "backends/cpu/walk_trial.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/host_caches.h"
#include "backends/cpu/kernels.h"
#include "engine/engine.h"
#include "problem_maker.h"

namespace bnscope::testing {
namespace {

using cpu::WalkKey;
using cpu::Walks;
using cpu::WalkTrial;
using cpu::WalkVerdict;
using cpu::simd::Elem;

const WalkKey k256{256, Elem::F32, true};
const WalkKey k512{512, Elem::BF16, true};

TEST(WalkTrial, AVerdictNeedsATenPercentGapInMedians) {
  EXPECT_EQ(cpu::walk_verdict({1.0, 1.0, 1.0}, {0.85, 0.85, 5.0}), WalkVerdict::Second);
  EXPECT_EQ(cpu::walk_verdict({0.85, 5.0, 0.85}, {1.0, 1.0, 1.0}), WalkVerdict::First);
  EXPECT_EQ(cpu::walk_verdict({1.0, 1.0, 1.0}, {0.92, 0.92, 0.92}), WalkVerdict::None);
  EXPECT_EQ(cpu::walk_verdict({0.92, 0.92, 0.92}, {1.0, 1.0, 1.0}), WalkVerdict::None);
  EXPECT_EQ(cpu::walk_verdict({}, {1.0}), WalkVerdict::None);
  EXPECT_EQ(cpu::walk_verdict({1.0}, {}), WalkVerdict::None);
}

TEST(WalkTrial, ThePrefetchTrialsJudgeAFivePercentGap) {
  // A 7% gap: nothing for the pairs and tiles trials, a verdict for the prefetch trials, whose
  // effects are 5-17% (walk_trial.cpp).
  const std::vector<double> slow{1.0, 1.0, 1.0}, fast{0.93, 0.93, 0.93}, near{0.97, 0.97, 0.97};
  EXPECT_EQ(cpu::walk_verdict(slow, fast, cpu::pair_walks().threshold()), WalkVerdict::None);
  EXPECT_EQ(cpu::walk_verdict(slow, fast, cpu::tile_walks().threshold()), WalkVerdict::None);
  for (cpu::RowsPass pass : {cpu::RowsPass::Reduce, cpu::RowsPass::Write, cpu::RowsPass::Single}) {
    const double threshold = cpu::prefetch_walks(pass).threshold();
    EXPECT_EQ(cpu::walk_verdict(slow, fast, threshold), WalkVerdict::Second);
    EXPECT_EQ(cpu::walk_verdict(fast, slow, threshold), WalkVerdict::First);
    EXPECT_EQ(cpu::walk_verdict(slow, near, threshold), WalkVerdict::None);
  }
}

TEST(WalkTrial, PairsAreKeptAfterEightTrialsWithoutADecision) {
  Walks walks("pairs", "rows");
  const WalkKey key{64, Elem::F16, true};
  const WalkVerdict flips[] = {WalkVerdict::Second, WalkVerdict::First, WalkVerdict::None};
  for (int i = 0; i + 1 < Walks::kMaxTrials; ++i) {
    walks.add(key, flips[i % 3]);
    ASSERT_FALSE(walks.first(key).has_value()) << "trial " << i + 1;
  }
  walks.add(key, WalkVerdict::None);  // the eighth says nothing either
  ASSERT_TRUE(walks.first(key).has_value());
  EXPECT_TRUE(*walks.first(key));
  EXPECT_EQ(walks.trials(key), Walks::kMaxTrials);
}

TEST(WalkTrial, AfterEightUndecidedTrialsTheWalkFasterOverAllOfThemIsKept) {
  // Every trial 3% apart (under either threshold) in the second walk's favour, one outlier the
  // other way: the second is kept.
  for (Walks* w : {&cpu::pair_walks(), &cpu::prefetch_walks(cpu::RowsPass::Write)}) {
    Walks walks("a", "b", nullptr, w->threshold());
    const WalkKey key{256, Elem::F32, true};
    for (int i = 0; i < Walks::kMaxTrials; ++i) {
      const std::vector<double> first{1.0, 1.0, 1.0};
      const std::vector<double> second(3, i == 3 ? 1.05 : 0.97);
      walks.add(key, cpu::walk_verdict(first, second, walks.threshold()),
                cpu::walk_ratio(first, second));
    }
    ASSERT_TRUE(walks.first(key).has_value());
    EXPECT_FALSE(*walks.first(key)) << "threshold " << w->threshold();
  }
  EXPECT_DOUBLE_EQ(cpu::walk_ratio({2.0, 2.0, 9.0}, {1.0, 1.0, 1.0}), 0.5);
  EXPECT_DOUBLE_EQ(cpu::walk_ratio({}, {1.0}), 1.0);
  EXPECT_DOUBLE_EQ(cpu::walk_ratio({0.0}, {1.0}), 1.0);
}

TEST(WalkTrial, AWalkIsKeptWhenTwoTrialsInARowSayIt) {
  Walks walks("pairs", "rows");
  EXPECT_FALSE(walks.first(k256).has_value());
  walks.add(k256, WalkVerdict::Second);
  EXPECT_FALSE(walks.first(k256).has_value());
  walks.add(k256, WalkVerdict::First);  // disagrees: starts over
  EXPECT_FALSE(walks.first(k256).has_value());
  walks.add(k256, WalkVerdict::None);  // says nothing
  walks.add(k256, WalkVerdict::First);
  ASSERT_TRUE(walks.first(k256).has_value());
  EXPECT_TRUE(*walks.first(k256));
  walks.add(k256, WalkVerdict::Second);
  walks.add(k256, WalkVerdict::Second);
  EXPECT_TRUE(*walks.first(k256)) << "a decision is kept";
  EXPECT_EQ(walks.trials(k256), 4) << "trials after the decision do not count";
  // Keyed by lanes and element type.
  EXPECT_FALSE(walks.first({256, Elem::BF16}).has_value());
  EXPECT_FALSE(walks.first({512, Elem::F32}).has_value());
  EXPECT_FALSE(walks.first({256, Elem::F32, false}).has_value()) << "nor for a pass within the LLC";
  walks.add(k512, WalkVerdict::Second);
  walks.add(k512, WalkVerdict::Second);
  EXPECT_FALSE(*walks.first(k512));
  walks.add({64, Elem::F16, false}, WalkVerdict::None);
  EXPECT_EQ(
      walks.describe(),
      "256 lanes float32 past the LLC: pairs (4 trials); 512 lanes bfloat16 past the LLC: rows "
      "(2 trials); 64 lanes float16 within the LLC: undecided (1 trial)");
  walks.clear();
  EXPECT_FALSE(walks.first(k512).has_value());
  EXPECT_EQ(walks.trials(k512), 0);
  EXPECT_EQ(walks.describe(), "");
}

// Walks a span the way the reduce pass does, chunk i taking pairs_time or rows_time seconds;
// returns the walk of every chunk ('P' or 'R') and, in lower case, the timed ones.
std::string walk(WalkTrial& trial, std::int64_t chunks, double pairs_time, double rows_time) {
  std::string seen;
  for (std::int64_t k = 0; k < chunks; ++k) {
    const bool pairs = trial.first();
    const char c = pairs ? 'P' : 'R';
    seen += trial.timed() ? static_cast<char>(c - 'A' + 'a') : c;
    trial.record(pairs ? pairs_time : rows_time);
  }
  return seen;
}

TEST(WalkTrial, TimesAlternatingChunksInTheMiddleOfALongSpan) {
  Walks walks("pairs", "rows");
  const std::int64_t chunks = 100;
  const std::int64_t first = chunks / 2 - WalkTrial::kTimed;
  const std::string window = "prrpprrpprrp";
  ASSERT_EQ(window.size(), 2u * WalkTrial::kTimed);

  WalkTrial one(k256, chunks, true, walks);
  const std::string a = walk(one, chunks, 2.0, 1.0);
  EXPECT_EQ(a.substr(0, first), std::string(first, 'P'));
  EXPECT_EQ(a.substr(first, window.size()), window);
  // One verdict decides nothing yet: the span goes on in pairs.
  EXPECT_EQ(a.substr(first + window.size()), std::string(chunks - first - window.size(), 'P'));
  EXPECT_FALSE(walks.first(k256).has_value());

  WalkTrial two(k256, chunks, true, walks);
  const std::string b = walk(two, chunks, 2.0, 1.0);
  EXPECT_EQ(b.substr(first, window.size()), window);
  EXPECT_EQ(b.substr(first + window.size()), std::string(chunks - first - window.size(), 'R'))
      << "the second agreeing verdict decides the rest of its span";

  WalkTrial three(k256, chunks, true, walks);
  EXPECT_EQ(walk(three, chunks, 2.0, 1.0), std::string(chunks, 'R')) << "decided: no trial";
  EXPECT_EQ(walks.trials(k256), 2);
}

TEST(WalkTrial, ShortSpansForcedPoliciesAndOtherThreadsAreNotTimed) {
  Walks walks("pairs", "rows", "BNSCOPE_TEST_WALK");
  WalkTrial short_span(k256, WalkTrial::kMinChunks - 1, true, walks);
  EXPECT_EQ(walk(short_span, WalkTrial::kMinChunks - 1, 2.0, 1.0),
            std::string(WalkTrial::kMinChunks - 1, 'P'));
  setenv("BNSCOPE_TEST_WALK", "pairs", 1);
  WalkTrial pairs(k256, 100, true, walks);
  EXPECT_EQ(walk(pairs, 100, 2.0, 1.0), std::string(100, 'P'));
  setenv("BNSCOPE_TEST_WALK", "rows", 1);
  WalkTrial rows(k256, 100, true, walks);
  EXPECT_EQ(walk(rows, 100, 1.0, 2.0), std::string(100, 'R'));
  unsetenv("BNSCOPE_TEST_WALK");
  WalkTrial other_thread(k256, 100, false, walks);
  EXPECT_EQ(walk(other_thread, 100, 2.0, 1.0), std::string(100, 'P'));
  EXPECT_EQ(walks.trials(k256), 0);
}

TEST(WalkTrial, AShorterMinimumTimesTheMiddleOfAShortSpan) {
  Walks walks("tiles", "rows");
  const std::int64_t chunks = 2 * WalkTrial::kTimed;
  WalkTrial whole(k256, chunks, true, walks, chunks);
  EXPECT_EQ(walk(whole, chunks, 2.0, 1.0), "prrpprrpprrp") << "every chunk timed";
  WalkTrial middle(k256, 24, true, walks, chunks);
  EXPECT_EQ(walk(middle, 24, 2.0, 1.0), "PPPPPPprrpprrpprrpRRRRRR") << "decided after two trials";
  WalkTrial too_short(k256, chunks - 1, true, walks, 1);
  EXPECT_EQ(walk(too_short, chunks - 1, 2.0, 1.0), std::string(chunks - 1, 'R'));
  EXPECT_EQ(walks.describe(), "256 lanes float32 past the LLC: rows (2 trials)");
}

TEST(WalkTrial, AnEarlierWindowTimesTheChunksBeforeTheMiddle) {
  Walks walks("prefetch", "none");
  const std::int64_t chunks = 64;
  const std::int64_t first = chunks / 2 - 3 * WalkTrial::kTimed;  // window 1
  WalkTrial before(k256, chunks, true, walks, WalkTrial::kMinChunks, 1);
  const std::string a = walk(before, chunks, 2.0, 1.0);
  EXPECT_EQ(a.substr(0, first), std::string(first, 'P'));
  EXPECT_EQ(a.substr(first, 2 * WalkTrial::kTimed), "prrpprrpprrp");
  EXPECT_EQ(a.substr(first + 2 * WalkTrial::kTimed),
            std::string(chunks - first - 2 * WalkTrial::kTimed, 'P'));
  // A span with room for the middle window only is not timed in the one before it.
  WalkTrial no_room(k256, 30, true, walks, 2 * WalkTrial::kTimed, 1);
  EXPECT_EQ(walk(no_room, 30, 2.0, 1.0), std::string(30, 'P'));
  EXPECT_EQ(walks.trials(k256), 1);
}

Elem elem_of(DType dtype) {
  return dtype == DType::F32 ? Elem::F32 : dtype == DType::BF16 ? Elem::BF16 : Elem::F16;
}

// One walk's environment variable, cleared when a test ends however it ends.
struct EnvGuard {
  const char* name;
  ~EnvGuard() { unsetenv(name); }
};

// The dx stores forced for a test's runs (dx_stores.h): a call whose tensors fall between the
// bounds where they are measured would hold the trials inside it until its own trial decides.
struct StoresForced {
  StoresForced() { setenv("BNSCOPE_STORES", "streamed", 1); }
  ~StoresForced() { unsetenv("BNSCOPE_STORES"); }
};

// Runs one trial's worth of passes of `key`: each pass takes its walk's time from `seconds`
// (first walk, second walk); returns the walks the passes took, 'f' or 's'.
std::string run_passes(Walks& walks, const WalkKey& key, std::pair<double, double> seconds,
                       int passes = cpu::PassTrial::kPasses) {
  std::string order;
  for (int i = 0; i < passes; ++i) {
    cpu::PassTrial pass(key, true, walks);
    EXPECT_TRUE(pass.timed());
    order += pass.first() ? 'f' : 's';
    pass.record(pass.first() ? seconds.first : seconds.second);
  }
  return order;
}

TEST(PassTrial, PassesAlternateTheWalksAndTwoAgreeingTrialsDecide) {
  Walks walks("tiles", "rows");
  EXPECT_EQ(run_passes(walks, k256, {1.0, 0.8}), "fssffssf");
  EXPECT_EQ(walks.trials(k256), 1);
  EXPECT_FALSE(walks.first(k256).has_value());
  run_passes(walks, k256, {1.0, 0.8});
  ASSERT_TRUE(walks.first(k256).has_value());
  EXPECT_FALSE(*walks.first(k256));
  // Decided: every later pass takes rows, untimed.
  cpu::PassTrial after(k256, true, walks);
  EXPECT_FALSE(after.timed());
  EXPECT_FALSE(after.first());
  // Another key has trials of its own.
  EXPECT_EQ(walks.trials(k512), 0);
  cpu::PassTrial other(k512, true, walks);
  EXPECT_TRUE(other.timed());
  EXPECT_TRUE(other.first());
}

TEST(PassTrial, AGapUnderTheThresholdIsDecidedOverEightTrials) {
  Walks walks("tiles", "rows");
  for (int t = 0; t < Walks::kMaxTrials - 1; ++t) {
    run_passes(walks, k256, {1.0, 0.95});
    EXPECT_FALSE(walks.first(k256).has_value()) << "after trial " << t + 1;
  }
  run_passes(walks, k256, {1.0, 0.95});
  ASSERT_TRUE(walks.first(k256).has_value());
  EXPECT_FALSE(*walks.first(k256));  // rows, 5% faster over all of them
  EXPECT_EQ(walks.trials(k256), Walks::kMaxTrials);
}

TEST(PassTrial, ShortPassesForcedPoliciesAndDecidedKeysAreNotTimed) {
  Walks walks("tiles", "rows", "BNSCOPE_TEST_PASS_WALK");
  cpu::PassTrial short_pass(k256, false, walks);
  EXPECT_FALSE(short_pass.timed());
  EXPECT_TRUE(short_pass.first());
  EXPECT_EQ(short_pass.known(), std::nullopt);  // still to be tried, by longer passes
  short_pass.record(1.0);                       // nothing to record
  EXPECT_EQ(walks.trials(k256), 0);
  {
    EnvGuard guard{"BNSCOPE_TEST_PASS_WALK"};
    setenv("BNSCOPE_TEST_PASS_WALK", "rows", 1);
    cpu::PassTrial forced(k256, true, walks);
    EXPECT_FALSE(forced.timed());
    EXPECT_FALSE(forced.first());
    EXPECT_EQ(forced.known(), false);
  }
  walks.add(k512, WalkVerdict::First);
  walks.add(k512, WalkVerdict::First);
  cpu::PassTrial decided(k512, true, walks);
  EXPECT_FALSE(decided.timed());
  EXPECT_TRUE(decided.first());
  EXPECT_EQ(decided.known(), true);
}

TEST(PassTrial, SettlingPassesTakeEachWalkTwiceAndTimeTheSecond) {
  Walks walks("last-first", "forward");
  std::string order, timed;
  for (int i = 0; i < 2 * cpu::PassTrial::kPasses; ++i) {
    cpu::PassTrial pass(k256, true, walks, true);
    order += pass.first() ? 'f' : 's';
    timed += pass.timed() ? 't' : '.';
    pass.record(pass.first() ? 1.0 : 0.8);
  }
  EXPECT_EQ(order, "ffssssffffssssff");
  EXPECT_EQ(timed, ".t.t.t.t.t.t.t.t");
  EXPECT_EQ(walks.trials(k256), 1);
}

TEST(PassTrial, RunTimesThePassAndRecordsIt) {
  Walks walks("tiles", "rows");
  int ran = 0;
  for (int i = 0; i < cpu::PassTrial::kPasses; ++i)
    cpu::PassTrial(k256, true, walks).run([&](bool) { ++ran; });
  EXPECT_EQ(ran, cpu::PassTrial::kPasses);
  EXPECT_EQ(walks.trials(k256), 1);
}

// Channels-last FusedBatchNormGradV3 of `shape`, and the variant it was made from.
std::pair<Variant, Problem> channels_last(bool training, DType dtype, const Shape& shape,
                                          std::uint32_t seed) {
  Variant v = sweep_variant(find_op("FusedBatchNormGradV3"), "NHWC", training, dtype, shape, seed);
  Problem pb = make_problem(v);
  return {std::move(v), std::move(pb)};
}

RunContext one_thread() {
  RunContext ctx;
  ctx.threads = 1;
  return ctx;
}

// Channels-last FusedBatchNormGradV3 of `shape` in every dtype on one thread: `runs` measured
// runs (a trial's passes: one for trials on chunks, PassTrial::kPasses for trials of whole
// passes) ran exactly one trial of `walks` (keyed by the rows' lanes and the pass's side of the
// LLC) where `timed` says the pass takes one for that dtype's element size and key, else none,
// all with the same bits, and each walk forced through `env` gives them too. The reduce pass's
// tiles trial starts afresh, so its first passes walk tiles where row_tile gives any.
template <class Timed>
void expect_walks_agree(cpu::Walks& walks, const char* env, const char* first, const char* second,
                        bool training, const Shape& shape, std::uint32_t seed, Timed timed,
                        int runs = 1) {
  EnvGuard guard{env};
  const StoresForced stores;
  const std::int64_t lanes = shape.back();
  const double elements = static_cast<double>(shape[0] * shape[1] * shape[2] * lanes);
  for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
    const auto [v, pb] = channels_last(training, dtype, shape, seed++);
    const RunContext ctx = one_thread();
    walks.clear();
    cpu::reduce_tile_walks().clear();
    const Result measured = run_problem(pb, "cpu", ctx);
    for (int r = 1; r < runs; ++r)
      expect_bitwise_equal(measured, run_problem(pb, "cpu", ctx),
                           describe(v) + " run " + std::to_string(r + 1) + " of a trial");
    const double read = 2.0 * elements * static_cast<double>(dtype_size(dtype));
    const WalkKey key{lanes, elem_of(dtype),
                      read > static_cast<double>(cpu::host_caches().llc_bytes())};
    const bool one = timed(dtype_size(dtype), key);
    EXPECT_EQ(walks.trials(key), one ? 1 : 0)
        << describe(v) << ": " << (one ? "one trial" : "no trial") << "; " << walks.describe();
    for (const char* walk : {first, second}) {
      setenv(env, walk, 1);
      expect_bitwise_equal(measured, run_problem(pb, "cpu", ctx), describe(v) + " " + walk);
    }
    unsetenv(env);
  }
  walks.clear();
  cpu::reduce_tile_walks().clear();
}

// Whether the training grads' reduce pass may walk rows of `key` in tiles on this host.
bool reduce_tiles(std::size_t element_size, const WalkKey& key) {
  return cpu::row_tile(key.lanes, element_size, false, key.past_llc) > 0;
}

// Training grads of 16384 rows of 256 channels: 64 chunks of 256 rows, past the caches (x and
// dy 32 MiB in float32, 16 MiB in 16 bits: more than the L2 keeps for a single sweep), so the
// two-pass structure runs and one thread's span is long enough for the reduce pass's trial.
TEST(WalkTrial, BothWalksAndTheTrialGiveTheSameBits) {
  if (std::getenv("BNSCOPE_ROW_PAIRS")) GTEST_SKIP() << "BNSCOPE_ROW_PAIRS forces the walk";
  // A pass that may walk tiles walks them until its own trial says rows: no pairs trial yet.
  expect_walks_agree(cpu::pair_walks(), "BNSCOPE_ROW_PAIRS", "pairs", "rows", true,
                     Shape{4, 64, 64, 256}, 40,
                     [](std::size_t size, const WalkKey& key) { return !reduce_tiles(size, key); });
}

// Inference-mode grads of 1024 rows of 2048 channels: one sweep of 32 chunks of 32 rows, each
// row's lane arrays (32 KiB) too wide for L1 on any x86 host, so the sweep walks row tiles or
// rows and times both over whole passes.
TEST(WalkTrial, TheSingleSweepsTilesRowsAndTrialGiveTheSameBits) {
  if (std::getenv("BNSCOPE_ROW_WALK")) GTEST_SKIP() << "BNSCOPE_ROW_WALK forces the walk";
  if (!cpu::simd::kVector<float> || cpu::row_tile(2048, 4, true, true) == 0)
    GTEST_SKIP() << "rows of 2048 lanes fit this host's L1: no tiles to choose";
  expect_walks_agree(
      cpu::tile_walks(), "BNSCOPE_ROW_WALK", "tiles", "rows", false, Shape{4, 16, 16, 2048}, 70,
      [](std::size_t, const WalkKey&) { return true; }, cpu::PassTrial::kPasses);
}

// Training grads of 1024 rows of 2048 channels on one thread (32 chunks): the reduce pass walks
// row tiles or rows where row_tile gives a tile (16-bit rows on hosts with an L1d up to 64 KiB,
// float32 up to 32 KiB) and times both over whole passes, with the same bits.
TEST(WalkTrial, TheReducePassTilesRowsAndTrialGiveTheSameBits) {
  if (std::getenv("BNSCOPE_ROW_WALK")) GTEST_SKIP() << "BNSCOPE_ROW_WALK forces the walk";
  if (!cpu::simd::kVector<float> || cpu::row_tile(2048, 2, false, false) == 0)
    GTEST_SKIP() << "16-bit rows of 2048 lanes fit this host's L1: no tiles to choose";
  expect_walks_agree(cpu::reduce_tile_walks(), "BNSCOPE_ROW_WALK", "tiles", "rows", true,
                     Shape{4, 16, 16, 2048}, 130, reduce_tiles, cpu::PassTrial::kPasses);
}

// One run of channels-last grads of `shape` on one thread with BNSCOPE_ROW_WALK forcing tiles,
// then rows: `trial` (a walk only rows walked through L1 take) times one trial with rows
// forced, as where rows won their own trial, and none with tiles.
void expect_rows_forced_let_trial_run(cpu::Walks& trial, bool training, DType dtype,
                                      const Shape& shape, std::uint32_t seed) {
  EnvGuard guard{"BNSCOPE_ROW_WALK"};
  const StoresForced stores;
  const auto [v, pb] = channels_last(training, dtype, shape, seed);
  const double elements = static_cast<double>(shape[0] * shape[1] * shape[2] * shape[3]);
  const WalkKey key{shape[3], elem_of(dtype),
                    2.0 * elements * static_cast<double>(dtype_size(dtype)) >
                        static_cast<double>(cpu::host_caches().llc_bytes())};
  for (const char* walk : {"tiles", "rows"}) {
    setenv("BNSCOPE_ROW_WALK", walk, 1);
    trial.clear();
    run_problem(pb, "cpu", one_thread());
    EXPECT_EQ(trial.trials(key), std::string(walk) == "rows" ? 1 : 0)
        << describe(v) << ", " << walk << ": " << trial.describe();
  }
  unsetenv("BNSCOPE_ROW_WALK");
  trial.clear();
}

// The reduce pass's pairs trial: 1536 rows of 2048 bfloat16 lanes, 48 chunks, a span long
// enough for it.
TEST(WalkTrial, RowsForcedInTheReducePassLetItsPairsTrialRun) {
  if (std::getenv("BNSCOPE_ROW_PAIRS")) GTEST_SKIP() << "BNSCOPE_ROW_PAIRS forces the walk";
  if (!cpu::simd::kVector<float> || cpu::row_tile(2048, 2, false, false) == 0)
    GTEST_SKIP() << "16-bit rows of 2048 lanes fit this host's L1: no tiles to choose";
  expect_rows_forced_let_trial_run(cpu::pair_walks(), true, DType::BF16, Shape{4, 16, 24, 2048},
                                   140);
}

// The single sweep's prefetch trial: inference-mode grads of 1024 rows of 2048 float32 lanes,
// 32 chunks.
TEST(WalkTrial, RowsForcedInTheSingleSweepLetItsPrefetchTrialRun) {
  if (std::getenv("BNSCOPE_PREFETCH")) GTEST_SKIP() << "BNSCOPE_PREFETCH forces the walk";
  if (!cpu::simd::kVector<float> || cpu::row_tile(2048, 4, true, true) == 0)
    GTEST_SKIP() << "rows of 2048 lanes fit this host's L1: no tiles to choose";
  expect_rows_forced_let_trial_run(cpu::prefetch_walks(cpu::RowsPass::Single), false, DType::F32,
                                   Shape{4, 16, 16, 2048}, 150);
}

void clear_prefetch_walks();

// The cpu backend says which of its runs took part in a trial (Backend::last_run_calibrating),
// so that a profile warms up past them: training grads of 4096 rows of 256 float32 channels on
// one thread (16 chunks) time a trial of the write walk until it is decided, and time nothing
// with every walk forced.
TEST(WalkTrial, TheCpuBackendSaysWhichRunsTookPartInATrial) {
  const char* policies[][2] = {{"BNSCOPE_ROW_PAIRS", "rows"},
                               {"BNSCOPE_ROW_WALK", "rows"},
                               {"BNSCOPE_WRITE_WALK", "forward"},
                               {"BNSCOPE_PREFETCH", "none"},
                               {"BNSCOPE_STORES", "streamed"}};
  for (const auto& [name, walk] : policies)
    if (std::getenv(name)) GTEST_SKIP() << name << " forces a walk";
  if (!cpu::simd::kVector<float>) GTEST_SKIP() << "no vector loops on this build";
  EnvGuard g0{policies[0][0]}, g1{policies[1][0]}, g2{policies[2][0]}, g3{policies[3][0]},
      g4{policies[4][0]};
  const auto [v, pb] = channels_last(true, DType::F32, Shape{4, 32, 32, 256}, 160);
  Backend& backend = *BackendRegistry::instance().find("cpu");
  cpu::write_walks().clear();
  run_problem(pb, "cpu", one_thread());
  EXPECT_TRUE(backend.last_run_calibrating()) << cpu::write_walks().describe();
  for (const auto& [name, walk] : policies) setenv(name, walk, 1);
  run_problem(pb, "cpu", one_thread());
  EXPECT_FALSE(backend.last_run_calibrating());
  for (const auto& [name, walk] : policies) unsetenv(name);
  cpu::write_walks().clear();
}

void clear_prefetch_walks() {
  for (cpu::RowsPass pass : {cpu::RowsPass::Reduce, cpu::RowsPass::Write, cpu::RowsPass::Single})
    cpu::prefetch_walks(pass).clear();
}

// The rows passes with and without their software prefetch (walk_trial.h: prefetch_walks):
// channels-last grads of 16384 rows of 256 channels in every dtype, one thread. Training runs
// the reduce pass (64 chunks: room for its prefetch window before the pair trial's) and the write
// pass, inference the single sweep; each pass that prefetches per vector runs one trial of its
// own walks, and "prefetch" and "none" forced give the trial's bits.
TEST(WalkTrial, ThePrefetchTrialsOfEveryRowsPassGiveTheSameBits) {
  if (std::getenv("BNSCOPE_PREFETCH")) GTEST_SKIP() << "BNSCOPE_PREFETCH forces the walk";
  if (!cpu::simd::kVector<float>) GTEST_SKIP() << "no vector loops on this build";
  EnvGuard guard{"BNSCOPE_PREFETCH"};
  const StoresForced stores;
  const Shape shape{4, 64, 64, 256};
  std::uint32_t seed = 90;
  for (bool training : {true, false})
    for (DType dtype : {DType::F32, DType::BF16, DType::F16}) {
      const auto [v, pb] = channels_last(training, dtype, shape, seed++);
      const RunContext ctx = one_thread();
      clear_prefetch_walks();
      cpu::tile_walks().clear();
      cpu::reduce_tile_walks().clear();
      const Result measured = run_problem(pb, "cpu", ctx);
      const double read = 2.0 * 16384 * 256 * static_cast<double>(dtype_size(dtype));
      const WalkKey key{256, elem_of(dtype),
                        read > static_cast<double>(cpu::host_caches().llc_bytes())};
      // 16-bit sums from memory walk row tiles, which prefetch the next tile instead, until
      // their own trial says rows.
      const bool tiles = cpu::row_tile(256, dtype_size(dtype), false, key.past_llc) > 0;
      const bool single_tiles = cpu::row_tile(256, dtype_size(dtype), true, key.past_llc) > 0;
      EXPECT_EQ(cpu::prefetch_walks(cpu::RowsPass::Reduce).trials(key), training && !tiles ? 1 : 0)
          << describe(v);
      EXPECT_EQ(cpu::prefetch_walks(cpu::RowsPass::Write).trials(key), training ? 1 : 0)
          << describe(v);
      EXPECT_EQ(cpu::prefetch_walks(cpu::RowsPass::Single).trials(key),
                !training && !single_tiles ? 1 : 0)
          << describe(v);
      for (const char* walk : {"prefetch", "none"}) {
        setenv("BNSCOPE_PREFETCH", walk, 1);
        expect_bitwise_equal(measured, run_problem(pb, "cpu", ctx), describe(v) + " " + walk);
      }
      unsetenv("BNSCOPE_PREFETCH");
    }
  clear_prefetch_walks();
}

}  // namespace
}  // namespace bnscope::testing
