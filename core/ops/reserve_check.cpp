#include "ops/reserve_check.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "ops/bn_math.h"
#include "ops/moments.h"

namespace bnscope {

namespace {

std::string statistic_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

struct Moments {
  std::vector<double> mean, var;  // var biased, as the forward saves it
  std::vector<bool> finite;       // channels whose x holds NaN/Inf are left to the health notes
};

// One pass straight over x in its own dtype: no float64 copy of the data (which would double a
// large problem's memory); the tolerances below are far above a one-pass sum's rounding.
Moments moments_of_x(Prepared& p, const Prepared* earlier) {
  const Tensor& x = p.in("x");
  const auto same_x = [&](const Tensor& e) {
    return e.shares_storage_with(x) && e.dtype() == x.dtype() && e.shape() == x.shape();
  };
  const bool known = earlier && earlier->x_moments && earlier->op == p.op &&
                     earlier->view == p.view && same_x(earlier->in("x"));
  p.x_moments = known ? *earlier->x_moments : channel_moments_one_pass(x, p.view);
  ChannelMoments m = *p.x_moments;
  Moments s{std::move(m.mean), std::move(m.biased_variance), {}};
  for (double mean : s.mean) s.finite.push_back(std::isfinite(mean));
  return s;
}

// Relative 1e-2, plus an absolute term for the float rounding of values that cancel: a mean
// near zero, or a variance small next to the squared mean. Values from a real forward pass in
// half precision stay well inside it; a wrong convention or another batch does not.
double mean_tolerance(double mean, double var) {
  return 1e-2 * (std::abs(mean) + std::sqrt(var)) + 1e-6;
}
double var_tolerance(double mean, double var) {
  return 1e-2 * var + 1e-6 * mean * mean + 1e-9;
}

bool variance_matches(double value, double mean, double var) {
  return std::abs(value - var) <= var_tolerance(mean, var);
}
// Compared both directly and as the variance it implies, so a tiny variance under a large
// epsilon (where r hardly depends on it) is judged by r itself.
bool inv_std_matches(double value, double mean, double var, double eps) {
  const double expected = inv_std(var, eps);
  if (std::abs(value - expected) <= 1e-2 * expected + 1e-9) return true;
  return value > 0 && variance_matches(variance_from_inv_std(value, eps), mean, var);
}

struct Worst {
  std::int64_t channel = -1;
  double ratio = -1, expected = 0, actual = 0;
  void offer(std::int64_t c, double exp, double act, double tol) {
    const double r = std::isnan(act) ? INFINITY : std::abs(act - exp) / tol;
    if (r > ratio) *this = {c, r, exp, act};
  }
};

std::string channels_text(std::int64_t n, std::int64_t c) {
  return " (" + std::to_string(n) + " of " + std::to_string(c) + " channel" + (c == 1 ? "" : "s") +
         ")";
}

void check_mean(const Prepared& p, const Moments& s, std::vector<Note>& notes) {
  const auto rs1 = p.in("reserve_space_1").to_doubles();
  Worst worst;
  std::int64_t bad = 0;
  for (std::int64_t c = 0; c < p.channels(); ++c) {
    const std::size_t cc = uc(c);
    if (!s.finite[cc]) continue;
    const double tol = mean_tolerance(s.mean[cc], s.var[cc]);
    if (std::abs(rs1[cc] - s.mean[cc]) <= tol) continue;
    ++bad;
    worst.offer(c, s.mean[cc], rs1[cc], tol);
  }
  if (!bad) return;
  notes.push_back({NoteKind::Warning, "reserve-mismatch",
                   "reserve_space_1 is not the batch mean of x" + channels_text(bad, p.channels()) +
                       "; worst channel " + std::to_string(worst.channel) + ": expected " +
                       statistic_text(worst.expected) + ", got " + statistic_text(worst.actual),
                   "reserve_space_1", worst.channel});
}

void check_variance(const Prepared& p, const Moments& s, std::vector<Note>& notes) {
  const auto rs2 = p.in("reserve_space_2").to_doubles();
  const bool declared_inv = p.reserve_is_inv_std();
  Worst worst;
  std::int64_t other = 0, bad = 0;
  for (std::int64_t c = 0; c < p.channels(); ++c) {
    const std::size_t cc = uc(c);
    if (!s.finite[cc]) continue;
    const double mean = s.mean[cc], var = s.var[cc], r = rs2[cc];
    const bool as_var = variance_matches(r, mean, var);
    const bool as_inv = inv_std_matches(r, mean, var, p.epsilon);
    if (declared_inv ? as_inv : as_var) continue;
    if (declared_inv ? as_var : as_inv) {
      ++other;
      continue;
    }
    ++bad;
    const double expected = declared_inv ? inv_std(var, p.epsilon) : var;
    worst.offer(c, expected, r, declared_inv ? 1e-2 * expected + 1e-9 : var_tolerance(mean, var));
  }
  if (other && other >= bad) {
    const std::string text =
        declared_inv ? "reserve_space_2 looks like the batch variance (CPU convention) but is "
                       "declared as 1/sqrt(variance+epsilon); declare the variance convention (CPU)"
                     : "reserve_space_2 looks like 1/sqrt(variance+epsilon) (cuDNN convention) "
                       "but is declared as the variance; declare the inv_std convention (cuDNN)";
    notes.push_back({NoteKind::Warning, "reserve-convention",
                     text + channels_text(other, p.channels()), "reserve_space_2", -1});
    return;
  }
  if (!bad && !other) return;
  notes.push_back({NoteKind::Warning, "reserve-mismatch",
                   std::string("reserve_space_2 is not ") +
                       (declared_inv ? "1/sqrt(variance+epsilon)" : "the biased batch variance") +
                       " of x" + channels_text(bad + other, p.channels()) + "; worst channel " +
                       std::to_string(worst.channel) + ": expected " +
                       statistic_text(worst.expected) + ", got " + statistic_text(worst.actual),
                   "reserve_space_2", worst.channel});
}

}  // namespace

std::vector<Note> check_reserve_spaces(Prepared& p, const Prepared* earlier) {
  std::vector<Note> notes;
  if (p.op->family != OpFamily::Fused || !p.op->is_grad || !p.is_training || p.empty())
    return notes;
  const Moments s = moments_of_x(p, earlier);
  check_mean(p, s, notes);
  check_variance(p, s, notes);
  return notes;
}

}  // namespace bnscope
