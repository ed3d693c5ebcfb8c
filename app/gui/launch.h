#pragma once
// What the app opens at start: the built-in sample, a problem file, or the CLI's problem flags.

#include <QStringList>

#include "ops/problem.h"

namespace bnscope {

// What `bnscope --help` prints.
QString usage_text();

// resources/samples/default.npz when it is there, otherwise the same sample generated
// (FusedBatchNormGradV3, NHWC, training).
Problem builtin_sample();
// The sample capture folder (resources/captures/sample), found like the built-in sample.
QString sample_capture_path();

// No arguments: the sample. Otherwise the problem flags bnscope-cli takes (--op, --input
// NAME=PATH, --inputs, --attr, ...). Throws Error. A file argument is MainWindow::openFile's.
Problem problem_from_arguments(const QStringList& args);

}  // namespace bnscope
