#include "diff/channel_error_chart.h"

#include <QComboBox>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>

#include "chart_axes.h"
#include "chart_theme.h"
#include "diff/channel_error_model.h"

namespace bnscope {

ChannelErrorChart::ChannelErrorChart(ChannelErrorModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  column_ = new QComboBox(this);
  for (int c = ChannelErrorModel::Mismatches; c < ChannelErrorModel::ColumnCount; ++c)
    column_->addItem(model_->headerData(c, Qt::Horizontal).toString(), c);
  column_->setCurrentIndex(1);  // max |a-b|
  layout->addWidget(column_);
  auto* chart = new QChart();
  chart->legend()->hide();
  chart->setMargins(QMargins(4, 4, 4, 4));
  series_ = new QLineSeries(chart);
  series_->setPointsVisible(true);
  chart->addSeries(series_);
  axis_x_ = new QValueAxis(chart);
  axis_x_->setTitleText(tr("channel"));
  axis_x_->setLabelFormat(QStringLiteral("%d"));
  axis_y_ = new QValueAxis(chart);
  axis_y_->setLabelFormat(QStringLiteral("%.3g"));
  chart->addAxis(axis_x_, Qt::AlignBottom);
  chart->addAxis(axis_y_, Qt::AlignLeft);
  series_->attachAxis(axis_x_);
  series_->attachAxis(axis_y_);
  view_ = new QChartView(chart, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumSize(260, 180);
  layout->addWidget(view_, 1);
  connect(column_, &QComboBox::currentIndexChanged, this, [this] { update(output_); });
}

void ChannelErrorChart::update(const QString& output) {
  output_ = output;
  const int column = column_->currentData().toInt();
  QList<QPointF> points;
  double lo = 0, hi = 0;
  for (int r = 0; r < model_->rowCount(); ++r) {
    const double v = model_->value(r, column);
    if (!std::isfinite(v)) continue;
    points << QPointF(model_->value(r, ChannelErrorModel::Channel), v);
    hi = std::max(hi, v);
    lo = std::min(lo, v);
  }
  series_->replace(points);
  set_channel_axis(axis_x_, model_->rowCount());
  set_value_axis(axis_y_, lo, hi > lo ? hi + (hi - lo) * 0.05 : lo + 1);
  axis_y_->setTitleText(column_->currentText());
  view_->chart()->setTitle(output.isEmpty() ? QString() : tr("%1 across channels").arg(output));
}

void ChannelErrorChart::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (apply_chart_theme(view_->chart(), this)) {
    view_->chart()->legend()->hide();
    view_->chart()->setMargins(QMargins(4, 4, 4, 4));
  }
}

}  // namespace bnscope
