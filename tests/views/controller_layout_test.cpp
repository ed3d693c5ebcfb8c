// Layout changes in the controller: converted or reinterpreted, in the background or in place
// within the inputs' own storage, and cancelled without a trace.
#include <QThreadPool>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "channel_table_model.h"
#include "controller_test_util.h"
#include "engine/engine.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "qt_suites.h"
#include "tensor/layout.h"
#include "views_test_util.h"

using namespace bnscope;

class ControllerLayoutTest : public QObject {
  Q_OBJECT
 private slots:
  void layoutChangeConvertsOrReinterprets();
  void largeLayoutChangeLandsWhenConverted();
  void layoutChangeReleasesTheOldInputsAndKeepsTheirScans();
  void layoutChangeRewritesInputsNobodyElseHolds();
};
BNSCOPE_QT_SUITE(ControllerLayoutTest);

void ControllerLayoutTest::layoutChangeConvertsOrReinterprets() {
  ProblemController c;
  const Problem sample = test::small_sample();
  c.setProblem(sample);
  test::expect_engine_answer(c);
  const auto before = c.outcome();

  c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  QCOMPARE(c.problem().inputs.at("x").to_doubles(),
           to_channels_first(sample.inputs.at("x")).to_doubles());
  test::expect_engine_answer(c);
  // Same data in another layout: the per-channel results do not change.
  if (before->ok() && c.outcome()->ok()) {
    const auto& a = before->stats.column("scale_backprop")->values;
    const auto& b = c.outcome()->stats.column("scale_backprop")->values;
    for (std::size_t i = 0; i < a.size(); ++i)
      QVERIFY(std::fabs(a[i] - b[i]) <= 1e-3 * (1 + std::fabs(a[i])));
  }

  c.setDataFormat(DataFormat::NHWC, /*convertData=*/false);  // reinterpret [2,5,3,4] as NHWC
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  test::expect_engine_answer(
      c);  // 4 channels now: scale of 5 fails validation like the engine says
}

void ControllerLayoutTest::largeLayoutChangeLandsWhenConverted() {
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

void ControllerLayoutTest::layoutChangeReleasesTheOldInputsAndKeepsTheirScans() {
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
    QVERIFY2(c.outcome()->ok(), c.outcome()->error.c_str());
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
void ControllerLayoutTest::layoutChangeRewritesInputsNobodyElseHolds() {
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
  QVERIFY2(c.outcome()->ok(), c.outcome()->error.c_str());
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
  QVERIFY2(c.outcome()->ok(), c.outcome()->error.c_str());

  // Someone else holding a copy: the conversion copies, and that copy keeps its bytes.
  const Tensor held = c.problem().inputs.at("x");
  c.setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QVERIFY(!c.inputsInFlux());
  QVERIFY(c.waitForIdle(120000));
  QVERIFY(!c.problem().inputs.at("x").shares_storage_with(held));
  QVERIFY(std::memcmp(held.raw(), x_bytes.data(), x_bytes.size()) == 0);
}

#include "controller_layout_test.moc"
