#pragma once
// Small builders and comparisons shared by the cpu-reference tests.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/engine.h"
#include "tensor/error.h"

namespace bnscope::testing {

inline Tensor tensor(Shape shape, std::vector<double> values, DType d = DType::F32) {
  return Tensor::from_doubles(d, std::move(shape), values);
}

inline Tensor vec(std::vector<double> values, DType d = DType::F32) {
  const auto n = static_cast<std::int64_t>(values.size());
  return tensor({n}, std::move(values), d);
}

inline void expect_all_near(const Tensor& got, const std::vector<double>& want, double tol,
                            const std::string& what) {
  ASSERT_EQ(got.numel(), static_cast<std::int64_t>(want.size())) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.get(static_cast<std::int64_t>(i)), want[i], tol) << what << "[" << i << "]";
}

inline bool has_note(const std::vector<Note>& notes, const std::string& code) {
  for (const Note& n : notes)
    if (n.code == code) return true;
  return false;
}

inline const Note* find_note(const std::vector<Note>& notes, const std::string& code,
                             const std::string& subject = "") {
  for (const Note& n : notes)
    if (n.code == code && (subject.empty() || n.subject == subject)) return &n;
  return nullptr;
}

}  // namespace bnscope::testing
