// prepare() attaches the input notes (health, epsilon, reserve spaces) once, and a run passes
// them on without adding them again.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/engine.h"
#include "ops/bn_math.h"
#include "ops/prepared.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

int count_code(const std::vector<Note>& notes, std::string_view prefix) {
  int n = 0;
  for (const Note& note : notes) n += note.code.rfind(prefix, 0) == 0;
  return n;
}

Problem sample(ReserveConvention c = ReserveConvention::Variance) {
  SampleSpec spec;
  spec.shape = {2, 3, 3, 4};
  spec.convention = c;
  return random_problem(spec);
}

TEST(PrepareNotes, NonFiniteInputNotedOnceByPrepare) {
  Problem p = sample();
  p.inputs.at("y_backprop").set(5, std::nan(""));
  EXPECT_EQ(count_code(prepare(p).notes, "non-finite-input"), 1);
  EXPECT_EQ(count_code(run_problem(p, "cpu").notes, "non-finite-input"), 1);
}

TEST(PrepareNotes, WrongReserveConventionNotedOnceByPrepare) {
  Problem p = sample(ReserveConvention::InvStd);
  p.convention = ReserveConvention::Variance;  // reserve_space_2 really holds 1/sqrt(var + eps)
  const Prepared prepared = prepare(p);
  EXPECT_EQ(count_code(prepared.notes, "reserve-"), 1);
  EXPECT_EQ(count_code(run_prepared(prepared, backend_or_throw("cpu")).notes, "reserve-"), 1);
  EXPECT_EQ(count_code(run_problem(p, "cpu-reference").notes, "reserve-"), 1);
}

TEST(PrepareNotes, ConsistentSampleHasNoInputNotes) {
  for (ReserveConvention c : {ReserveConvention::Variance, ReserveConvention::InvStd}) {
    const Prepared p = prepare(sample(c));
    EXPECT_EQ(count_code(p.notes, "reserve-"), 0);
    EXPECT_EQ(count_code(p.notes, "non-finite"), 0);
  }
}

TEST(PrepareNotes, EpsilonBelowCudnnMinimumNotedOnce) {
  Problem p = sample();
  p.attrs["epsilon"] = 1e-7;
  EXPECT_EQ(count_code(prepare(p).notes, "epsilon-below-cudnn-min"), 1);
  EXPECT_EQ(count_code(run_problem(p, "cpu").notes, "epsilon-below-cudnn-min"), 1);
  // cuDNN's own 1e-5 is below the clamp; the clamp itself is not (compared as the float attr).
  p.attrs["epsilon"] = 1e-5;
  EXPECT_EQ(count_code(prepare(p).notes, "epsilon-below-cudnn-min"), 1);
  p.attrs["epsilon"] = kCudnnMinEpsilon;
  EXPECT_EQ(count_code(prepare(p).notes, "epsilon-below-cudnn-min"), 0);
}

}  // namespace
}  // namespace bnscope
