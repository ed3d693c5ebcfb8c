// The controller without a window: every edit re-runs in the background and the outcome agrees
// with the float64 oracle run directly on the same problem (or carries validation's error).
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

#include "backends/backend.h"
#include "controller_test_util.h"
#include "problem_controller.h"
#include "qt_suites.h"
#include "tensor/layout.h"
#include "views_test_util.h"

using namespace bnscope;

class ControllerEditsTest : public QObject {
  Q_OBJECT
 private slots:
  void sampleRunsLikeTheEngine();
  void everyAttributeReruns();
  void opVariantsAndBackends();
  void opSwitchCarriesInputsOver();
  void latestEditWins();
  void generateInputsKeepsSettings();
};
BNSCOPE_QT_SUITE(ControllerEditsTest);

void ControllerEditsTest::sampleRunsLikeTheEngine() {
  ProblemController c;
  QSignalSpy started(&c, &ProblemController::runStarted);
  c.setProblem(test::small_sample());
  QCOMPARE(started.count(), 1);
  QVERIFY(!c.isModified());
  test::expect_engine_answer(c);
  QVERIFY(c.outcome()->stats.column("scale_backprop") || !c.outcome()->ok());
}

void ControllerEditsTest::everyAttributeReruns() {
  ProblemController c;
  c.setProblem(test::small_sample());
  test::expect_engine_answer(c);
  QSignalSpy outcomes(&c, &ProblemController::outcomeChanged);

  c.setAttr("is_training", false);
  QVERIFY(c.isModified());
  test::expect_engine_answer(c);
  QCOMPARE(std::get<bool>(c.outcome()->problem.attrs.at("is_training")), false);

  c.setAttr("is_training", true);
  c.setAttr("epsilon", 0.25);
  test::expect_engine_answer(c);
  QCOMPARE(std::get<double>(c.outcome()->problem.attrs.at("epsilon")), 0.25);

  c.setConvention(ReserveConvention::InvStd);
  test::expect_engine_answer(c);
  QCOMPARE(c.outcome()->problem.convention, ReserveConvention::InvStd);
  c.setConvention(ReserveConvention::Variance);

  for (DType t : kAllDTypes) {
    c.setDtype(t);
    test::expect_engine_answer(c);
    QCOMPARE(c.outcome()->problem.dtype, std::optional<DType>(t));
  }
  c.setDtype(std::nullopt);
  test::expect_engine_answer(c);
  QVERIFY(outcomes.count() >= 8);
}

void ControllerEditsTest::opVariantsAndBackends() {
  ProblemController c;
  c.setProblem(test::small_sample());
  for (const OpSpec& op : op_catalog()) {
    c.setOp(std::string(op.name));
    QCOMPARE(c.problem().op, std::string(op.name));
    for (const auto& [name, t] : c.problem().inputs) QVERIFY(op.input_index(name) >= 0);
    test::expect_engine_answer(c);
  }
  c.setOp("FusedBatchNormGradV2");
  c.generateInputs(3);
  for (Backend* b : BackendRegistry::instance().all()) {
    c.setBackend(std::string(b->name()));
    test::expect_engine_answer(c);
    if (!b->unavailable_reason().empty()) {
      QVERIFY(!c.outcome()->ok());
      QVERIFY(QString::fromStdString(c.outcome()->error).contains(QStringLiteral("not available")));
    }
  }
  c.setBackend("no-such-backend");
  test::expect_engine_answer(c);
  QVERIFY(QString::fromStdString(c.outcome()->error).contains(QStringLiteral("no-such-backend")));
}

void ControllerEditsTest::opSwitchCarriesInputsOver() {
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
  QVERIFY2(c.outcome()->ok(), c.outcome()->error.c_str());
  test::expect_engine_answer(c);

  // And back: the data and statistics return, m and v as given statistics (inference).
  c.setOp("FusedBatchNormGradV3");
  const Problem& f = c.problem();
  QVERIFY(same(f.inputs.at("x"), p.inputs.at("x")));
  QVERIFY(same(f.inputs.at("reserve_space_2"), p.inputs.at("reserve_space_2")));
  QCOMPARE(attr_float(f, "epsilon"), 0.0625);
  QVERIFY(!attr_bool(f, "is_training"));
  QVERIFY(c.waitForIdle());
  QVERIFY2(c.outcome()->ok(), c.outcome()->error.c_str());

  // Statistics saved as 1/sqrt(variance + epsilon) become the global op's variance, and the note
  // says they were converted, not only carried.
  Problem inv = test::small_sample(23);
  inv.convention = ReserveConvention::InvStd;
  inv.attrs["epsilon"] = 0.0625;
  const std::vector<double> variance = inv.inputs.at("reserve_space_2").to_doubles();
  std::vector<double> rs2 = variance;
  for (double& v : rs2) v = 1 / std::sqrt(v + 0.0625);
  inv.inputs["reserve_space_2"] = Tensor::from_doubles(inv.inputs.at("reserve_space_2").dtype(),
                                                       {std::int64_t(rs2.size())}, rs2);
  c.setProblem(inv);
  c.setOp("BatchNormWithGlobalNormalizationGrad");
  QVERIFY2(c.switchNote().contains(QStringLiteral("reserve_space_2 -> v (from 1/sqrt(variance + "
                                                  "epsilon) to the variance)")),
           qPrintable(c.switchNote()));
  const std::vector<double> v = c.problem().inputs.at("v").to_doubles();
  QCOMPARE(v.size(), variance.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    QVERIFY(std::fabs(v[i] - variance[i]) <= 1e-5 * std::max(1.0, variance[i]));
  QVERIFY(c.waitForIdle());

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
  QVERIFY2(c.outcome()->ok(), c.outcome()->error.c_str());
}

void ControllerEditsTest::latestEditWins() {
  ProblemController c;
  c.setProblem(test::small_sample());
  for (int i = 1; i <= 6; ++i) c.setAttr("epsilon", 0.01 * i);
  test::expect_engine_answer(c);
  QCOMPARE(std::get<double>(c.outcome()->problem.attrs.at("epsilon")), 0.06);
  // Cancelling with nothing pending leaves a consistent state.
  c.setAttr("epsilon", 0.5);
  c.cancel();
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome()->ok() || !c.outcome()->error.empty());
}

void ControllerEditsTest::generateInputsKeepsSettings() {
  ProblemController c;
  c.setProblem(test::small_sample());
  c.setAttr("epsilon", 0.03);
  c.setDataFormat(DataFormat::NCHW, true);
  c.generateInputs(11);
  QCOMPARE(attr_float(c.problem(), "epsilon"), 0.03);
  QCOMPARE(attr_string(c.problem(), "data_format"), std::string("NCHW"));
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  QVERIFY(c.problem().inputs.count("reserve_space_1"));
  test::expect_engine_answer(c);
}

#include "controller_edits_test.moc"
