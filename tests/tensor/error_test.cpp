// Core's errors about options: structured, worded by whoever shows them, and in core's own
// neutral words naming no front end's spelling of an option.

#include "tensor/error.h"

#include <gtest/gtest.h>

namespace bnscope::test {

namespace {

std::string_view shout(Option o) {
  return o == Option::Against ? "AGAINST" : "OTHER";
}
std::string bang(Option o) {
  return o == Option::None ? "" : "!";
}

}  // namespace

TEST(ErrorParts, AreComposedInTheGivenWords) {
  const OptionWords words{shout, bang};
  EXPECT_EQ(error_text(ErrorParts{Option::Against, "a.npz", "output y is missing"}, words),
            "AGAINST a.npz: output y is missing");
  EXPECT_EQ(error_text(ErrorParts{Option::Against, "a.npz", "y has shape [2]", "[3]"}, words),
            "AGAINST a.npz: y has shape [2], expected [3]");
  EXPECT_EQ(error_text(ErrorParts{Option::Filter, "zz", {}, "a label"}, words),
            "OTHER zz: expected a label");
  EXPECT_EQ(error_text(ErrorParts{{}, {}, "x is float64", {}, Option::Strict}, words),
            "x is float64!");
}

TEST(ErrorParts, TheNeutralWordsNameEveryOptionWithoutAFlag) {
  for (Option o : all_options()) {
    const std::string name(neutral_option_words().name(o));
    EXPECT_FALSE(name.empty()) << static_cast<int>(o);
    EXPECT_EQ(name.find("--"), std::string::npos) << name;
    EXPECT_EQ(neutral_option_words().hint(o).find("--"), std::string::npos);
  }
}

TEST(ErrorParts, AStructuredErrorKeepsItsPartsAndReadsNeutrally) {
  const Error e(
      ErrorCode::InvalidArgument,
      ErrorParts{Option::Against, "a.npz", "output y is missing", {}, Option::AllowMissing});
  EXPECT_TRUE(e.structured());
  EXPECT_EQ(e.parts().value, "a.npz");
  EXPECT_EQ(std::string(e.what()),
            "the saved outputs a.npz: output y is missing (allow missing outputs to compare only "
            "the outputs it holds)");
  EXPECT_FALSE(Error(ErrorCode::InvalidArgument, "plain").structured());
}

}  // namespace bnscope::test
