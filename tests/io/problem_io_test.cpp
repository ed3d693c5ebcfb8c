#include "ops/problem_io.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io/npz.h"
#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;
using test::fixture;
using test::grid;

// Every attr set to a typed value other than its default, so a lost attr shows.
Problem full_problem(const OpSpec& op) {
  Problem p;
  p.op = std::string(op.name);
  for (const AttrSpec& a : op.attrs) {
    switch (a.type) {
      case AttrType::Float:
        p.attrs[std::string(a.name)] = 0.1 + 1e-17 * 3;  // needs all 17 digits
        break;
      case AttrType::Bool:
        p.attrs[std::string(a.name)] = a.default_value != "true";
        break;
      case AttrType::String:
        p.attrs[std::string(a.name)] =
            a.allowed.empty() ? std::string("x \"quoted\"\n") : std::string(a.allowed.back());
        break;
    }
  }
  int k = 0;
  for (const ArgSpec& in : op.inputs)
    p.inputs.emplace(std::string(in.name), grid(kAllDTypes[k++ % 4], {2, 1, 3}));
  p.dtype = DType::BF16;
  p.convention = ReserveConvention::InvStd;
  p.strict = true;
  return p;
}

void expect_same_problem(const Problem& a, const Problem& b) {
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.attrs, b.attrs);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.convention, b.convention);
  EXPECT_EQ(a.strict, b.strict);
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (const auto& [name, t] : a.inputs) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(b.inputs.count(name));
    test::expect_same_tensor(t, b.inputs.at(name));
  }
}

TEST(ProblemIo, RoundTripsEveryCatalogOp) {
  test::ScratchDir dir;
  for (const OpSpec& op : op_catalog()) {
    SCOPED_TRACE(std::string(op.name));
    const Problem p = full_problem(op);
    save_problem(dir / "p.npz", p);
    expect_same_problem(p, load_problem(dir / "p.npz"));
  }
}

TEST(ProblemIo, RoundTripsDefaultsAndNonFiniteAttrs) {
  test::ScratchDir dir;
  Problem p;  // default op, no attrs, no inputs, dtype unset
  save_problem(dir / "d.npz", p);
  const Problem back = load_problem(dir / "d.npz");
  expect_same_problem(p, back);
  EXPECT_FALSE(back.dtype.has_value());

  p.attrs["epsilon"] = -INFINITY;
  save_problem(dir / "n.npz", p);
  EXPECT_EQ(std::get<double>(load_problem(dir / "n.npz").attrs.at("epsilon")), -INFINITY);
  p.attrs["epsilon"] = std::nan("");
  save_problem(dir / "n.npz", p);
  EXPECT_TRUE(std::isnan(std::get<double>(load_problem(dir / "n.npz").attrs.at("epsilon"))));
}

TEST(ProblemIo, ArchiveWithoutProblemJsonTakesTheDefaultOpsInputs) {
  const Problem p = load_problem(fixture("grad_inputs.npz"));
  EXPECT_EQ(p.op, Problem().op);
  ASSERT_EQ(p.inputs.size(), 2u) << "'unrelated' is not an input of " << p.op;
  EXPECT_EQ(p.inputs.at("x").shape(), (Shape{1, 2, 4, 3}));
  EXPECT_EQ(p.inputs.at("y_backprop").shape(), (Shape{1, 1, 2, 3}));
}

TEST(ProblemIo, AddNpzInputsTakesOnlyTheOpsInputNames) {
  const std::string path = fixture("grad_inputs.npz");
  for (const OpSpec& op : op_catalog()) {
    SCOPED_TRACE(std::string(op.name));
    Problem p;
    p.op = std::string(op.name);
    const auto added = add_npz_inputs(p, path);
    std::vector<std::string> expected;
    for (const char* name : {"y_backprop", "x"})  // archive order
      if (op.input_index(name) >= 0) expected.push_back(name);
    EXPECT_EQ(added, expected);
    EXPECT_EQ(p.inputs.size(), expected.size());
  }
}

// Inputs the caller vouches for are taken as they are; every other member is read, and the
// members are still checked by name.
TEST(ProblemIo, InputsReadBeforeAreTakenAsTheyAre) {
  test::ScratchDir dir;
  Problem p;
  p.inputs["x"] = grid(DType::F32, {1, 2, 4, 3});
  p.inputs["y_backprop"] = grid(DType::F32, {1, 2, 4, 3});
  save_problem(dir / "p.npz", p);
  const Problem first = load_problem(dir / "p.npz");
  const Problem again = load_problem(dir / "p.npz", {{"x", first.inputs.at("x")}});
  EXPECT_TRUE(again.inputs.at("x").shares_storage_with(first.inputs.at("x")));
  EXPECT_FALSE(again.inputs.at("y_backprop").shares_storage_with(first.inputs.at("y_backprop")));
  EXPECT_EQ(again.inputs.at("y_backprop").to_doubles(), p.inputs.at("y_backprop").to_doubles());
  EXPECT_EQ(again.inputs.size(), 2u);
  // A name the caller gives that the file lacks adds nothing.
  const Problem extra = load_problem(dir / "p.npz", {{"scale", grid(DType::F32, {3})}});
  EXPECT_EQ(extra.inputs.count("scale"), 0u);
}

TEST(ProblemIo, SaveRejectsWhatItCouldNotLoad) {
  test::ScratchDir dir;
  Problem p;
  p.op = "NoSuchOp";
  expect_error([&] { save_problem(dir / "p.npz", p); }, {"unknown op 'NoSuchOp'"});
  p = Problem();
  p.attrs["epsilon"] = std::string("small");
  expect_error([&] { save_problem(dir / "p.npz", p); }, {"attr 'epsilon' must be a number"});
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ProblemIo, MalformedProblemJsonNamesTheMember) {
  test::ScratchDir dir;
  const std::string path = dir / "bad.npz";
  const std::string where = path + ":problem.json";
  const struct {
    std::string json;
    std::string problem;
  } cases[] = {
      {"{\"bnscope_problem\": 1, \"op\": \"Nope\"}", "unknown op 'Nope'"},
      {"{\"bnscope_problem\": 2, \"op\": \"FusedBatchNormGradV3\"}", "\"bnscope_problem\": 1"},
      {"{\"op\": \"FusedBatchNormGradV3\"}", "\"bnscope_problem\": 1"},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\", \"attrs\": {\"epsilon\": "
       "\"1e-3\"}}",
       "attr 'epsilon' must be a number"},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\", \"attrs\": {\"eps\": 1}}",
       "unknown attr 'eps'"},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\", \"dtype\": \"int8\"}",
       "\"dtype\" must be"},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\", \"convention\": 1}",
       "\"convention\" must be"},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\", \"strict\": \"yes\"}",
       "\"strict\" must be"},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\", \"extra\": 1}",
       "unexpected key \"extra\""},
      {"{\"bnscope_problem\": 1, \"op\": \"FusedBatchNormGradV3\",}", "malformed JSON"},
      {"[]", "expected a JSON object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    write_npz(path, {}, {{"problem.json", c.json}});
    expect_error([&] { load_problem(path); }, {where, c.problem});
  }
}

}  // namespace
}  // namespace bnscope
