#pragma once
// The Diff tab's chart of one column of the per-channel error table across channels, with the
// box that picks the column. It reads the model and draws; the tab says when and with what title.

#include <QWidget>

class QChartView;
class QComboBox;
class QLineSeries;
class QValueAxis;

namespace bnscope {

class ChannelErrorModel;

class ChannelErrorChart : public QWidget {
  Q_OBJECT
 public:
  ChannelErrorChart(ChannelErrorModel* model, QWidget* parent = nullptr);

  // Draws the chosen column again from the model, titled after `output` (none: no title).
  void update(const QString& output);
  QChartView* chartView() const { return view_; }

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  ChannelErrorModel* model_;
  QString output_;
  QComboBox* column_;
  QChartView* view_;
  QLineSeries* series_;
  QValueAxis* axis_x_;
  QValueAxis* axis_y_;
};

}  // namespace bnscope
