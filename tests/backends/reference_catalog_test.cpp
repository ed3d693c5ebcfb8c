// Every catalog op, in every CPU dtype, allowed format and both conventions, runs on cpu-reference
// with TensorFlow's output names, and a grad fed its own forward's reserve spaces raises no
// reserve-space warning (the check must stay quiet on real half-precision data).

#include "ops/sample.h"
#include "reference_util.h"

namespace bnscope {
namespace {

TEST(ReferenceCatalog, EveryOpRunsAndConsistentReservesAreQuiet) {
  for (const OpSpec& op : op_catalog()) {
    std::vector<std::string_view> formats{"NHWC"};
    if (const AttrSpec* a = op.attr("data_format")) formats = a->allowed;
    for (std::string_view format : formats)
      for (DType d : op.cpu_types)
        for (ReserveConvention conv : {ReserveConvention::Variance, ReserveConvention::InvStd}) {
          SCOPED_TRACE(std::string(op.name) + " " + std::string(format) + " " +
                       std::string(dtype_name(d)) + " " + std::string(convention_name(conv)));
          SampleSpec s;
          s.op = std::string(op.name);
          s.format = *parse_data_format(format);
          s.shape = s.format == DataFormat::NDHWC || s.format == DataFormat::NCDHW
                        ? Shape{2, 3, 4, 5, 6}
                        : Shape{4, 6, 5, 7};
          s.dtype = d;
          s.convention = conv;
          const Result r = run_problem(random_problem(s), "cpu-reference");
          ASSERT_EQ(r.outputs.size(), op.outputs.size());
          for (std::size_t i = 0; i < op.outputs.size(); ++i) {
            EXPECT_EQ(r.outputs[i].name, op.outputs[i].name);
            if (r.outputs[i].defined) {
              EXPECT_EQ(r.outputs[i].non_finite, 0) << r.outputs[i].name;
            }
          }
          EXPECT_EQ(r.outputs[0].tensor.dtype(), d);
          EXPECT_FALSE(testing::has_note(r.notes, "reserve-mismatch"));
          EXPECT_FALSE(testing::has_note(r.notes, "reserve-convention"));
        }
  }
}

}  // namespace
}  // namespace bnscope
