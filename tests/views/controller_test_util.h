#pragma once
// Shared by the controller's test suites.

#include "problem_controller.h"

namespace bnscope::test {

// Waits for the run and checks the outcome against cpu-reference run directly on the same
// problem, or against the error validation gives it.
void expect_engine_answer(ProblemController& c);

// Adds the "holding" backend (views_test_util.h) to the registry, once per process.
void register_holding_backend();

}  // namespace bnscope::test
