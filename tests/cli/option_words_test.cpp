// The CLI words every option core's errors can be about as the flag that sets it.

#include "option_words.h"

#include <gtest/gtest.h>

namespace bnscope::test {

TEST(CliOptionWords, EveryOptionIsItsFlag) {
  for (Option o : all_options()) {
    const std::string_view name = cli::cli_option_words().name(o);
    EXPECT_EQ(name.substr(0, 2), "--") << static_cast<int>(o);
  }
  EXPECT_EQ(cli::cli_option_words().name(Option::Against), "--against");
}

TEST(CliOptionWords, AnErrorReadsAsTheFlagWithItsValue) {
  const ErrorParts parts{Option::Reps, "0", {}, "at least 1"};
  EXPECT_EQ(error_text(parts, cli::cli_option_words()), "--reps 0: expected at least 1");
  const ErrorParts strict{{}, {}, "TensorFlow would reject this: x is float64", {}, Option::Strict};
  EXPECT_EQ(error_text(Error(ErrorCode::InvalidArgument, strict), cli::cli_option_words()),
            "TensorFlow would reject this: x is float64 (--strict)");
  // Any other exception reads as it is.
  EXPECT_EQ(error_text(std::runtime_error("disk full"), cli::cli_option_words()), "disk full");
}

}  // namespace bnscope::test
