#pragma once
// Shared by the view tests: the sample problem and an answer for it that does not come from the
// code under test.

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "analysis/channel_stats.h"
#include "backends/backend.h"
#include "ops/problem.h"

namespace bnscope {
class ChannelTableModel;
}

namespace bnscope::test {

// FusedBatchNormGradV3, NHWC, training, small enough for fast runs.
Problem small_sample(std::uint64_t seed = 7);

// The statistics of the float64 oracle's outputs (backend cpu-reference, run directly without
// the app's controller or pipeline), or the validation error the problem gets.
struct Expected {
  std::optional<ChannelStats> stats;
  std::string error;
};
Expected reference_answer(const Problem& p);

// A statistic of a float32 run next to the oracle's: counts exactly, the others within the
// diff's float32 default tolerance.
bool close_to_reference(double got, double want, bool is_count);

// Checks a channel table against the oracle's statistics: every column the oracle has, every
// channel, within close_to_reference (QtTest failures, so call it from a test function).
void expect_channel_table(const ChannelTableModel& model, const ChannelStats& want);

// Backend "holding": holds its run until it is cancelled, a run in flight for as long as a test
// needs, with no clock involved. `started` says a run has begun.
class HoldingBackend : public Backend {
 public:
  std::string_view name() const override { return "holding"; }
  std::string_view description() const override { return "runs until cancelled"; }
  void run(const Prepared&, Result&, const RunContext& ctx) override {
    started.store(true);
    while (!ctx.cancelled()) std::this_thread::yield();
    ctx.check_cancel();
  }
  static inline std::atomic<bool> started{false};
};

}  // namespace bnscope::test
