// The app's diff path and `bnscope-cli diff --json` on the same problem give the same result:
// the same comparisons, causes and notes, down to every number the report holds.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <sstream>

#include "analysis_test_util.h"
#include "diff/diff_view.h"
#include "engine/engine.h"
#include "io/json_value.h"
#include "io/npz.h"
#include "ops/problem_io.h"
#include "problem_controller.h"
#include "report/report.h"
#include "report/writers.h"

using namespace bnscope;

class CliParityTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }
  void backendAgainstReference();
  void savedOutputsWithACause();

 private:
  // Runs the app's Diff tab and the CLI on problem; compares what their reports say.
  // *app receives the app's outcome.
  void compare(const Problem& problem, const QString& referenceFile, const QStringList& cliArgs,
               std::shared_ptr<const DiffOutcome>* app);
  QTemporaryDir dir_;
};

namespace {

// The report the app's Export makes of the problem opened from problem.npz, the file the CLI
// is given.
JsonValue app_report(const Problem& problem, const PipelineResult& result) {
  const Report r = assemble_report(problem, &result, {}, "problem.npz");
  std::ostringstream os;
  write_report_json(r, os);
  return parse_json(os.str(), "app report");
}

}  // namespace

void CliParityTest::compare(const Problem& problem, const QString& referenceFile,
                            const QStringList& cliArgs, std::shared_ptr<const DiffOutcome>* got) {
  ProblemController controller;
  controller.setProblem(problem);
  DiffView view(&controller);
  view.setAutoRun(false);
  if (referenceFile.isEmpty())
    view.setReferenceBackend(QStringLiteral("cpu-reference"));
  else
    view.setReferenceFile(referenceFile);
  view.setCandidates({QStringLiteral("cpu")});
  view.setFindCauses(true);
  view.run();
  QVERIFY(view.waitForIdle());
  const auto out = view.outcome();
  QVERIFY(out);
  QVERIFY2(out->ok(), out->error.c_str());
  *got = out;
  const JsonValue app = app_report(problem, *out->result);

  const QString problem_file = dir_.filePath(QStringLiteral("problem.npz"));
  save_problem(problem_file.toStdString(), problem);
  const QString json = dir_.filePath(QStringLiteral("cli.json"));
  QProcess cli;
  cli.start(QStringLiteral(BNSCOPE_CLI),
            QStringList{QStringLiteral("diff"), QStringLiteral("--problem"), problem_file,
                        QStringLiteral("--json"), json} +
                cliArgs);
  QVERIFY(cli.waitForFinished(120000));
  QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() <= 1,
           cli.readAllStandardError().constData());
  QFile f(json);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const JsonValue cli_json = parse_json(f.readAll().toStdString(), "cli report");

  QCOMPARE(cli.exitCode() == 0, out->result->passed());
  for (const char* key : {"problem", "notes", "diff", "causes"}) {
    const JsonValue* a = app.find(key);
    const JsonValue* c = cli_json.find(key);
    QVERIFY2(a && c, key);
    QCOMPARE(QString::fromStdString(dump_json(*a)), QString::fromStdString(dump_json(*c)));
  }
}

void CliParityTest::backendAgainstReference() {
  std::shared_ptr<const DiffOutcome> app;
  compare(test::analysis_sample(), {},
          {QStringLiteral("--backends"), QStringLiteral("cpu-reference,cpu")}, &app);
  QVERIFY(app && app->result->has_diff);
  QCOMPARE(app->result->diff.comparisons.size(), std::size_t{1});
  QVERIFY(app->result->passed());
}

void CliParityTest::savedOutputsWithACause() {
  // Outputs as a cuDNN-style run gives them (reserve_space_2 read as inv_std): cpu disagrees,
  // and the cause finder names the convention.
  const Problem problem = test::analysis_sample(3);
  Problem gpu_like = problem;
  gpu_like.convention = ReserveConvention::InvStd;
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(gpu_like, "cpu-reference").outputs)
    if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString expected = dir_.filePath(QStringLiteral("expected.npz"));
  write_npz(expected.toStdString(), members);
  std::shared_ptr<const DiffOutcome> app;
  compare(
      problem, expected,
      {QStringLiteral("--against"), expected, QStringLiteral("--backends"), QStringLiteral("cpu")},
      &app);
  QVERIFY(app && !app->result->passed());
  QVERIFY(!app->result->causes.empty());
  QCOMPARE(app->result->causes.front().code, std::string("reserve-convention"));
}

QTEST_MAIN(CliParityTest)
#include "cli_parity_test.moc"
