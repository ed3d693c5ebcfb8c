#pragma once
// The CLI's words for the options core's errors are about: its flags.

#include "tensor/error.h"

namespace bnscope::cli {

const OptionWords& cli_option_words();

}  // namespace bnscope::cli
