#pragma once
// The fitting helpers of the cause search: a one-dimensional minimum on a log scale, the least-
// squares factor between two sets of values, a rank correlation, and the frameworks' epsilons.

#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace bnscope::causes {

// The x in [lo, hi] (both > 0) minimizing f, by golden sections of log(x): `steps` evaluations
// after the two first. f need only be unimodal near its minimum.
double minimize_log(const std::function<double(double)>& f, double lo, double hi, int steps);

// k minimizing sum (ref - k*cand)^2 over the pairs where both are finite; 1 when cand is all 0.
double least_squares_factor(const std::vector<double>& ref, const std::vector<double>& cand);
// The same over two tensors' elements, read in place.
double least_squares_factor(const Tensor& ref, const Tensor& cand);

// Spearman's rank correlation of finite pairs; 0 with fewer than 3.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

double median(std::vector<double> v);

// The epsilon defaults of the frameworks, named: "PyTorch's default" for 1e-5.
struct FrameworkEpsilon {
  double value;
  const char* who;
};
const std::vector<FrameworkEpsilon>& framework_epsilons();
// The framework default within 10% of eps, or empty.
std::string framework_epsilon_name(double eps);

// "2^10" when k (or 1/k) is a power of two within 0.1%, else empty.
std::string power_of_two_text(double k);

// A fitted value in four digits ("1e-05", "0.001023").
std::string approx_text(double v);

}  // namespace bnscope::causes
