#include "channel_panel.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QValueAxis>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>

#include "channel_table_model.h"
#include "chart_axes.h"
#include "chart_theme.h"
#include "heatmap_slice.h"
#include "heatmap_widget.h"
#include "number_text.h"
#include "outcome_problems.h"
#include "problem_controller.h"

namespace bnscope {

namespace {

QChartView* chart_view(QChart* chart, QWidget* parent) {
  chart->legend()->hide();
  chart->setMargins(QMargins(2, 2, 2, 2));
  auto* v = new QChartView(chart, parent);
  v->setRenderHint(QPainter::Antialiasing);
  v->setMinimumHeight(150);
  return v;
}

// The whole chart is laid out and painted again by a theme: only when the palette asks for the
// other one. The histograms' titles are a size smaller than the theme's. Returns whether the
// theme was applied.
bool set_theme(QChart* chart, const QWidget* w, bool small_title) {
  if (!apply_chart_theme(chart, w)) return false;
  chart->legend()->hide();
  if (small_title) {
    QFont f = chart->titleFont();
    f.setPointSizeF(std::max(7.0, f.pointSizeF() * 0.85));
    chart->setTitleFont(f);
  }
  return true;
}

// What a chart was last given: its title and every number it draws, compared bit for bit.
ChartContent histogram_content(const QString& name, const std::optional<Histogram>& hist) {
  ChartContent c;
  c.title = name;
  if (hist) {
    c.numbers = {hist->lo, hist->hi, static_cast<double>(hist->non_finite)};
    for (std::int64_t n : hist->counts) c.numbers.push_back(static_cast<double>(n));
  } else {
    c.title += QStringLiteral(" (none)");
  }
  return c;
}

// Bars of a histogram (of the selected channel only, which the title says); the title carries
// the range and the non-finite count.
void fill_histogram(QChart* chart, const QString& name, const std::optional<Histogram>& hist) {
  chart->removeAllSeries();
  // removeAxis hands ownership back: delete what it returns.
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  if (!hist) {
    chart->setTitle(QObject::tr("%1: not available").arg(name));
    return;
  }
  const Histogram& h = *hist;
  auto* set = new QBarSet(name);
  std::int64_t top = 0;
  for (std::int64_t c : h.counts) {
    *set << static_cast<double>(c);
    top = std::max(top, c);
  }
  auto* series = new QBarSeries;
  series->setBarWidth(1.0);
  series->append(set);
  chart->addSeries(series);
  auto* x = new QValueAxis;
  x->setRange(0, static_cast<double>(h.counts.size()));
  x->setLabelsVisible(false);
  auto* y = new QValueAxis;
  // Whole counts only: a tick per count below four (1, 0, 0, 0, 0 otherwise).
  const std::int64_t y_top = std::max<std::int64_t>(top, 1);
  y->setRange(0, static_cast<double>(y_top));
  y->setTickCount(y_top < 4 ? static_cast<int>(y_top) + 1 : 5);
  y->setLabelFormat(QStringLiteral("%d"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  // No finite value: no range to give (lo and hi are placeholders then).
  QString title =
      top == 0 && h.non_finite > 0
          ? QObject::tr("%1<br>no finite value").arg(name)
          : QObject::tr("%1<br>[%2, %3]").arg(name, number_text(h.lo), number_text(h.hi));
  if (h.non_finite) title += QObject::tr("<br>%1 non-finite").arg(h.non_finite);
  chart->setTitle(title);
}

}  // namespace

bool ChartContent::operator==(const ChartContent& o) const {
  // Bit for bit, so a NaN figure equals itself; no memcmp, whose pointers may be null when empty.
  return title == o.title &&
         std::equal(numbers.begin(), numbers.end(), o.numbers.begin(), o.numbers.end(),
                    [](double p, double q) {
                      return std::bit_cast<std::uint64_t>(p) == std::bit_cast<std::uint64_t>(q);
                    });
}

ChannelPanel::ChannelPanel(ProblemController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  model_ = new ChannelTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(ChannelTableModel::SortRole);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("channelTable"));
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Column widths from the first rows only: sizing every cell of a wide layer's table on each
  // run would stall the UI thread, and the numbers all print alike.
  table_->horizontalHeader()->setResizeContentsPrecision(32);

  column_ = new QComboBox(this);
  column_->setObjectName(QStringLiteral("chartColumn"));
  batch_ = new QSpinBox(this);
  batch_->setObjectName(QStringLiteral("heatmapBatch"));
  status_ = new QLabel(this);
  status_->setWordWrap(true);

  chart_ = new QChart;
  auto* column_view = chart_view(chart_, this);
  auto* hist_row = new QWidget(this);
  auto* hist_layout = new QHBoxLayout(hist_row);
  hist_layout->setContentsMargins(0, 0, 0, 0);
  for (QChart*& h : histograms_) {
    h = new QChart;
    hist_layout->addWidget(chart_view(h, hist_row));
  }
  heatmap_ = new HeatmapWidget(this);
  heatmap_->setObjectName(QStringLiteral("channelHeatmap"));

  auto* left = new QWidget(this);
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->addWidget(status_);
  lv->addWidget(table_, 3);
  auto* pick = new QFormLayout;
  pick->addRow(tr("Chart column"), column_);
  lv->addLayout(pick);
  lv->addWidget(column_view, 2);

  auto* right = new QWidget(this);
  auto* rv = new QVBoxLayout(right);
  rv->setContentsMargins(0, 0, 0, 0);
  rv->addWidget(hist_row, 2);
  auto* batch_row = new QFormLayout;
  batch_row->addRow(tr("Heatmap batch element"), batch_);
  rv->addLayout(batch_row);
  rv->addWidget(heatmap_, 3);

  auto* split = new QSplitter(this);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(controller_, &ProblemController::outcomeChanged, this, &ChannelPanel::showOutcome);
  // Another problem is being opened: the figures of the one before are let go, and say so.
  connect(controller_, &ProblemController::outcomeReleased, this, [this] {
    showOutcome();
    status_->setText(controller_->isLoading() ? tr("Reading the problem file...")
                                              : tr("Running the opened problem..."));
  });
  // The same run's results re-described after a layout change in place: the histograms read the
  // inputs through them from now on; what is drawn stays (the same values per channel).
  connect(controller_, &ProblemController::problemChanged, this, [this] {
    const auto now = controller_->outcome();
    if (outcome_ && now && now != outcome_ && now->revision == outcome_->revision &&
        now->pipeline == outcome_->pipeline)
      outcome_ = now;
  });
  connect(column_, &QComboBox::currentTextChanged, this, &ChannelPanel::updateColumnChart);
  connect(batch_, &QSpinBox::valueChanged, this, &ChannelPanel::updateChannelViews);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (!current.isValid()) return;
            channel_ = proxy_->mapToSource(current).row();
            updateChannelViews();
          });
  showOutcome();
}

void ChannelPanel::selectChannel(int channel) {
  const QModelIndex src = model_->index(channel, 0);
  if (!src.isValid()) return;
  table_->setCurrentIndex(proxy_->mapFromSource(src));
  table_->scrollTo(table_->currentIndex());
}

void ChannelPanel::showOutcome() {
  outcome_ = controller_->outcome();
  const QString keep = column_->currentText();
  model_->setStats(outcome_ && outcome_->ok() ? outcome_->stats : ChannelStats{});
  if (!outcome_)
    status_->setText(tr("Not run yet."));
  else if (!outcome_->ok()) {
    // The first problem here; all of them are listed on the Inputs tab and in the warnings.
    const auto more = static_cast<int>(outcome_problems(*outcome_).size()) - 1;
    status_->setText(
        QStringLiteral("<span style='color:#dc322f'>%1</span>")
            .arg(QString::fromStdString(outcome_->error).toHtmlEscaped() +
                 (more == 1  ? tr(" (and 1 more problem, listed on the Inputs tab)")
                  : more > 1 ? tr(" (and %1 more problems, listed on the Inputs tab)").arg(more)
                             : QString())));
  } else
    status_->setText(
        tr("%1 on %2: %3 channels")
            .arg(QString::fromStdString(outcome_->problem.op),
                 QString::fromStdString(outcome_->backend))
            .arg(outcome_->stats.channels) +
        (outcome_->stale
             ? tr(" <span style='color:#cb4b16'>(stale: the run of the current problem was "
                  "cancelled; these are the previous results)</span>")
             : QString()));
  {
    QSignalBlocker block(column_);
    column_->clear();
    for (int i = 1; i < model_->columnCount(); ++i)
      column_->addItem(model_->headerData(i, Qt::Horizontal).toString());
    const int at = column_->findText(keep);
    column_->setCurrentIndex(at >= 0 ? at : 0);
  }
  {
    QSignalBlocker block(batch_);
    std::int64_t n = 1;
    if (outcome_ && outcome_->prepared && outcome_->prepared->inputs.size() > 0 &&
        outcome_->prepared->rank >= 2)
      n = outcome_->prepared->in(outcome_->prepared->op->family == OpFamily::GlobalNorm ? "t" : "x")
              .dim(0);
    batch_->setRange(0, static_cast<int>(std::max<std::int64_t>(n - 1, 0)));
  }
  if (channel_ >= model_->rowCount()) channel_ = 0;
  updateColumnChart();
  {
    // The selection's own signal would draw the channel's views a second time.
    QSignalBlocker block(table_->selectionModel());
    selectChannel(channel_);
  }
  table_->viewport()->update();
  updateChannelViews();
}

void ChannelPanel::updateColumnChart() {
  if (set_theme(chart_, this, false)) column_drawn_.reset();
  const int col = model_->columnOf(column_->currentText());
  ChartContent content;
  content.title = col < 1 || model_->rowCount() == 0 ? QString() : column_->currentText();
  if (!content.title.isEmpty()) {
    content.numbers.push_back(model_->rowCount());
    for (int c = 0; c < model_->rowCount(); ++c) content.numbers.push_back(model_->value(c, col));
  }
  // A run that gives every channel the same figure again (a layout change, a toggle back) leaves
  // the chart as it is: rebuilding it would lay out and paint it again for nothing.
  if (column_drawn_ && *column_drawn_ == content) return;
  column_drawn_ = content;
  chart_->removeAllSeries();
  for (QAbstractAxis* a : chart_->axes()) {
    chart_->removeAxis(a);
    delete a;
  }
  if (content.title.isEmpty()) {
    chart_->setTitle(tr("no per-channel data"));
    return;
  }
  auto* series = new QLineSeries;
  double lo = 0, hi = 0;
  bool any = false;
  for (int c = 0; c < model_->rowCount(); ++c) {
    const double v = content.numbers[static_cast<std::size_t>(c) + 1];
    if (!std::isfinite(v)) continue;
    series->append(c, v);
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  series->setPointsVisible(true);
  chart_->addSeries(series);
  auto* x = new QValueAxis;
  set_channel_axis(x, model_->rowCount());
  x->setTitleText(tr("channel"));
  auto* y = new QValueAxis;
  // 2% either way keeps the extreme points off the frame where they fall on a tick.
  const double pad = (hi - lo) * 0.02;
  set_value_axis(y, lo - pad, hi + pad);
  chart_->addAxis(x, Qt::AlignBottom);
  chart_->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  chart_->setTitle(tr("%1 across channels").arg(column_->currentText()));
}

void ChannelPanel::updateChannelViews() {
  for (int i = 0; i < 3; ++i)
    if (set_theme(histograms_[i], this, true)) histogram_drawn_[i].reset();
  const bool ok = outcome_ && outcome_->ok() && outcome_->prepared;
  const Prepared* p = ok ? &*outcome_->prepared : nullptr;
  const bool global = p && p->op->family == OpFamily::GlobalNorm;
  const char* inputs[2] = {global ? "t" : "x", global ? "backprop" : "y_backprop"};
  constexpr int kBins = 24;
  // One channel read in place; its range comes from the run's scan of the whole tensor. Read
  // through the scan's own tensor and view: after a layout change in place the shown outcome's
  // inputs hold the new layout, which only they describe. Nothing is read while the inputs are
  // being rewritten: the histograms shown stay.
  if (controller_->inputsInFlux()) return;
  for (int i = 0; i < 2; ++i) {
    std::optional<Histogram> h;
    if (p && p->per_channel() > 0 && p->op->input_index(inputs[i]) >= 0 &&
        channel_ < p->channels()) {
      const Tensor& t = p->in(inputs[i]);
      const InputSummary* known = outcome_->stats.input(inputs[i]);
      if (known && known->tensor.shares_storage_with(t) && !known->scan.finite.empty())
        h = channel_histogram(known->tensor, known->scan.view, channel_, kBins, &known->scan);
      else
        h = channel_histogram(t, p->view, channel_, kBins, nullptr);
    }
    showHistogram(i, tr("%1, channel %2").arg(QString::fromLatin1(inputs[i])).arg(channel_), h);
  }
  const OutputTensor* out = p ? data_output(*p, *outcome_->result) : nullptr;
  std::optional<Histogram> h;
  if (out && p->per_channel() > 0 && channel_ < p->channels())
    h = channel_histogram(out->tensor, p->view, channel_, kBins, &outcome_->stats.data_output);
  showHistogram(2,
                tr("%1, channel %2")
                    .arg(out ? QString::fromStdString(out->name) : tr("data gradient"))
                    .arg(channel_),
                h);
  if (!out) {
    heatmap_->setSlice({}, tr("no output shaped like x"));
    return;
  }
  heatmap_->setSlice(slice_tensor(out->tensor, p->channels_last, SliceMode::SpatialAtBatchChannel,
                                  batch_->value(), channel_),
                     tr("%1 over H x W, n=%2, channel %3")
                         .arg(QString::fromStdString(out->name))
                         .arg(batch_->value())
                         .arg(channel_));
}

// The same histogram again (the inputs' after a layout change or a toggle that left them as they
// were) leaves its chart alone.
void ChannelPanel::showHistogram(int i, const QString& name, const std::optional<Histogram>& h) {
  ChartContent content = histogram_content(name, h);
  if (histogram_drawn_[i] && *histogram_drawn_[i] == content) return;
  histogram_drawn_[i] = std::move(content);
  fill_histogram(histograms_[i], name, h);
}

}  // namespace bnscope
