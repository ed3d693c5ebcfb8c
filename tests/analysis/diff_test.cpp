#include "analysis/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "engine/engine.h"
#include "io/npy.h"
#include "io/npz.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

struct Fixture {
  Problem problem;
  Prepared prepared;
  Result result;
};

Fixture make(DataFormat format = DataFormat::NHWC, DType t = DType::F32) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  spec.format = format;
  spec.dtype = t;
  Fixture f{random_problem(spec), {}, {}};
  f.prepared = prepare(f.problem);
  f.result = run_problem(f.problem, "cpu-reference");
  return f;
}

OutputTensor& out(std::vector<OutputTensor>& v, const std::string& name) {
  for (OutputTensor& o : v)
    if (o.name == name) return o;
  throw std::runtime_error(name);
}

TEST(Ulp, CountsStepsInEachDtype) {
  EXPECT_EQ(ulp_distance(1.0, 1.0 + std::ldexp(1.0, -10), DType::F16), 1u);
  EXPECT_EQ(ulp_distance(1.0, 1.0 + std::ldexp(1.0, -7), DType::BF16), 1u);
  EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0f, 2.0f), DType::F32), 1u);
  EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0, 2.0), DType::F64), 1u);
  EXPECT_EQ(ulp_distance(0.0, -0.0, DType::F32), 0u);
  const double tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulp_distance(-tiny, tiny, DType::F32), 2u);  // across zero
  EXPECT_EQ(ulp_distance(65504.0, INFINITY, DType::F16), 1u);
  EXPECT_EQ(ulp_distance(NAN, 1.0, DType::F32), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(ulp_distance(NAN, NAN, DType::F32), 0u);
}

// The scan through bit patterns finds what a plain loop over ulp_distance finds, in every
// dtype, with NaN on one or both sides, +0/-0 and a reference in another type than the count.
TEST(Ulp, FirstElementAtADistanceIsTheOneUlpDistanceFinds) {
  const std::int64_t n = 3000;  // past one block of the scan
  std::vector<double> a(n), b(n);
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = std::sin(0.37 * static_cast<double>(i)) * std::ldexp(1.0, static_cast<int>(i % 40) - 20);
    b[i] = a[i] * (1 + 1e-3 * std::cos(0.11 * static_cast<double>(i)));
  }
  a[5] = NAN;         // one side
  a[7] = b[7] = NAN;  // both: 0
  a[9] = 0.0, b[9] = -0.0;
  a[2500] = 1.0, b[2500] = std::nextafter(1.0f, 2.0f);
  const std::pair<DType, DType> pairs[] = {{DType::F32, DType::F32},   {DType::F16, DType::F16},
                                           {DType::BF16, DType::BF16}, {DType::F64, DType::F64},
                                           {DType::F32, DType::F16},   {DType::F64, DType::F32},
                                           {DType::F32, DType::BF16},  {DType::F16, DType::F32},
                                           {DType::BF16, DType::F32},  {DType::F16, DType::BF16}};
  for (auto [ref_type, cand_type] : pairs) {
    const Tensor ref = Tensor::from_doubles(ref_type, {n}, b);
    const Tensor cand = Tensor::from_doubles(cand_type, {n}, a);
    std::vector<std::uint64_t> distance(n);
    for (std::int64_t i = 0; i < n; ++i)
      distance[i] = ulp_distance(cand.get(i), ref.get(i), cand_type);
    std::vector<std::int64_t> probes = {0, 5, 7, 9, 1500, 2500, 2999};
    for (std::int64_t i = 1; i < n; i += 97) probes.push_back(i);  // distances of every size
    for (std::int64_t probe : probes) {
      const std::uint64_t d = distance[probe];
      const auto first = std::find(distance.begin(), distance.end(), d) - distance.begin();
      for (int isa : {0, 2})  // the baseline build's loop and the widest clone
        EXPECT_EQ(first_at_ulp(ref, cand, cand_type, d, isa), first)
            << dtype_name(ref_type) << " vs " << dtype_name(cand_type) << " at " << probe
            << ", isa " << isa;
    }
    const std::uint64_t absent = *std::max_element(distance.begin(), distance.end() - 1) - 1;
    if (std::find(distance.begin(), distance.end(), absent) == distance.end()) {
      EXPECT_EQ(first_at_ulp(ref, cand, cand_type, absent), -1);
    }
  }
}

TEST(Diff, IdenticalResultsPass) {
  Fixture f = make();
  Comparison c =
      compare_results("a", f.result.outputs, "b", f.result.outputs, {}, &f.prepared.view);
  EXPECT_TRUE(c.passed);
  for (const OutputDiff& o : c.outputs) {
    EXPECT_EQ(o.max_abs, 0);
    EXPECT_EQ(o.max_ulp, 0u);
  }
}

TEST(Diff, OneChangedElementHasItsCoordinatesAndUlps) {
  Fixture f = make();
  std::vector<OutputTensor> cand = f.result.outputs;
  Tensor& dx = out(cand, "x_backprop").tensor;  // [2,3,4,5] NHWC
  const std::int64_t i = ((1 * 3 + 2) * 4 + 3) * 5 + 4;
  float v = static_cast<float>(dx.get(i));
  for (int k = 0; k < 7; ++k) v = std::nextafter(v, INFINITY);
  dx.set(i, v);
  DiffOptions opt;
  opt.atol = 0;
  opt.rtol = 0;
  Comparison c = compare_results("ref", f.result.outputs, "cand", cand, opt, &f.prepared.view);
  EXPECT_FALSE(c.passed);
  const OutputDiff& o = c.outputs[0];
  ASSERT_EQ(o.name, "x_backprop");
  EXPECT_EQ(o.mismatches, 1);
  EXPECT_EQ(o.max_ulp, 7u);
  EXPECT_EQ(o.max_abs_index, i);
  ASSERT_FALSE(o.worst.empty());
  EXPECT_EQ(o.worst[0].index, i);
  EXPECT_EQ(o.worst[0].coords, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(o.worst[0].channel, 4);
  EXPECT_EQ(o.worst[0].ulp, 7u);
  EXPECT_EQ(o.worst[0].candidate, v);
  EXPECT_EQ(o.channels[4].mismatches, 1);
  EXPECT_EQ(o.channels[3].mismatches, 0);
  for (std::size_t k = 1; k < c.outputs.size(); ++k) EXPECT_TRUE(c.outputs[k].passed);
}

// Ranked by |a-b|, a tiny value far off in ULP is not among the worst: the diff names it beside
// the list, and only then.
TEST(Diff, TheMaxUlpElementIsNamedWhenTheWorstListLacksIt) {
  const std::int64_t n = 64;
  std::vector<double> ref(n, 1.0), cand(n, 1.0);
  for (std::int64_t i = 0; i < 4; ++i) cand[i] = 1.0 + 0.01 * static_cast<double>(i + 1);
  ref[40] = 1e-30, cand[40] = 3e-30;  // |a-b| 2e-30, a distance of millions of ULP
  const auto output = [&](const std::vector<double>& v) {
    return OutputTensor{"x_backprop", Tensor::from_doubles(DType::F32, {n}, v), true};
  };
  DiffOptions opt;
  opt.worst_k = 3;
  OutputDiff d = compare_output(output(ref), output(cand), opt);
  ASSERT_EQ(d.worst.size(), 3u);
  EXPECT_EQ(d.worst[0].index, 3);
  EXPECT_EQ(d.max_ulp, ulp_distance(3e-30, 1e-30, DType::F32));
  ASSERT_TRUE(d.max_ulp_element.has_value());
  EXPECT_EQ(d.max_ulp_element->index, 40);
  EXPECT_EQ(d.max_ulp_element->ulp, d.max_ulp);
  EXPECT_DOUBLE_EQ(d.max_ulp_element->candidate, static_cast<float>(3e-30));

  // Listed already: nothing beside the list.
  ref[40] = cand[40] = 1.0;
  ref[41] = 1e-30, cand[41] = 1.0;
  d = compare_output(output(ref), output(cand), opt);
  EXPECT_EQ(d.worst[0].index, 41);
  EXPECT_FALSE(d.max_ulp_element.has_value());
  // No list asked for: nothing looked for.
  ref[41] = cand[41] = 1.0;
  ref[40] = 1e-30, cand[40] = 3e-30;
  opt.worst_k = 0;
  EXPECT_FALSE(compare_output(output(ref), output(cand), opt).max_ulp_element.has_value());
}

TEST(Diff, ScaledChannelIsFlaggedInBothLayouts) {
  for (DataFormat format : {DataFormat::NHWC, DataFormat::NCHW}) {
    Fixture f = make(format);
    std::vector<OutputTensor> cand = f.result.outputs;
    Tensor& dx = out(cand, "x_backprop").tensor;
    const ChannelView& v = f.prepared.view;
    for (std::int64_t o = 0; o < v.outer; ++o)
      for (std::int64_t in = 0; in < v.inner; ++in) {
        const std::int64_t idx = v.index(o, 2, in);
        dx.set(idx, dx.get(idx) * 1.5 + 0.01);
      }
    Comparison c = compare_results("ref", f.result.outputs, "cand", cand, {}, &v);
    const OutputDiff& d = c.outputs[0];
    ASSERT_EQ(d.channels.size(), 5u);
    for (const ChannelError& ch : d.channels) {
      EXPECT_EQ(ch.mismatches > 0, ch.channel == 2) << "channel " << ch.channel;
      EXPECT_EQ(ch.count, v.per_channel());
    }
    for (const ElementError& e : d.worst) EXPECT_EQ(e.channel, 2);
    EXPECT_FALSE(d.passed);
  }
}

TEST(Diff, NanHandlingIsExplicit) {
  OutputTensor a{"y", Tensor::from_doubles(DType::F32, {3}, std::vector<double>{1, NAN, 3}), true,
                 0};
  OutputTensor b = a;
  Comparison both = compare_results("r", {a}, "c", {b}, {});
  EXPECT_TRUE(both.passed);
  EXPECT_EQ(both.outputs[0].nan_both, 1);
  // A pass that says so: the two sides failed alike there.
  ASSERT_EQ(both.notes.size(), 1u);
  EXPECT_EQ(both.notes[0], "y: 1 of 3 elements NaN in both c and r, counted as agreeing");
  DiffOptions strict;
  strict.nan_equal = false;
  EXPECT_FALSE(compare_results("r", {a}, "c", {b}, strict).passed);
  b.tensor.set(0, NAN);
  Comparison one = compare_results("r", {a}, "c", {b}, {});
  EXPECT_FALSE(one.passed);
  EXPECT_EQ(one.outputs[0].nan_mismatches, 1);
  EXPECT_TRUE(std::isinf(one.outputs[0].tolerance_ratio));
  EXPECT_EQ(one.outputs[0].histogram.back(), 1);
}

TEST(Diff, UndefinedOutputsAreSkipped) {
  OutputTensor a{"reserve_space_1",
                 Tensor::from_doubles(DType::F32, {2}, std::vector<double>{1, 2}), false, 0};
  OutputTensor b{"reserve_space_1",
                 Tensor::from_doubles(DType::F32, {2}, std::vector<double>{5, 6}), true, 0};
  Comparison c = compare_results("r", {a}, "c", {b}, {});
  EXPECT_TRUE(c.passed);
  EXPECT_FALSE(c.outputs[0].compared);
  EXPECT_NE(c.outputs[0].note.find("undefined"), std::string::npos);
}

TEST(Diff, TolerancesDefaultPerDtypeAndOverridePerOutput) {
  EXPECT_EQ(default_tolerance(DType::F16).atol, 2e-3);
  EXPECT_EQ(default_tolerance(DType::BF16).atol, 1e-2);
  EXPECT_EQ(default_tolerance(DType::F32).atol, 1e-3);
  DiffOptions o;
  o.atol = 0.5;
  o.output_rtol["x_backprop"] = 0.25;
  EXPECT_EQ(o.tolerance_for("x_backprop", DType::F32).atol, 0.5);
  EXPECT_EQ(o.tolerance_for("x_backprop", DType::F32).rtol, 0.25);
  EXPECT_EQ(o.tolerance_for("scale_backprop", DType::F32).rtol, 1e-3);
  // |a-b| <= atol + rtol*|b| with b the reference.
  OutputTensor ref{"v", Tensor::from_doubles(DType::F64, {1}, std::vector<double>{10}), true, 0};
  OutputTensor cand{"v", Tensor::from_doubles(DType::F64, {1}, std::vector<double>{10.5}), true, 0};
  DiffOptions t;
  t.atol = 0.3;
  t.rtol = 0.02;
  EXPECT_TRUE(compare_results("r", {ref}, "c", {cand}, t).passed);
  t.rtol = 0.01;
  Comparison c = compare_results("r", {ref}, "c", {cand}, t);
  EXPECT_FALSE(c.passed);
  EXPECT_NEAR(c.outputs[0].required_atol, 0.4, 1e-12);
}

TEST(Diff, ErrorHistogramUsesDecades) {
  OutputTensor ref{"v", Tensor::from_doubles(DType::F64, {4}, std::vector<double>{1, 1, 1, 1}),
                   true, 0};
  OutputTensor cand{
      "v", Tensor::from_doubles(DType::F64, {4}, std::vector<double>{1, 1 + 3e-5, 1 + 4e-5, 1.5}),
      true, 0};
  Comparison c = compare_results("r", {ref}, "c", {cand}, {});
  const auto& h = c.outputs[0].histogram;
  ASSERT_EQ(static_cast<int>(h.size()), histogram_bin_count());
  EXPECT_EQ(h[0], 1);
  int bin_5 = -1;
  for (int b = 0; b < histogram_bin_count(); ++b)
    if (histogram_bin_label(b) == "1e-5..1e-4") bin_5 = b;
  ASSERT_GE(bin_5, 0);
  EXPECT_EQ(h[static_cast<std::size_t>(bin_5)], 2);
}

TEST(Diff, LoadsExpectedOutputsFromNpzAndDirectory) {
  Fixture f = make();
  const auto dir = std::filesystem::temp_directory_path() / "bnscope_diff_load_test";
  std::filesystem::create_directories(dir);
  const std::string npz = (dir / "expected.npz").string();
  write_npz(npz, {{"out_x_backprop", out(f.result.outputs, "x_backprop").tensor},
                  {"scale_backprop", out(f.result.outputs, "scale_backprop").tensor},
                  {"x", f.problem.inputs.at("x")}});
  auto loaded = load_expected_outputs(npz, *f.prepared.op);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].name, "x_backprop");
  EXPECT_TRUE(compare_results("file", loaded, "cpu-reference", f.result.outputs, {}).passed);
  write_npy((dir / "offset_backprop.npy").string(),
            out(f.result.outputs, "offset_backprop").tensor);
  auto from_dir = load_expected_outputs(dir.string(), *f.prepared.op);
  ASSERT_EQ(from_dir.size(), 1u);
  EXPECT_EQ(from_dir[0].name, "offset_backprop");
  EXPECT_THROW(load_expected_outputs((dir / "missing.npz").string(), *f.prepared.op), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bnscope
