#include "profile/alternation.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "profile/timing_stats.h"

namespace bnscope {

namespace {

double median_of(const std::vector<double>& v) {
  return timing_stats(v).median;
}

double timed(const std::function<void()>& f, const Clock& clock) {
  const double start = clock();
  f();
  return clock() - start;
}

int calls_for(double one_call, const AlternationOptions& o) {
  const double n = one_call > 0 ? std::ceil(o.window_seconds / one_call) : o.max_calls;
  return static_cast<int>(std::clamp<double>(n, o.min_calls, std::max(o.min_calls, o.max_calls)));
}

double window(const std::function<void()>& f, int calls, const AlternationOptions& o,
              const Clock& clock) {
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(calls));
  for (int i = 0; i < calls; ++i) t.push_back(timed(f, clock));
  if (o.pause.count() > 0) std::this_thread::sleep_for(o.pause);
  return median_of(t);
}

}  // namespace

double Alternation::a_median() const {
  return median_of(a_seconds);
}

double Alternation::b_median() const {
  return median_of(b_seconds);
}

std::vector<double> Alternation::ratios() const {
  std::vector<double> r;
  for (std::size_t i = 0; i < a_seconds.size() && i < b_seconds.size(); ++i)
    r.push_back(b_seconds[i] / a_seconds[i]);
  return r;
}

Alternation alternate(const std::function<void()>& a, const std::function<void()>& b,
                      const AlternationOptions& options, const Clock& clock) {
  Alternation out;
  out.calls_a = calls_for(timed(a, clock), options);
  out.calls_b = calls_for(timed(b, clock), options);
  for (int r = 0; r < options.rounds; ++r) {
    if (r % 2 == 0) {
      out.a_seconds.push_back(window(a, out.calls_a, options, clock));
      out.b_seconds.push_back(window(b, out.calls_b, options, clock));
    } else {
      out.b_seconds.push_back(window(b, out.calls_b, options, clock));
      out.a_seconds.push_back(window(a, out.calls_a, options, clock));
    }
  }
  return out;
}

}  // namespace bnscope
