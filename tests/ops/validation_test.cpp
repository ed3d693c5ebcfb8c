// One test per validation rule of prepare(), with TensorFlow's exact message text where
// TensorFlow has one, the advisory inputs of spec section 7, and the TfWouldReject notes.

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/engine.h"
#include "ops/prepared.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

Tensor zeros(Shape s, DType d = DType::F32) {
  return Tensor(d, std::move(s));
}
Tensor ones(Shape s, DType d = DType::F32) {
  Tensor t(d, std::move(s));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, 1.0);
  return t;
}

// prepare()'s error; every rule's test also checks that validation_problems() starts with it.
std::string error_of(const Problem& p) {
  const std::vector<ValidationProblem> all = validation_problems(p);
  try {
    prepare(p);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    EXPECT_EQ(all.empty() ? std::string("(none)") : all.front().message, e.what());
    return e.what();
  }
  EXPECT_TRUE(all.empty()) << (all.empty() ? "" : all.front().message);
  return "(no error)";
}

std::vector<std::string> subjects(const std::vector<ValidationProblem>& v) {
  std::vector<std::string> out;
  for (const ValidationProblem& q : v) out.push_back(q.subject);
  return out;
}

bool has_note(const Prepared& p, const std::string& code, NoteKind kind) {
  for (const Note& n : p.notes)
    if (n.code == code && n.kind == kind) return true;
  return false;
}

// A valid FusedBatchNormGradV2 on NHWC x [2,3,4,5]: C = 5.
Problem grad(std::string op = "FusedBatchNormGradV2") {
  Problem p;
  p.op = std::move(op);
  p.inputs["y_backprop"] = ones({2, 3, 4, 5});
  p.inputs["x"] = ones({2, 3, 4, 5});
  p.inputs["scale"] = ones({5});
  p.inputs["reserve_space_1"] = zeros({5});
  p.inputs["reserve_space_2"] = ones({5});
  return p;
}

Problem forward(std::string op = "FusedBatchNormV3") {
  Problem p;
  p.op = std::move(op);
  p.inputs["x"] = ones({2, 3, 4, 5});
  p.inputs["scale"] = ones({5});
  p.inputs["offset"] = zeros({5});
  p.inputs["mean"] = zeros({0});
  p.inputs["variance"] = zeros({0});
  return p;
}

Problem global(bool is_grad) {
  Problem p;
  p.op = is_grad ? "BatchNormWithGlobalNormalizationGrad" : "BatchNormWithGlobalNormalization";
  p.inputs["t"] = ones({2, 3, 4, 5});
  p.inputs["m"] = zeros({5});
  p.inputs["v"] = ones({5});
  p.inputs["gamma"] = ones({5});
  if (is_grad)
    p.inputs["backprop"] = ones({2, 3, 4, 5});
  else
    p.inputs["beta"] = zeros({5});
  p.set_attr("variance_epsilon", "0.001");
  p.set_attr("scale_after_normalization", "true");
  return p;
}

TEST(Validation, ValidProblemsPrepare) {
  for (const Problem& p : {grad(), forward(), global(true), global(false)}) {
    EXPECT_NO_THROW(prepare(p)) << p.op;
    EXPECT_TRUE(validation_problems(p).empty()) << p.op;
  }
}

// --- every problem at once (the app lists them all; the CLI keeps the first) ---

TEST(ValidationProblems, ThreeIndependentErrorsAreAllReportedFirstAsPrepareThrows) {
  Problem p = grad();
  p.attrs["epsilon"] = std::string("small");
  p.inputs["reserve_space_1"] = ones({5, 1});
  p.inputs["scale"] = ones({3});
  const std::vector<ValidationProblem> all = validation_problems(p);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].message, error_of(p));
  EXPECT_EQ(all[0].message, "attr 'epsilon' must be a number");
  EXPECT_EQ(all[1].message, "saved mean must be 1-dimensional[5,1]");
  EXPECT_EQ(all[2].message,
            "scale must have the same number of elements as the channels of x, got 3 and 5");
  EXPECT_EQ(subjects(all), (std::vector<std::string>{"epsilon", "reserve_space_1", "scale"}));
}

TEST(ValidationProblems, ChecksThatDependOnAFailedInputAreSkipped) {
  // x is 3-D: the channel counts cannot be judged, and the wrong-length scale is not blamed.
  Problem p = grad();
  p.inputs["x"] = ones({2, 3, 4});
  p.inputs["scale"] = ones({3});
  p.inputs.erase("reserve_space_2");
  const std::vector<ValidationProblem> all = validation_problems(p);
  EXPECT_EQ(all.front().message, error_of(p));
  EXPECT_EQ(subjects(all), (std::vector<std::string>{"reserve_space_2", "x"}));
  EXPECT_EQ(all[0].message.rfind("missing input 'reserve_space_2'", 0), 0u);
  // A bad data_format leaves the channel axis unknown too.
  Problem q = grad();
  q.attrs["data_format"] = std::string("HWCN");
  q.inputs["scale"] = ones({3});
  q.inputs["reserve_space_2"] = ones({5, 1});
  EXPECT_EQ(subjects(validation_problems(q)),
            (std::vector<std::string>{"data_format", "reserve_space_2"}));
}

TEST(ValidationProblems, GlobalOpsListEveryInput) {
  Problem p = global(true);
  p.inputs["m"] = zeros({4});
  p.inputs["gamma"] = ones({5, 1});
  p.inputs["backprop"] = ones({2, 3, 4, 6});
  const std::vector<ValidationProblem> all = validation_problems(p);
  EXPECT_EQ(all.front().message, error_of(p));
  EXPECT_EQ(subjects(all), (std::vector<std::string>{"gamma", "m", "backprop"}));
  Problem unknown = grad();
  unknown.op = "NoSuchOp";
  EXPECT_EQ(validation_problems(unknown).size(), 1u);
  EXPECT_EQ(validation_problems(unknown).front().message, error_of(unknown));
}

// Driven by the catalog: for every op, a bad epsilon and two per-channel inputs of the wrong rank
// are three problems, the first the one prepare() throws.
TEST(ValidationProblems, EveryCatalogOpReportsEachBrokenInput) {
  for (const OpSpec& op : op_catalog()) {
    Problem p = op.family == OpFamily::GlobalNorm ? global(op.is_grad)
                : op.is_grad                      ? grad(std::string(op.name))
                                                  : forward(std::string(op.name));
    p.op = std::string(op.name);
    p.attrs[std::string(op.epsilon_attr())] = std::string("tiny");
    p.inputs[std::string(op.scale_input)] = ones({5, 1});
    p.inputs[std::string(op.mean_input)] = ones({1, 5});
    const std::vector<ValidationProblem> all = validation_problems(p);
    ASSERT_EQ(all.size(), 3u) << op.name << ": " << all.front().message;
    EXPECT_EQ(all[0].message, error_of(p)) << op.name;
    EXPECT_EQ(all[0].subject, op.epsilon_attr()) << op.name;
    std::vector<std::string> inputs{all[1].subject, all[2].subject};
    std::sort(inputs.begin(), inputs.end());
    std::vector<std::string> broken{std::string(op.scale_input), std::string(op.mean_input)};
    std::sort(broken.begin(), broken.end());
    EXPECT_EQ(inputs, broken) << op.name;
  }
}

// Inputs that already have the op's dtype are the problem's own buffers, not copies; one that is
// converted is a new buffer and the problem's stays as it was.
TEST(Validation, PrepareSharesInputsThatNeedNoConversion) {
  Problem p = grad();
  p.inputs["scale"] = ones({5}, DType::F64);
  const Prepared prepared = prepare(p);
  EXPECT_TRUE(prepared.in("x").shares_storage_with(p.inputs.at("x")));
  EXPECT_TRUE(prepared.in("y_backprop").shares_storage_with(p.inputs.at("y_backprop")));
  EXPECT_FALSE(prepared.in("scale").shares_storage_with(p.inputs.at("scale")));
  EXPECT_EQ(prepared.in("scale").dtype(), DType::F32);
  EXPECT_EQ(p.inputs.at("scale").dtype(), DType::F64);
}

// --- grad ops: ranks, shape equality, channel counts (spec 3.2) ---

TEST(Validation, GradYBackpropRank) {
  Problem p = grad();
  p.inputs["y_backprop"] = ones({2, 3});
  EXPECT_EQ(error_of(p), "input must be 4 or 5-dimensional[2,3]");
}

TEST(Validation, GradXRank) {
  Problem p = grad();
  p.inputs["x"] = ones({2, 3, 4, 5, 1, 1});
  EXPECT_EQ(error_of(p), "input must be 4 or 5-dimensional[2,3,4,5,1,1]");
}

TEST(Validation, GradScaleRank) {
  Problem p = grad();
  p.inputs["scale"] = ones({5, 1});
  EXPECT_EQ(error_of(p), "scale must be 1-dimensional[5,1]");
}

TEST(Validation, GradSavedMeanRank) {
  Problem p = grad();
  p.inputs["reserve_space_1"] = ones({});
  EXPECT_EQ(error_of(p), "saved mean must be 1-dimensional[]");
}

TEST(Validation, GradSavedVarianceRank) {
  Problem p = grad();
  p.inputs["reserve_space_2"] = ones({1, 5});
  EXPECT_EQ(error_of(p), "saved variance must be 1-dimensional[1,5]");
}

TEST(Validation, GradShapeEquality) {
  Problem p = grad();
  p.inputs["y_backprop"] = ones({2, 3, 4, 6});
  EXPECT_EQ(error_of(p),
            "x and y_backprop must have same shape, but x has shape [2,3,4,5] and y_backprop has "
            "shape [2,3,4,6]");
}

TEST(Validation, GradChannelCounts) {
  for (const char* name : {"scale", "reserve_space_1", "reserve_space_2"}) {
    Problem p = grad();
    p.inputs[name] = ones({3});
    EXPECT_EQ(error_of(p), std::string(name) +
                               " must have the same number of elements as the channels of x, "
                               "got 3 and 5");
  }
}

TEST(Validation, GradChannelCountsFollowDataFormat) {
  Problem p = grad();
  p.set_attr("data_format", "NCHW");  // C = 3 now, so the [5] vectors are wrong
  EXPECT_EQ(error_of(p),
            "scale must have the same number of elements as the channels of x, got 5 and 3");
}

TEST(Validation, GradReserveSpace3NeverValidated) {
  Problem p = grad("FusedBatchNormGradV3");
  p.inputs["reserve_space_3"] = ones({7, 2});
  EXPECT_NO_THROW(prepare(p));
}

// --- forward ops (spec 5) ---

TEST(Validation, ForwardRanks) {
  const std::pair<const char*, const char*> cases[] = {
      {"scale", "scale must be 1-dimensional[]"},
      {"offset", "offset must be 1-dimensional[]"},
      {"mean", "estimated_mean must be 1-dimensional[]"},
      {"variance", "estimated_variance must be 1-dimensional[]"}};
  for (const auto& [name, message] : cases) {
    Problem p = forward();
    p.inputs[name] = ones({});  // a scalar errors even in training, where mean is unused
    EXPECT_EQ(error_of(p), message);
  }
  Problem p = forward();
  p.inputs["x"] = ones({2, 3, 4});
  EXPECT_EQ(error_of(p), "input must be 4 or 5-dimensional[2,3,4]");
}

TEST(Validation, ForwardScaleOffsetCounts) {
  for (const char* name : {"scale", "offset"}) {
    Problem p = forward();
    p.inputs[name] = ones({4});
    EXPECT_EQ(error_of(p), std::string(name) +
                               " must have the same number of elements as the channels of x, got "
                               "4 and 5");
  }
}

TEST(Validation, ForwardStatsCountsWhenInference) {
  for (const char* name : {"mean", "variance"}) {
    Problem p = forward();
    p.set_attr("is_training", "false");
    p.inputs["mean"] = zeros({5});
    p.inputs["variance"] = ones({5});
    p.inputs[name] = ones({0});
    EXPECT_EQ(error_of(p), "When is_training=false, " + std::string(name) +
                               " must have the same number of elements as the channels of x, got "
                               "0 and 5");
  }
}

TEST(Validation, ForwardStatsCountsWhenRunningAverage) {
  for (const char* name : {"mean", "variance"}) {
    Problem p = forward();
    p.set_attr("exponential_avg_factor", "0.5");
    p.inputs["mean"] = zeros({5});
    p.inputs["variance"] = ones({5});
    p.inputs[name] = ones({0});
    EXPECT_EQ(error_of(p), "When exponential_avg_factor != 1, " + std::string(name) +
                               " must have the same number of elements as the channels of x, got "
                               "0 and 5");
  }
}

TEST(Validation, ForwardStatsMayBeOmittedInTraining) {
  Problem p = forward();
  p.inputs.erase("mean");
  p.inputs.erase("variance");
  EXPECT_NO_THROW(prepare(p));
}

// --- attrs, names ---

TEST(Validation, DataFormatNotAllowed) {
  Problem p = grad("FusedBatchNormGradV2");
  p.inputs["x"] = ones({2, 3, 4, 5, 1});
  p.inputs["y_backprop"] = ones({2, 3, 4, 5, 1});
  p.set_attr("data_format", "NDHWC");
  EXPECT_EQ(error_of(p),
            "Value for attr 'data_format' of \"NDHWC\" is not in the list of allowed values: "
            "\"NHWC\", \"NCHW\"");
  Problem q = forward();
  q.set_attr("data_format", "HWCN");
  EXPECT_EQ(error_of(q),
            "Value for attr 'data_format' of \"HWCN\" is not in the list of allowed values: "
            "\"NHWC\", \"NCHW\", \"NDHWC\", \"NCDHW\"");
}

TEST(Validation, UnknownOp) {
  Problem p = grad();
  p.op = "FusedBatchNormGradV4";
  EXPECT_EQ(error_of(p), "unknown op 'FusedBatchNormGradV4'; expected one of " + op_names_joined());
}

TEST(Validation, UnknownInput) {
  Problem p = grad();
  p.inputs["offset"] = ones({5});
  EXPECT_EQ(error_of(p),
            "unknown input 'offset' for FusedBatchNormGradV2; expected one of y_backprop, x, "
            "scale, reserve_space_1, reserve_space_2");
}

TEST(Validation, MissingInput) {
  Problem p = grad();
  p.inputs.erase("scale");
  EXPECT_EQ(error_of(p),
            "missing input 'scale': FusedBatchNormGradV2 takes y_backprop, x, scale, "
            "reserve_space_1, reserve_space_2");
}

TEST(Validation, UnknownAttr) {
  Problem p = grad();
  p.attrs["exponential_avg_factor"] = 0.5;  // a forward-only attr
  EXPECT_EQ(error_of(p),
            "unknown attr 'exponential_avg_factor' for FusedBatchNormGradV2; expected one of "
            "epsilon, data_format, is_training");
  Problem q = grad();
  try {
    q.set_attr("momentum", "0.9");
    ADD_FAILURE() << "set_attr accepted an unknown attr";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown attr 'momentum' for FusedBatchNormGradV2; expected one of epsilon, "
              "data_format, is_training");
  }
}

TEST(Validation, BadAttrText) {
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"epsilon", "abc", "attr 'epsilon' of FusedBatchNormGradV2 expects a number, got 'abc'"},
      {"epsilon", "", "attr 'epsilon' of FusedBatchNormGradV2 expects a number, got ''"},
      {"epsilon", "1e999", "attr 'epsilon' of FusedBatchNormGradV2 expects a number, got '1e999'"},
      {"epsilon", "nan", "attr 'epsilon' of FusedBatchNormGradV2 must be finite, got 'nan'"},
      // Decimal notation only: strtod would read 0x10 as 16 and skip the blank.
      {"epsilon", "0x10", "attr 'epsilon' of FusedBatchNormGradV2 expects a number, got '0x10'"},
      {"epsilon", " 0.1", "attr 'epsilon' of FusedBatchNormGradV2 expects a number, got ' 0.1'"},
      {"is_training", "yes",
       "attr 'is_training' of FusedBatchNormGradV2 expects true or false, got 'yes'"}};
  for (const auto& [key, text, message] : cases) {
    Problem p = grad();
    try {
      p.set_attr(key, text);
      ADD_FAILURE() << key << "=" << text << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
}

TEST(Validation, GlobalOpsRequireTheirAttrs) {
  for (bool is_grad : {true, false})
    for (const char* attr : {"variance_epsilon", "scale_after_normalization"}) {
      Problem p = global(is_grad);
      p.attrs.erase(attr);
      EXPECT_EQ(error_of(p), "attr '" + std::string(attr) + "' is required by " + p.op +
                                 " (TensorFlow gives it no default)");
    }
}

// --- global ops: TensorFlow's rank checks (spec 3.7) and the checks TensorFlow lacks ---

TEST(Validation, GlobalRanks) {
  const std::tuple<bool, const char*, Shape, const char*> cases[] = {
      {true, "t", {2, 3, 4}, "input must be 4-dimensional[2,3,4]"},
      {true, "m", {5, 1}, "mean must be 1-dimensional[5,1]"},
      {true, "v", {}, "var must be 1-dimensional[]"},
      {true, "gamma", {1, 5}, "gamma must be 1-dimensional[1,5]"},
      {true, "backprop", {2, 3, 20}, "out_backprop must be 4-dimensional[2,3,20]"},
      {false, "beta", {5, 1}, "beta must be 1-dimensional[5,1]"},
      {false, "t", {2, 3, 4, 5, 1}, "input must be 4-dimensional[2,3,4,5,1]"}};
  for (const auto& [is_grad, name, shape, message] : cases) {
    Problem p = global(is_grad);
    p.inputs[name] = ones(shape);
    EXPECT_EQ(error_of(p), message) << name;
  }
}

TEST(Validation, GlobalChannelCountsTensorFlowDoesNotCheck) {
  for (const char* name : {"m", "v", "gamma"}) {
    Problem p = global(true);
    p.inputs[name] = ones({4});
    EXPECT_EQ(error_of(p), std::string(name) +
                               " must have the same number of elements as the channels of t, got "
                               "4 and 5");
  }
  Problem p = global(false);
  p.inputs["beta"] = ones({6});
  EXPECT_EQ(error_of(p),
            "beta must have the same number of elements as the channels of t, got 6 and 5");
}

TEST(Validation, GlobalBackpropShapeTensorFlowDoesNotCheck) {
  Problem p = global(true);
  p.inputs["backprop"] = ones({2, 3, 5, 5});
  EXPECT_EQ(error_of(p),
            "t and backprop must have same shape, but t has shape [2,3,4,5] and backprop has "
            "shape [2,3,5,5]");
}

TEST(Validation, GlobalZeroChannelsRunsWithoutDividingByZero) {
  // TensorFlow's functor computes rows = size / C; here C = 0 takes the empty-input path.
  Problem p = global(true);
  for (const char* n : {"m", "v", "gamma"}) p.inputs[n] = ones({0});
  p.inputs["t"] = ones({2, 3, 4, 0});
  p.inputs["backprop"] = ones({2, 3, 4, 0});
  const Result r = run_problem(p, "cpu-reference");
  EXPECT_EQ(r.output("dx").tensor.shape(), (Shape{2, 3, 4, 0}));
  for (const char* n : {"dm", "dv", "db", "dg"}) EXPECT_EQ(r.output(n).tensor.shape(), Shape{0});
}

// --- advisories (spec 7) ---

TEST(Validation, Cve2021_29583ForwardCountsAndEmptyTensors) {
  // scale/offset/mean/variance with counts != C, and empty ones, on FusedBatchNorm.
  for (const char* name : {"scale", "offset", "mean", "variance"})
    for (std::int64_t n : {0, 1, 3}) {
      Problem p = forward("FusedBatchNorm");
      p.inputs["x"] = ones({1, 2, 2, 2});
      p.inputs["scale"] = ones({2});
      p.inputs["offset"] = ones({2});
      p.inputs["mean"] = zeros({2});
      p.inputs["variance"] = ones({2});
      p.set_attr("is_training", "false");
      p.inputs[name] = ones({n});
      const std::string prefix = std::string(name) == "mean" || std::string(name) == "variance"
                                     ? "When is_training=false, "
                                     : "";
      EXPECT_EQ(error_of(p), prefix + name +
                                 " must have the same number of elements as the channels of x, "
                                 "got " +
                                 std::to_string(n) + " and 2");
    }
}

TEST(Validation, Issue59014EmptyScaleWith5dNcdhw) {
  Problem p = forward("FusedBatchNormV3");
  p.inputs["x"] = ones({1, 3, 2, 2, 2});
  p.inputs["scale"] = zeros({0});
  p.inputs["offset"] = zeros({3});
  p.set_attr("data_format", "NCDHW");
  EXPECT_EQ(error_of(p),
            "scale must have the same number of elements as the channels of x, got 0 and 3");
}

TEST(Validation, Cve2021_41223MalformedGrad) {
  Problem p;
  p.op = "FusedBatchNormGrad";
  p.inputs["y_backprop"] = ones({1, 1, 3, 3});
  p.inputs["x"] = ones({1, 1, 1, 2});
  p.inputs["scale"] = ones({2});
  p.inputs["reserve_space_1"] = ones({2});
  p.inputs["reserve_space_2"] = ones({3});
  p.set_attr("epsilon", "1.0");
  p.set_attr("data_format", "NCHW");
  p.set_attr("is_training", "true");
  EXPECT_EQ(error_of(p),
            "x and y_backprop must have same shape, but x has shape [1,1,1,2] and y_backprop has "
            "shape [1,1,3,3]");
  // With the shapes fixed, the reserve count is the next thing caught (C = 1 under NCHW).
  p.inputs["y_backprop"] = ones({1, 1, 1, 2});
  EXPECT_EQ(error_of(p),
            "scale must have the same number of elements as the channels of x, got 2 and 1");
}

// --- TfWouldReject notes and strict mode ---

TEST(Validation, FreezeModeNchwGradIsNotedAndStrictRejects) {
  Problem p = grad();
  p.inputs["x"] = ones({2, 5, 4, 3});
  p.inputs["y_backprop"] = ones({2, 5, 4, 3});
  p.set_attr("data_format", "NCHW");
  p.set_attr("is_training", "false");
  EXPECT_TRUE(has_note(prepare(p), "tf-reject-format", NoteKind::TfWouldReject));
  p.set_attr("is_training", "true");
  EXPECT_FALSE(has_note(prepare(p), "tf-reject-format", NoteKind::TfWouldReject));
  p.set_attr("is_training", "false");
  p.strict = true;
  EXPECT_EQ(error_of(p),
            "TensorFlow would reject this: The implementation of FusedBatchNormGrad with "
            "is_training=False only support NHWC tensor format for now. (strict mode)");
}

TEST(Validation, DeprecatedGlobalOpsAreNotedAndStrictRejects) {
  for (bool is_grad : {true, false}) {
    Problem p = global(is_grad);
    EXPECT_TRUE(has_note(prepare(p), "tf-reject-deprecated", NoteKind::TfWouldReject));
    p.strict = true;
    EXPECT_EQ(error_of(p),
              "TensorFlow would reject this: Op " + p.op +
                  " is not available in GraphDef version 9 or later. It has been "
                  "removed in version 9. Use tf.nn.batch_normalization(). (strict mode)");
  }
}

// Choosing T apart from x's dtype converts the inputs that are T: the person's choice, said as
// one, not as something TensorFlow would reject; an input that disagrees on its own still is.
TEST(Validation, ChosenDtypeConvertsAsChosen) {
  Problem p = grad();
  p.dtype = DType::F16;
  const Prepared prepared = prepare(p);
  EXPECT_FALSE(has_note(prepared, "tf-reject-dtype", NoteKind::TfWouldReject));
  std::vector<std::string> said;
  for (const Note& n : prepared.notes)
    if (n.code == "dtype-converted") said.push_back(note_text(n));
  EXPECT_EQ(said,
            (std::vector<std::string>{"converted y_backprop from float32 to float16 as chosen",
                                      "converted x from float32 to float16 as chosen"}));
  EXPECT_EQ(prepared.in("x").dtype(), DType::F16);
  p.strict = true;
  EXPECT_NO_THROW(prepare(p));

  Problem mixed = grad();
  mixed.inputs["y_backprop"] = mixed.inputs["y_backprop"].to(DType::F16);
  EXPECT_TRUE(has_note(prepare(mixed), "tf-reject-dtype", NoteKind::TfWouldReject));
  mixed.dtype = DType::F32;  // as x: y_backprop is still the odd one
  EXPECT_TRUE(has_note(prepare(mixed), "tf-reject-dtype", NoteKind::TfWouldReject));
}

TEST(Validation, UnregisteredDtypeIsNotedAndStrictRejects) {
  Problem p = grad("FusedBatchNormGrad");  // float only
  p.dtype = DType::F16;
  for (auto& [name, t] : p.inputs) t = t.to(DType::F16);
  EXPECT_TRUE(has_note(prepare(p), "tf-reject-dtype", NoteKind::TfWouldReject));
  p.strict = true;
  EXPECT_EQ(error_of(p),
            "TensorFlow would reject this: No registered kernel for FusedBatchNormGrad with "
            "T=half on CPU (strict mode)");
  // The rejection is structured: strict mode made it an error, for the front ends to word.
  const std::vector<ValidationProblem> all = validation_problems(p);
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all.front().parts.hint, Option::Strict);
  EXPECT_EQ(all.front().parts.problem,
            "TensorFlow would reject this: No registered kernel for FusedBatchNormGrad with "
            "T=half on CPU");
  Problem ok = grad("FusedBatchNormGradV2");
  ok.strict = true;
  EXPECT_NO_THROW(prepare(ok));
}

}  // namespace
}  // namespace bnscope
