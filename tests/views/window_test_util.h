#pragma once
// Shared by the main window's test suites.

#include "main_window.h"

namespace bnscope::test {

// Waits for the run and checks the channel table against cpu-reference run directly on the
// window's problem, or the run status against the error validation gives it.
void expect_table_is_engine(MainWindow& w);

// Settings go to a test organization's file, never the user's.
void isolate_settings();

}  // namespace bnscope::test
