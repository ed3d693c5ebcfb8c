#pragma once
// Two implementations of one call timed in turn in one process: windows of back-to-back calls of
// each, alternating, so that both meet the same moments of a shared host.
//
// Why in one process: on a host whose neighbours take a varying share of the memory, the bandwidth
// left moves by up to 2x within seconds (the Zen 5 EPYC, docs/performance-zen5-avx512.md), and
// timing each program in a process of its own, a case at a time, still leaves seconds between
// them: two builds' per-round ratios on one layer there ranged over 0.68-1.37 that way and over
// 0.90-1.01 in windows of about 20 ms in one process. Within a window the calls follow one
// another as in a benchmark (what one call leaves in the caches is the next one's); between
// windows a pause lets each side's threads park, so that neither spins on a CPU the other's
// threads need (a peer's OpenMP runtime must be told to wait passively: with its workers left to
// spin, bnscope's windows ran up to 3x slower in some rounds whatever the pause). The first window
// of a round alternates between the two sides so that neither always follows the other.

#include <chrono>
#include <functional>
#include <vector>

#include "profile/clock.h"

namespace bnscope {

struct AlternationOptions {
  int rounds = 8;
  double window_seconds = 0.02;  // each window runs at least this long, from a first timed call
  int min_calls = 5;             // per window, however long a call takes
  int max_calls = 200;
  std::chrono::microseconds pause{5000};  // between windows; 0 for none
};

struct Alternation {
  int calls_a = 0, calls_b = 0;              // per window, from one call of each before the rounds
  std::vector<double> a_seconds, b_seconds;  // per round, the median call of its window

  double a_median() const;
  double b_median() const;
  std::vector<double> ratios() const;  // per round, b's median over a's
};

// Calls a and b once each (a warm-up that also sizes the windows), then `rounds` rounds of one
// window of each. Exceptions from a or b propagate.
Alternation alternate(const std::function<void()>& a, const std::function<void()>& b,
                      const AlternationOptions& options = {}, const Clock& clock = steady_seconds);

}  // namespace bnscope
