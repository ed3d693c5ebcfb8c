#include "launch.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <vector>

#include "ops/problem_io.h"
#include "problem_args.h"
#include "sample_source.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// Next to the executable when installed, else the source tree's resources.
QString sample_path() {
  const QString installed =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("samples/default.npz"));
  if (QFileInfo::exists(installed)) return installed;
  return QStringLiteral(BNSCOPE_RESOURCES_DIR "/samples/default.npz");
}

}  // namespace

QString sample_capture_path() {
  const QString installed =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("captures/sample"));
  if (QFileInfo::exists(installed)) return installed;
  return QStringLiteral(BNSCOPE_RESOURCES_DIR "/captures/sample");
}

QString usage_text() {
  return QStringLiteral(
      "usage: bnscope [FILE.npz | FILE.npy | CAPTURE_DIR]\n"
      "       bnscope [problem flags]\n\n"
      "The desktop debugger and profiler of TensorFlow's batch-norm gradient ops.\n"
      "Without arguments it opens the built-in sample; with a file, what File > Open makes of\n"
      "it: a problem .npz, or inputs (a .npz, a .npy named after an input) into the sample.\n\n"
      "problem flags (as bnscope-cli takes them): --op OP, --input NAME=PATH,\n"
      "--inputs FILE.npz, --problem FILE.npz, --attr KEY=VALUE, --dtype T,\n"
      "--convention variance|inv_std, --strict\n\n"
      "  --plugin PATH.so     load a kernel plugin as a backend (repeatable; also the folders\n"
      "                       of BNSCOPE_PLUGIN_PATH, and File > Load kernel plugin)\n"
      "  --plugin-in-process  run plugins in this process (for a debugger), not a helper\n"
      "  -h, --help   print this help and exit\n\n"
      "The same engine without a window: bnscope-cli help\n");
}

Problem builtin_sample() {
  const QString path = sample_path();
  if (QFileInfo::exists(path)) return load_problem(path.toStdString());
  return generate_problem(SampleSpec{});
}

Problem problem_from_arguments(const QStringList& args) {
  if (args.isEmpty()) return builtin_sample();
  std::vector<std::string> flags;
  for (const QString& a : args) flags.push_back(a.toStdString());
  app::ProblemArgs parsed = app::parse_problem_args(flags);
  if (!parsed.rest.empty()) fail("unknown argument '" + parsed.rest.front() + "'");
  return parsed.problem;
}

}  // namespace bnscope
