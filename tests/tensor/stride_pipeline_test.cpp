// run_strides: every piece of every stride once, on a thread index below the count asked for;
// each stride's in-order part once, in stride order, on the caller, only after all of that
// stride's pieces have ended; a failure in a piece or in the in-order part rethrown after every
// thread has stopped.

#include "tensor/stride_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace bnscope {
namespace {

TEST(StridePipeline, EveryPieceOnceAndEachInOrderPartAfterItsPieces) {
  for (int threads : {1, 2, 3, 8}) {
    for (std::int64_t strides : {0, 1, 2, 17}) {
      const auto pieces_of = [](std::int64_t s) { return (s * 7) % 5 + (s == 1 ? 0 : 1); };
      std::vector<std::vector<std::atomic<int>>> hits(static_cast<std::size_t>(strides));
      for (std::int64_t s = 0; s < strides; ++s)
        hits[static_cast<std::size_t>(s)] =
            std::vector<std::atomic<int>>(static_cast<std::size_t>(pieces_of(s)));
      std::vector<std::int64_t> after_order;
      std::atomic<bool> bad_thread{false}, early{false};
      const std::thread::id caller = std::this_thread::get_id();
      StridePass pass;
      pass.strides = strides;
      pass.pieces = pieces_of;
      pass.piece = [&](int t, std::int64_t s, std::int64_t p) {
        if (t < 0 || t >= threads || (t == 0) != (std::this_thread::get_id() == caller))
          bad_thread = true;
        ++hits[static_cast<std::size_t>(s)][static_cast<std::size_t>(p)];
      };
      pass.after = [&](std::int64_t s) {
        if (std::this_thread::get_id() != caller) bad_thread = true;
        for (const std::atomic<int>& h : hits[static_cast<std::size_t>(s)])
          if (h.load() != 1) early = true;
        after_order.push_back(s);
      };
      run_strides(pass, threads);
      SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(strides) + " strides");
      EXPECT_FALSE(bad_thread);
      EXPECT_FALSE(early);
      ASSERT_EQ(after_order.size(), static_cast<std::size_t>(strides));
      for (std::int64_t s = 0; s < strides; ++s) {
        EXPECT_EQ(after_order[static_cast<std::size_t>(s)], s);
        for (const std::atomic<int>& h : hits[static_cast<std::size_t>(s)]) EXPECT_EQ(h.load(), 1);
      }
    }
  }
}

TEST(StridePipeline, FailuresAreRethrownAfterEveryThreadStopped) {
  for (int threads : {1, 2, 4}) {
    StridePass pass;
    pass.strides = 9;
    pass.pieces = [](std::int64_t) { return std::int64_t{6}; };
    pass.piece = [](int, std::int64_t s, std::int64_t p) {
      if (s == 4 && p == 3) throw std::runtime_error("piece");
    };
    pass.after = [](std::int64_t) {};
    EXPECT_THROW(run_strides(pass, threads), std::runtime_error) << threads;
    pass.piece = [](int, std::int64_t, std::int64_t) {};
    pass.after = [](std::int64_t s) {
      if (s == 2) throw std::logic_error("after");
    };
    EXPECT_THROW(run_strides(pass, threads), std::logic_error) << threads;
  }
}

}  // namespace
}  // namespace bnscope
