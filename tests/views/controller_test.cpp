// The controller without a window: every edit re-runs in the background and the outcome agrees
// with the float64 oracle run directly on the same problem (or carries validation's error).
#include <QApplication>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "backends/backend.h"
#include "channel_table_model.h"
#include "engine/engine.h"
#include "io/npy.h"
#include "io/problem_io.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "process_events.h"
#include "tensor/error.h"
#include "tensor/layout.h"
#include "views_test_util.h"

using namespace bnscope;

namespace {

using test::HoldingBackend;

void register_holding_backend() {
  static const bool done = [] {
    BackendRegistry::instance().add(std::make_unique<HoldingBackend>());
    return true;
  }();
  (void)done;
}

}  // namespace

class ControllerTest : public QObject {
  Q_OBJECT
 private slots:
  void sampleRunsLikeTheEngine();
  void everyAttributeReruns();
  void layoutChangeConvertsOrReinterprets();
  void opVariantsAndBackends();
  void opSwitchCarriesInputsOver();
  void badFilesLeaveTheProblemIntact();
  void filesLoadAndSave();
  void latestEditWins();
  void generateInputsKeepsSettings();
  void escKeepsTheLastGoodResultsMarkedStale();
  void cancelReachesTheStatisticsPasses();
  void runsShareTheTensorsTheyShow();
  void largeLayoutChangeLandsWhenConverted();
  void bigProblemFileLoadsInTheBackground();
  void outputBuffersAreReusedAcrossEdits();
  void layoutChangeReleasesTheOldInputsAndKeepsTheirScans();
  void aComparisonRunsOnlyTheReference();
  void layoutChangeRewritesInputsNobodyElseHolds();

 private:
  // Waits for the run and checks the outcome against cpu-reference run directly.
  void expectEngineAnswer(ProblemController& c);
};

void ControllerTest::expectEngineAnswer(ProblemController& c) {
  QVERIFY(c.waitForIdle());
  const auto out = c.outcome();
  QVERIFY(out);
  const test::Expected want = test::reference_answer(c.problem());
  const Backend* b = BackendRegistry::instance().find(c.backend());
  if (want.stats && (!b || !b->unavailable_reason().empty())) {
    // A valid problem on a backend that cannot run here: the error names the backend.
    QVERIFY(!out->ok());
    QVERIFY2(out->error.contains(QString::fromStdString(c.backend())), qPrintable(out->error));
    return;
  }
  if (!want.stats) {
    QVERIFY(!out->ok());
    QCOMPARE(out->error.toStdString(), want.error);
    return;
  }
  QVERIFY2(out->ok(), qPrintable(out->error));
  // The model shows exactly the engine's numbers.
  ChannelTableModel model;
  model.setStats(out->stats);
  QCOMPARE(model.rowCount(), static_cast<int>(want.stats->channels));
  QCOMPARE(out->stats.columns.size(), want.stats->columns.size());
  for (std::size_t k = 0; k < want.stats->columns.size(); ++k) {
    const ChannelColumn& col = want.stats->columns[k];
    const int mc = model.columnOf(QString::fromStdString(col.name));
    QVERIFY2(mc > 0, col.name.c_str());
    for (int ch = 0; ch < model.rowCount(); ++ch) {
      const double got = model.data(model.index(ch, mc), ChannelTableModel::SortRole).toDouble();
      const double exp = col.values[static_cast<std::size_t>(ch)];
      QVERIFY2(test::close_to_reference(got, exp, col.is_count),
               qPrintable(QStringLiteral("%1 channel %2: %3 vs %4")
                              .arg(QString::fromStdString(col.name))
                              .arg(ch)
                              .arg(got)
                              .arg(exp)));
    }
  }
}

void ControllerTest::sampleRunsLikeTheEngine() {
  ProblemController c;
  QSignalSpy started(&c, &ProblemController::runStarted);
  c.setProblem(test::small_sample());
  QCOMPARE(started.count(), 1);
  QVERIFY(!c.isModified());
  expectEngineAnswer(c);
  QVERIFY(c.outcome()->stats.column("scale_backprop") || !c.outcome()->ok());
}

void ControllerTest::everyAttributeReruns() {
  ProblemController c;
  c.setProblem(test::small_sample());
  expectEngineAnswer(c);
  QSignalSpy outcomes(&c, &ProblemController::outcomeChanged);

  c.setAttr("is_training", false);
  QVERIFY(c.isModified());
  expectEngineAnswer(c);
  QCOMPARE(std::get<bool>(c.outcome()->problem.attrs.at("is_training")), false);

  c.setAttr("is_training", true);
  c.setAttr("epsilon", 0.25);
  expectEngineAnswer(c);
  QCOMPARE(std::get<double>(c.outcome()->problem.attrs.at("epsilon")), 0.25);

  c.setConvention(ReserveConvention::InvStd);
  expectEngineAnswer(c);
  QCOMPARE(c.outcome()->problem.convention, ReserveConvention::InvStd);
  c.setConvention(ReserveConvention::Variance);

  for (DType t : kAllDTypes) {
    c.setDtype(t);
    expectEngineAnswer(c);
    QCOMPARE(c.outcome()->problem.dtype, std::optional<DType>(t));
  }
  c.setDtype(std::nullopt);
  expectEngineAnswer(c);
  QVERIFY(outcomes.count() >= 8);
}

void ControllerTest::layoutChangeConvertsOrReinterprets() {
  ProblemController c;
  const Problem sample = test::small_sample();
  c.setProblem(sample);
  expectEngineAnswer(c);
  const auto before = c.outcome();

  c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  QCOMPARE(c.problem().inputs.at("x").to_doubles(),
           to_channels_first(sample.inputs.at("x")).to_doubles());
  expectEngineAnswer(c);
  // Same data in another layout: the per-channel results do not change.
  if (before->ok() && c.outcome()->ok()) {
    const auto& a = before->stats.column("scale_backprop")->values;
    const auto& b = c.outcome()->stats.column("scale_backprop")->values;
    for (std::size_t i = 0; i < a.size(); ++i)
      QVERIFY(std::fabs(a[i] - b[i]) <= 1e-3 * (1 + std::fabs(a[i])));
  }

  c.setDataFormat(DataFormat::NHWC, /*convertData=*/false);  // reinterpret [2,5,3,4] as NHWC
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  expectEngineAnswer(c);  // 4 channels now: scale of 5 fails validation like the engine says
}

void ControllerTest::opVariantsAndBackends() {
  ProblemController c;
  c.setProblem(test::small_sample());
  for (const OpSpec& op : op_catalog()) {
    c.setOp(std::string(op.name));
    QCOMPARE(c.problem().op, std::string(op.name));
    for (const auto& [name, t] : c.problem().inputs) QVERIFY(op.input_index(name) >= 0);
    expectEngineAnswer(c);
  }
  c.setOp("FusedBatchNormGradV2");
  c.generateInputs(3);
  for (Backend* b : BackendRegistry::instance().all()) {
    c.setBackend(std::string(b->name()));
    expectEngineAnswer(c);
    if (!b->unavailable_reason().empty()) {
      QVERIFY(!c.outcome()->ok());
      QVERIFY(c.outcome()->error.contains(QStringLiteral("not available")));
    }
  }
  c.setBackend("no-such-backend");
  expectEngineAnswer(c);
  QVERIFY(c.outcome()->error.contains(QStringLiteral("no-such-backend")));
}

void ControllerTest::opSwitchCarriesInputsOver() {
  ProblemController c;
  Problem p = test::small_sample(21);
  p.attrs["epsilon"] = 0.0625;
  c.setProblem(p);
  QSignalSpy notices(&c, &ProblemController::notice);
  c.setOp("BatchNormWithGlobalNormalizationGrad");
  const Problem& g = c.problem();
  const auto same = [](const Tensor& a, const Tensor& b) {
    return a.to_doubles() == b.to_doubles();
  };
  QVERIFY(same(g.inputs.at("t"), p.inputs.at("x")));
  QVERIFY(same(g.inputs.at("backprop"), p.inputs.at("y_backprop")));
  QVERIFY(same(g.inputs.at("gamma"), p.inputs.at("scale")));
  QVERIFY(same(g.inputs.at("m"), p.inputs.at("reserve_space_1")));
  QVERIFY(same(g.inputs.at("v"), p.inputs.at("reserve_space_2")));  // variance convention
  QCOMPARE(attr_float(g, "variance_epsilon"), 0.0625);
  QVERIFY(g.attrs.count("scale_after_normalization"));  // stated, not left blank
  QCOMPARE(notices.count(), 1);
  QVERIFY(c.switchNote().contains(QStringLiteral("x -> t")));
  QVERIFY(c.switchNote().contains(QStringLiteral("scale_after_normalization")));
  QVERIFY(c.waitForIdle());
  QVERIFY2(c.outcome()->ok(), qPrintable(c.outcome()->error));
  expectEngineAnswer(c);

  // And back: the data and statistics return, m and v as given statistics (inference).
  c.setOp("FusedBatchNormGradV3");
  const Problem& f = c.problem();
  QVERIFY(same(f.inputs.at("x"), p.inputs.at("x")));
  QVERIFY(same(f.inputs.at("reserve_space_2"), p.inputs.at("reserve_space_2")));
  QCOMPARE(attr_float(f, "epsilon"), 0.0625);
  QVERIFY(!attr_bool(f, "is_training"));
  QVERIFY(c.waitForIdle());
  QVERIFY2(c.outcome()->ok(), qPrintable(c.outcome()->error));

  // Channels-first data is transposed to the global op's channels-last layout; statistics that
  // cannot be carried are the moments of the data.
  Problem nchw = test::small_sample(22);
  c.setProblem(nchw);
  c.setDataFormat(DataFormat::NCHW, true);
  Problem q = c.problem();
  q.inputs.erase("reserve_space_1");
  q.inputs.erase("reserve_space_2");
  c.setProblem(q);
  c.setOp("BatchNormWithGlobalNormalizationGrad");
  QVERIFY(same(c.problem().inputs.at("t"), to_channels_last(q.inputs.at("x"))));
  QVERIFY(c.switchNote().contains(QStringLiteral("moments of t")));
  const std::vector<double> m = c.problem().inputs.at("m").to_doubles();
  const std::vector<double> t = c.problem().inputs.at("t").to_doubles();
  const std::int64_t channels = c.problem().inputs.at("t").shape().back();
  double mean0 = 0;
  for (std::size_t i = 0; i < t.size(); i += static_cast<std::size_t>(channels)) mean0 += t[i];
  mean0 /= static_cast<double>(t.size() / static_cast<std::size_t>(channels));
  QVERIFY(std::fabs(m[0] - mean0) < 1e-5);
  QVERIFY(c.waitForIdle());
  QVERIFY2(c.outcome()->ok(), qPrintable(c.outcome()->error));
}

void ControllerTest::badFilesLeaveTheProblemIntact() {
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

void ControllerTest::filesLoadAndSave() {
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
  expectEngineAnswer(d);

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

void ControllerTest::latestEditWins() {
  ProblemController c;
  c.setProblem(test::small_sample());
  for (int i = 1; i <= 6; ++i) c.setAttr("epsilon", 0.01 * i);
  expectEngineAnswer(c);
  QCOMPARE(std::get<double>(c.outcome()->problem.attrs.at("epsilon")), 0.06);
  // Cancelling with nothing pending leaves a consistent state.
  c.setAttr("epsilon", 0.5);
  c.cancel();
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome()->ok() || !c.outcome()->error.isEmpty());
}

void ControllerTest::generateInputsKeepsSettings() {
  ProblemController c;
  c.setProblem(test::small_sample());
  c.setAttr("epsilon", 0.03);
  c.setDataFormat(DataFormat::NCHW, true);
  c.generateInputs(11);
  QCOMPARE(attr_float(c.problem(), "epsilon"), 0.03);
  QCOMPARE(attr_string(c.problem(), "data_format"), std::string("NCHW"));
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  QVERIFY(c.problem().inputs.count("reserve_space_1"));
  expectEngineAnswer(c);
}

void ControllerTest::escKeepsTheLastGoodResultsMarkedStale() {
  register_holding_backend();
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const auto good = c.outcome();
  QVERIFY2(good && good->ok(), good ? qPrintable(good->error) : "no outcome");
  QVERIFY(!c.isStale());

  HoldingBackend::started.store(false);
  c.setBackend("holding");
  QVERIFY(process_events_while([] { return !HoldingBackend::started.load(); }, 30000));
  QVERIFY(c.isRunning());
  c.cancel();
  QVERIFY(c.waitForIdle());
  // The results shown before stay, the very same runs, and say they are of an earlier problem.
  const auto kept = c.outcome();
  QVERIFY(kept->ok());
  QVERIFY(kept->stale);
  QVERIFY(c.isStale());
  QCOMPARE(kept->result, good->result);
  QCOMPARE(kept->revision, good->revision);
  QVERIFY(kept->revision != c.revision());

  // The next good run is current again.
  c.setBackend("cpu");
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome()->ok());
  QVERIFY(!c.isStale());

  // With nothing good to keep, a cancelled run says it was cancelled.
  ProblemController fresh;
  HoldingBackend::started.store(false);
  fresh.setBackend("holding");
  fresh.setProblem(test::small_sample());
  QVERIFY(process_events_while([] { return !HoldingBackend::started.load(); }, 30000));
  fresh.cancel();
  QVERIFY(fresh.waitForIdle());
  QVERIFY(!fresh.outcome()->ok());
  QVERIFY(fresh.outcome()->cancelled);
  QVERIFY(!fresh.isStale());
}

void ControllerTest::cancelReachesTheStatisticsPasses() {
  // The run's statistics poll the same flag as the backend: a run cancelled after the backend
  // returns still stops, at the next block of its scans.
  SampleSpec spec;
  spec.shape = {2, 64, 64, 32};
  const Problem p = random_problem(spec);
  const Prepared prepared = prepare(p);
  const Result r = run_prepared(prepared, backend_or_throw("cpu"));
  std::atomic<bool> cancel{true};
  std::atomic<std::int64_t> blocks{0};
  ScanControl ctl;
  ctl.cancel = &cancel;
  ctl.blocks_read = &blocks;
  bool cancelled = false;
  try {
    channel_stats(p, prepared, r, ctl);
  } catch (const Error& e) {
    cancelled = e.code() == ErrorCode::Cancelled;
  }
  QVERIFY(cancelled);
  QCOMPARE(blocks.load(), std::int64_t{0});
  cancel.store(false);
  channel_stats(p, prepared, r, ctl);
  QVERIFY(blocks.load() >= 12);  // x, y_backprop and x_backprop: 4 blocks of 64 K values each

  // compute_outcome turns it into a cancelled outcome, like a cancelled backend.
  RunContext ctx;
  cancel.store(true);
  ctx.cancel = &cancel;
  const auto out = compute_outcome(p, "cpu", ctx);
  QVERIFY(!out->ok());
  QVERIFY(out->cancelled);
}

void ControllerTest::runsShareTheTensorsTheyShow() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const auto out = c.outcome();
  QVERIFY(out->ok());
  // One buffer per input from the problem to the run and every summary of it: handed over by
  // reference counting, never copied.
  for (const auto& [name, t] : c.problem().inputs) {
    const Tensor& ran = out->problem.inputs.at(name);
    QVERIFY2(ran.shares_storage_with(t), name.c_str());
    QCOMPARE(static_cast<const Tensor&>(ran).raw(), static_cast<const Tensor&>(t).raw());
    const InputSummary* s = out->stats.input(name);
    QVERIFY2(s && s->tensor.shares_storage_with(t), name.c_str());
  }
  const Tensor& x = c.problem().inputs.at("x");
  QVERIFY(out->prepared->in("x").shares_storage_with(x));
  // An edit of an attr runs the same buffers again.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome()->problem.inputs.at("x").shares_storage_with(x));
  QVERIFY(c.outcome()->stats.input("x")->tensor.shares_storage_with(x));
}

void ControllerTest::largeLayoutChangeLandsWhenConverted() {
  ProblemController c;
  SampleSpec spec;
  spec.shape = {4, 64, 64, 160};  // 10 MB per x-shaped tensor: converted in the background
  const Problem p = random_problem(spec);
  c.setProblem(p);
  QVERIFY(c.waitForIdle());
  c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(attr_string(c.problem(), "data_format"), std::string("NCHW"));
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{4, 160, 64, 64}));
  QVERIFY(c.problem().inputs.at("x").to_doubles() ==
          to_channels_first(p.inputs.at("x")).to_doubles());
  QVERIFY(c.problem().inputs.at("y_backprop").to_doubles() ==
          to_channels_first(p.inputs.at("y_backprop")).to_doubles());
  QVERIFY(c.outcome()->ok());
  QCOMPARE(c.outcome()->revision, c.revision());

  // Cancelled, the conversion changes nothing.
  const std::uint64_t before = c.revision();
  c.setDataFormat(DataFormat::NHWC, true);
  c.cancel();
  QVERIFY(c.waitForIdle(120000));
  QThreadPool::globalInstance()->waitForDone();  // the transposition itself ends, then is dropped
  QCoreApplication::processEvents();
  QCOMPARE(attr_string(c.problem(), "data_format"), std::string("NCHW"));
  QCOMPARE(c.revision(), before);
}

void ControllerTest::bigProblemFileLoadsInTheBackground() {
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

QTEST_MAIN(ControllerTest)
void ControllerTest::outputBuffersAreReusedAcrossEdits() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const void* first = nullptr;
  {
    const auto out = c.outcome();
    QVERIFY(out && out->ok());
    first = static_cast<const Tensor&>(out->result->outputs.front().tensor).raw();
  }
  // The first outcome stays until the edit's run has succeeded (Esc returns to it); then nothing
  // reads its outputs any more and they are held for the next run.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.spareResults().size(), std::size_t{1});
  QCOMPARE(static_cast<const Tensor&>(c.spareResults().front().outputs.front().tensor).raw(),
           first);
  QVERIFY(static_cast<const Tensor&>(c.outcome()->result->outputs.front().tensor).raw() != first);
  // The next run writes into that buffer and still gives the engine's answer.
  c.setAttr("epsilon", 0.02);
  expectEngineAnswer(c);
  QCOMPARE(static_cast<const Tensor&>(c.outcome()->result->outputs.front().tensor).raw(), first);
  const Result fresh = run_problem(c.problem(), c.backend());
  for (const OutputTensor& o : fresh.outputs) {
    if (o.defined)
      QVERIFY2(c.outcome()->result->output(o.name).tensor.to_doubles() == o.tensor.to_doubles(),
               o.name.c_str());
  }

  // Outputs something still reads are not handed to a run.
  const auto held = c.outcome();
  c.setAttr("epsilon", 0.03);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.spareResults().empty());
  // The profile takes the spare buffers; unused, they are released after a while.
  c.setAttr("epsilon", 0.04);
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.takeSpareResults().size(), std::size_t{1});
  QVERIFY(c.spareResults().empty());
  c.setAttr("epsilon", 0.05);
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.spareResults().empty());
  QTRY_VERIFY_WITH_TIMEOUT(c.spareResults().empty(), ProblemController::kSpareHoldMs * 10);
}

void ControllerTest::layoutChangeReleasesTheOldInputsAndKeepsTheirScans() {
  for (const Shape& shape : {Shape{2, 3, 4, 5}, Shape{4, 64, 64, 160}}) {  // in place, background
    ProblemController c;
    SampleSpec spec;
    spec.shape = shape;
    c.setProblem(random_problem(spec));
    QVERIFY(c.waitForIdle(120000));
    Tensor old_x = c.problem().inputs.at("x");
    Tensor old_dy = c.problem().inputs.at("y_backprop");
    c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
    QVERIFY(c.waitForIdle(120000));
    QVERIFY2(c.outcome()->ok(), qPrintable(c.outcome()->error));
    QCOMPARE(c.outcome()->revision, c.revision());
    // Once the run in the new layout succeeded, nothing holds the old layout's data but us.
    QTRY_VERIFY(old_x.sole_owner());
    QTRY_VERIFY(old_dy.sole_owner());
    // The converted inputs' per-channel figures came from the old layout's scans; they are the
    // figures a scan of the new buffers gives.
    const Prepared p = prepare(c.problem());
    for (const char* name : {"x", "y_backprop"}) {
      const InputSummary* in = c.outcome()->stats.input(name);
      QVERIFY(in && in->tensor.shares_storage_with(c.problem().inputs.at(name)));
      const ChannelScan fresh = scan_channels(in->tensor, p.view, {}, false);
      QCOMPARE(in->scan.view.outer, fresh.view.outer);
      QCOMPARE(in->scan.view.inner, fresh.view.inner);
      QCOMPARE(in->scan.min, fresh.min);
      QCOMPARE(in->scan.max, fresh.max);
      QCOMPARE(in->scan.finite, fresh.finite);
      QCOMPARE(in->scan.non_finite, fresh.non_finite);
      for (std::size_t k = 0; k < fresh.sum.size(); ++k)
        QVERIFY(std::fabs(in->scan.sum[k] - fresh.sum[k]) <=
                1e-9 * std::max(1.0, std::fabs(fresh.sum[k])));
    }
  }
}

// When the controller holds every copy of the inputs, a big layout change moves them within their
// own storage: the same buffers afterwards, holding the bytes the copying conversion gives; a
// cancel during it puts every byte back.
void ControllerTest::layoutChangeRewritesInputsNobodyElseHolds() {
  SampleSpec spec;
  spec.shape = {4, 64, 64, 160};  // 10 MB per x-shaped tensor: over kConvertInPlaceBytes
  const Problem p = random_problem(spec);
  const Tensor want_x = to_channels_first(p.inputs.at("x"));
  const Tensor want_dy = to_channels_first(p.inputs.at("y_backprop"));
  const std::vector<std::byte> x_bytes(
      static_cast<const std::byte*>(p.inputs.at("x").raw()),
      static_cast<const std::byte*>(p.inputs.at("x").raw()) + p.inputs.at("x").nbytes());
  ProblemController c;
  {
    Problem own = p;
    for (auto& [name, t] : own.inputs) {  // buffers only the controller holds
      Tensor copy = Tensor::uninitialized(t.dtype(), t.shape());
      if (t.nbytes()) std::memcpy(copy.raw(), static_cast<const Tensor&>(t).raw(), t.nbytes());
      t = std::move(copy);
    }
    c.setProblem(std::move(own));
  }
  QVERIFY(c.waitForIdle(120000));
  c.setAttr("epsilon", 0.01);  // the first run's outputs become the spare set
  QVERIFY(c.waitForIdle(120000));
  QVERIFY(!c.spareResults().empty());
  const void* spare =
      static_cast<const Tensor&>(c.spareResults().front().outputs.front().tensor).raw();
  // The channel table keeps no handle on the inputs (one would force a copying conversion).
  {
    ChannelTableModel table;
    table.setStats(c.outcome()->stats);
    QVERIFY(table.stats().inputs.empty());
  }
  const void* x_storage = static_cast<const Tensor&>(c.problem().inputs.at("x")).raw();
  const void* dy_storage = static_cast<const Tensor&>(c.problem().inputs.at("y_backprop")).raw();

  c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QVERIFY(c.inputsInFlux());
  QVERIFY(c.waitForIdle(120000));
  QVERIFY(!c.inputsInFlux());
  const Tensor& x = c.problem().inputs.at("x");
  const Tensor& dy = c.problem().inputs.at("y_backprop");
  QCOMPARE(x.raw(), x_storage);  // no second buffer
  QCOMPARE(dy.raw(), dy_storage);
  QCOMPARE(x.shape(), want_x.shape());
  QVERIFY(std::memcmp(x.raw(), want_x.raw(), x.nbytes()) == 0);
  QVERIFY(std::memcmp(dy.raw(), want_dy.raw(), dy.nbytes()) == 0);
  QVERIFY2(c.outcome()->ok(), qPrintable(c.outcome()->error));
  QCOMPARE(c.outcome()->revision, c.revision());
  // The spare set served as the transposition's scratch, then as the run's output: no new set.
  QCOMPARE(static_cast<const Tensor&>(c.outcome()->result->outputs.front().tensor).raw(), spare);
  // The run in the new layout reused the old layout's scans of the same buffers.
  QVERIFY(c.outcome()->stats.input("x")->tensor.shares_storage_with(x));
  QCOMPARE(c.outcome()->stats.input("x")->scan.view.inner, std::int64_t{64 * 64});

  // Back, and cancelled at once: nothing changed, byte for byte, and the last good results stay.
  const std::uint64_t before = c.revision();
  const auto shown = c.outcome();
  c.setDataFormat(DataFormat::NHWC, /*convertData=*/true);
  QVERIFY(c.inputsInFlux());
  c.cancel();
  QVERIFY(c.waitForIdle(120000));
  QVERIFY(!c.inputsInFlux());
  QCOMPARE(c.revision(), before);
  QCOMPARE(attr_string(c.problem(), "data_format"), std::string("NCHW"));
  QCOMPARE(c.problem().inputs.at("x").raw(), x_storage);
  QVERIFY(std::memcmp(c.problem().inputs.at("x").raw(), want_x.raw(), want_x.nbytes()) == 0);
  QVERIFY(std::memcmp(c.problem().inputs.at("y_backprop").raw(), want_dy.raw(), want_dy.nbytes()) ==
          0);
  QCOMPARE(c.outcome(), shown);

  // Back for real: the original bytes in the original buffer.
  c.setDataFormat(DataFormat::NHWC, /*convertData=*/true);
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(c.problem().inputs.at("x").raw(), x_storage);
  QCOMPARE(c.problem().inputs.at("x").shape(), p.inputs.at("x").shape());
  QVERIFY(std::memcmp(c.problem().inputs.at("x").raw(), x_bytes.data(), x_bytes.size()) == 0);
  QVERIFY2(c.outcome()->ok(), qPrintable(c.outcome()->error));

  // Someone else holding a copy: the conversion copies, and that copy keeps its bytes.
  const Tensor held = c.problem().inputs.at("x");
  c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QVERIFY(!c.inputsInFlux());
  QVERIFY(c.waitForIdle(120000));
  QVERIFY(!c.problem().inputs.at("x").shares_storage_with(held));
  QVERIFY(std::memcmp(held.raw(), x_bytes.data(), x_bytes.size()) == 0);
}

void ControllerTest::aComparisonRunsOnlyTheReference() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const auto shown = c.outcome();
  QVERIFY(shown && shown->ok());
  DiffRequest request;
  request.candidates = {"cpu"};
  c.setComparison(request, /*rerunNow=*/true);
  QVERIFY(c.waitForIdle());
  const auto out = c.outcome();
  QVERIFY2(out->ok() && out->diff && out->diff->ok(), qPrintable(out->error));
  QCOMPARE(out->revision, shown->revision);
  // The run already shown stands as the candidate's run: its outputs, not a second run's.
  const Result* cpu = out->pipeline->run("cpu");
  QVERIFY(cpu && cpu == out->result);
  for (std::size_t i = 0; i < cpu->outputs.size(); ++i) {
    if (cpu->outputs[i].tensor.numel() > 0)  // an empty tensor has no storage to share
      QVERIFY2(cpu->outputs[i].tensor.shares_storage_with(shown->result->outputs[i].tensor),
               cpu->outputs[i].name.c_str());
  }
  QVERIFY(out->pipeline->run("cpu-reference"));
  QVERIFY(out->pipeline->passed());
  // After an edit the comparison runs both backends on the new problem.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.outcome()->result->outputs.front().tensor.shares_storage_with(
      shown->result->outputs.front().tensor));
  QVERIFY(c.outcome()->pipeline->passed());
}

#include "controller_test.moc"
