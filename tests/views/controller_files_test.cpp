// The controller's files: problems and outputs saved and opened, bad files refused with the
// problem left as it was, big files read off the UI thread.
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

#include "controller_test_util.h"
#include "io/npy.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "qt_suites.h"
#include "views_test_util.h"

using namespace bnscope;

class ControllerFilesTest : public QObject {
  Q_OBJECT
 private slots:
  void badFilesLeaveTheProblemIntact();
  void filesLoadAndSave();
  void bigProblemFileLoadsInTheBackground();
  void openedAgainUnchangedKeepsItsBuffers();
};
BNSCOPE_QT_SUITE(ControllerFilesTest);

void ControllerFilesTest::badFilesLeaveTheProblemIntact() {
  QTemporaryDir dir;
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const Problem before = c.problem();
  const auto outcome = c.outcome();
  auto write = [&](const QString& name, const QByteArray& bytes) {
    QFile f(dir.filePath(name));
    f.open(QIODevice::WriteOnly);
    f.write(bytes);
    return dir.filePath(name);
  };
  QString error;
  for (const QString& bad :
       {write(QStringLiteral("x.npy"), "not a numpy file"),
        write(QStringLiteral("junk.npz"), "PK\x03\x04 truncated"),
        write(QStringLiteral("notes.txt"), "hello"), dir.filePath(QStringLiteral("missing.npz"))}) {
    error.clear();
    QVERIFY(!c.openFile(bad, {}, &error));
    QVERIFY2(!error.isEmpty(), qPrintable(bad));
    QCOMPARE(c.problem().inputs.size(), before.inputs.size());
    QCOMPARE(c.problem().inputs.at("x").to_doubles(), before.inputs.at("x").to_doubles());
    QCOMPARE(c.outcome(), outcome);  // no re-run either
    QVERIFY(!c.isModified());
  }
  // A good .npy named after no input of the op is refused too.
  write_npy(dir.filePath(QStringLiteral("weights.npy")).toStdString(), Tensor(DType::F32, {5}));
  QVERIFY(!c.openFile(dir.filePath(QStringLiteral("weights.npy")), {}, &error));
  QVERIFY(error.contains(QStringLiteral("weights")));
}

void ControllerFilesTest::filesLoadAndSave() {
  QTemporaryDir dir;
  ProblemController c;
  c.setProblem(test::small_sample());
  c.setAttr("epsilon", 0.125);
  QVERIFY(c.isModified());
  const QString path = dir.filePath(QStringLiteral("p.npz"));
  QString error;
  QVERIFY2(c.saveProblem(path, &error), qPrintable(error));
  QVERIFY(!c.isModified());
  QCOMPARE(attr_float(load_problem(path.toStdString()), "epsilon"), 0.125);

  ProblemController d;
  d.setProblem(test::small_sample(99));
  QVERIFY2(d.openFile(path, {}, &error), qPrintable(error));
  QCOMPARE(attr_float(d.problem(), "epsilon"), 0.125);
  QCOMPARE(d.problem().inputs.at("x").to_doubles(), c.problem().inputs.at("x").to_doubles());

  // A .npy goes to the input it is named after, or the one asked for.
  const Tensor dy(DType::F32, {2, 3, 4, 5});
  write_npy(dir.filePath(QStringLiteral("grad.npy")).toStdString(), dy);
  QVERIFY2(
      d.openFile(dir.filePath(QStringLiteral("grad.npy")), QStringLiteral("y_backprop"), &error),
      qPrintable(error));
  QCOMPARE(d.problem().inputs.at("y_backprop").to_doubles(), dy.to_doubles());
  test::expect_engine_answer(d);

  if (d.outcome()->ok()) {
    QVERIFY2(d.saveOutputs(dir.filePath(QStringLiteral("o.npz")), {}, &error), qPrintable(error));
    QVERIFY2(
        d.saveOutputs(dir.filePath(QStringLiteral("dx.npy")), QStringLiteral("x_backprop"), &error),
        qPrintable(error));
    QCOMPARE(read_npy(dir.filePath(QStringLiteral("dx.npy")).toStdString()).to_doubles(),
             d.outcome()->result->output("x_backprop").tensor.to_doubles());
  } else {
    QVERIFY(!d.saveOutputs(dir.filePath(QStringLiteral("o.npz")), {}, &error));
  }
}

void ControllerFilesTest::bigProblemFileLoadsInTheBackground() {
  QTemporaryDir dir;
  SampleSpec spec;
  spec.shape = {8, 64, 64, 320};  // two 42 MB tensors: read off the UI thread
  spec.seed = 5;
  const Problem p = random_problem(spec);
  const QString path = dir.filePath(QStringLiteral("big.npz"));
  save_problem(path.toStdString(), p);
  QVERIFY(QFileInfo(path).size() > ProblemController::kLoadInPlaceBytes);

  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  QSignalSpy failed(&c, &ProblemController::editFailed);
  QString error;
  QVERIFY2(c.openFile(path, {}, &error), qPrintable(error));
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(failed.count(), 0);
  QCOMPARE(c.path(), path);
  QCOMPARE(c.problem().inputs.at("x").shape(), p.inputs.at("x").shape());
  QVERIFY(c.problem().inputs.at("x").to_doubles() == p.inputs.at("x").to_doubles());
  QCOMPARE(c.outcome()->revision, c.revision());

  // Cancelled, the read leaves the problem as it was.
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const std::uint64_t before = c.revision();
  QVERIFY(c.openFile(path, {}, &error));
  c.cancel();
  QThreadPool::globalInstance()->waitForDone();
  QCoreApplication::processEvents();
  QCOMPARE(c.revision(), before);
  QCOMPARE(c.problem().inputs.at("x").shape(), test::small_sample().inputs.at("x").shape());
}

// Open Recent of the open file: what the file holds (settings included), with the inputs still
// held taken instead of read beside themselves, unless the file or the buffers changed.
void ControllerFilesTest::openedAgainUnchangedKeepsItsBuffers() {
  QTemporaryDir dir;
  SampleSpec spec;
  spec.shape = {4, 32, 32, 80};  // 1.3 MB tensors: past what the saved state checksums
  spec.seed = 7;
  const QString path = dir.filePath(QStringLiteral("layer.npz"));
  save_problem(path.toStdString(), random_problem(spec));
  ProblemController c;
  QString error;
  QVERIFY2(c.openFile(path, {}, &error), qPrintable(error));
  QVERIFY(c.waitForIdle());
  const Tensor x = c.problem().inputs.at("x");
  c.setAttr("is_training", false);
  c.setDtype(DType::F16);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.isModified());

  QVERIFY2(c.openFile(path, {}, &error), qPrintable(error));
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.isModified());
  QVERIFY(attr_bool(c.problem(), "is_training"));
  QVERIFY(!c.problem().dtype || *c.problem().dtype == DType::F32);
  QVERIFY(c.problem().inputs.at("x").shares_storage_with(x));
  test::expect_engine_answer(c);

  // Declared in the other layout (as a layout change in place would leave it): read again.
  c.setDataFormat(DataFormat::NCHW, false);
  QVERIFY(c.waitForIdle());
  QVERIFY2(c.openFile(path, {}, &error), qPrintable(error));
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.problem().inputs.at("x").shares_storage_with(x));
  QVERIFY(c.problem().inputs.at("x").to_doubles() == x.to_doubles());
  QCOMPARE(attr_string(c.problem(), "data_format"), std::string("NHWC"));

  // An input replaced since is read again.
  Tensor other = c.problem().inputs.at("x");
  other.set(0, 42.0);  // copy on write: a buffer of its own
  c.setInput("x", other);
  QVERIFY(c.waitForIdle());
  QVERIFY2(c.openFile(path, {}, &error), qPrintable(error));
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.problem().inputs.at("x").shares_storage_with(other));
  QCOMPARE(c.problem().inputs.at("x").get(0), x.get(0));

  // The file rewritten with other data: read again.
  const Tensor held = c.problem().inputs.at("x");
  spec.seed = 8;
  const Problem rewritten = random_problem(spec);
  save_problem(path.toStdString(), rewritten);
  QVERIFY2(c.openFile(path, {}, &error), qPrintable(error));
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.problem().inputs.at("x").shares_storage_with(held));
  QVERIFY(c.problem().inputs.at("x").to_doubles() == rewritten.inputs.at("x").to_doubles());
}

#include "controller_files_test.moc"
