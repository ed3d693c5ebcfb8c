// prepare() attaches the input notes (health, epsilon, reserve spaces) once, and a run passes
// them on without adding them again.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/engine.h"
#include "ops/bn_math.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "tensor/layout.h"

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

std::size_t input_index(const Prepared& p, std::string_view name) {
  for (std::size_t i = 0; i < p.op->inputs.size(); ++i)
    if (p.op->inputs[i].name == name) return i;
  ADD_FAILURE() << "no input " << name;
  return 0;
}

std::vector<std::string> texts(const std::vector<Note>& notes) {
  std::vector<std::string> out;
  for (const Note& n : notes) out.push_back(n.code + ": " + n.message);
  return out;
}

// The app prepares every edit of a problem whose big inputs did not change: what was read from
// the same buffers before is taken, not read again, and the notes are what a fresh prepare says.
TEST(PrepareNotes, EarlierReadingsOfTheSameBuffersAreTaken) {
  Problem p = sample();
  p.inputs.at("y_backprop").set(5, std::nan(""));
  const Prepared earlier = prepare(p);
  const std::size_t dy = input_index(earlier, "y_backprop");
  ASSERT_EQ(earlier.non_finite.size(), earlier.inputs.size());
  EXPECT_EQ(earlier.non_finite[dy], 1);
  ASSERT_TRUE(earlier.x_moments.has_value());
  EXPECT_EQ(texts(prepare(p, &earlier).notes), texts(earlier.notes));

  // Readings planted in `earlier` show that they are taken rather than read again.
  Prepared planted = earlier;
  planted.non_finite[dy] = 7;
  planted.x_moments->mean[0] += 1e3;
  const Prepared taken = prepare(p, &planted);
  EXPECT_NE(texts(taken.notes), texts(earlier.notes));
  EXPECT_EQ(count_code(taken.notes, "reserve-mismatch"), 1);
  EXPECT_TRUE(std::any_of(taken.notes.begin(), taken.notes.end(), [](const Note& n) {
    return n.message == "y_backprop holds 7 NaN/Inf value(s); every channel they touch is poisoned";
  }));

  // A value written since is a new buffer (copy on write): read again.
  Problem edited = p;
  edited.inputs.at("y_backprop").set(6, std::nan(""));
  const Prepared reread = prepare(edited, &planted);
  EXPECT_EQ(reread.non_finite[dy], 2);
  EXPECT_EQ(count_code(reread.notes, "reserve-mismatch"), 1);  // x itself is the same buffer
  Problem copied = p;
  copied.inputs.at("x") = p.inputs.at("x").reshaped(p.inputs.at("x").shape());
  copied.inputs.at("x").set(0, copied.inputs.at("x").get(0));  // detached: a copy of x
  EXPECT_EQ(count_code(prepare(copied, &planted).notes, "reserve-mismatch"), 0);
}

// A layout change in place permutes the same buffers: the NaN/Inf counts still hold, x's moments
// (summed in another order through another view) are read again.
TEST(PrepareNotes, ReadingsAfterALayoutChangeInPlace) {
  Problem p = sample();
  p.inputs.at("x").set(3, std::nan(""));
  p.inputs.at("y_backprop").set(5, INFINITY);
  Prepared earlier = prepare(p);
  const std::size_t x = input_index(earlier, "x");
  Problem moved = p;
  moved.attrs["data_format"] = std::string("NCHW");
  for (const char* name : {"x", "y_backprop"}) {
    const Tensor t = p.inputs.at(name);
    move_channel_axis_in_place(t, true, 0, t.dim(0));
    moved.inputs.at(name) = t.reshaped(channel_axis_moved(t.shape(), true));
  }
  EXPECT_EQ(texts(prepare(moved, &earlier).notes), texts(prepare(moved).notes));
  earlier.x_moments->mean[1] += 1e3;  // not taken through another view
  EXPECT_EQ(count_code(prepare(moved, &earlier).notes, "reserve-mismatch"), 0);
  EXPECT_EQ(prepare(moved, &earlier).non_finite[x], 1);
}

}  // namespace
}  // namespace bnscope
