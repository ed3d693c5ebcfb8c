#include "views_test_util.h"

#include <QtTest>
#include <cmath>

#include "analysis/diff.h"
#include "channel_table_model.h"
#include "engine/engine.h"
#include "sample_source.h"
#include "tensor/error.h"

namespace bnscope::test {

Problem small_sample(std::uint64_t seed) {
  SampleSpec s;
  s.shape = {2, 3, 4, 5};
  s.seed = seed;
  return generate_problem(s);
}

Expected reference_answer(const Problem& p) {
  Expected e;
  try {
    const Result r = run_problem(p, "cpu-reference");
    e.stats = channel_stats(prepare(p), r);
  } catch (const Error& err) {
    e.error = err.what();
  }
  return e;
}

bool close_to_reference(double got, double want, bool is_count) {
  if (std::isnan(want)) return std::isnan(got);
  if (is_count || std::isinf(want)) return got == want;
  const Tolerance tol = default_tolerance(DType::F32);  // what the Diff tab passes for float32
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

void expect_channel_table(const ChannelTableModel& model, const ChannelStats& want) {
  QCOMPARE(model.rowCount(), static_cast<int>(want.channels));
  for (const ChannelColumn& col : want.columns) {
    const int mc = model.columnOf(QString::fromStdString(col.name));
    QVERIFY2(mc > 0, col.name.c_str());
    for (int ch = 0; ch < model.rowCount(); ++ch) {
      const double got = model.data(model.index(ch, mc), ChannelTableModel::SortRole).toDouble();
      const double exp = col.values[static_cast<std::size_t>(ch)];
      QVERIFY2(close_to_reference(got, exp, col.is_count),
               qPrintable(QStringLiteral("%1 channel %2: %3 vs %4")
                              .arg(QString::fromStdString(col.name))
                              .arg(ch)
                              .arg(got)
                              .arg(exp)));
    }
  }
}

}  // namespace bnscope::test
