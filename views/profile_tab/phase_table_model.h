#pragma once
// One row per backend and phase of a set of profiles: timing statistics over the repetitions,
// the bytes the minimum-traffic model charges, achieved bandwidth and its share of the roofline.

#include "profile/profiler.h"
#include "table_model.h"

namespace bnscope {

class PhaseTableModel : public TableModel {
  Q_OBJECT
 public:
  enum Column { Backend, Phase, Reps, Min, Median, Max, Bytes, Gbps, Roofline, ColumnCount };

  explicit PhaseTableModel(QObject* parent = nullptr);
  void setProfiles(std::vector<Profile> profiles);
  const std::vector<Profile>& profiles() const { return profiles_; }
  // Row r's profile index and phase index (-1: the whole run, host clock).
  std::pair<int, int> rowSource(int row) const { return rows_.at(static_cast<std::size_t>(row)); }
  double value(int row, int column) const;  // NaN when the cell has no number

 private:
  int rows() const override { return static_cast<int>(rows_.size()); }
  QVariant cell(int row, int column, int role) const override;

  std::vector<Profile> profiles_;
  std::vector<std::pair<int, int>> rows_;
};

// "1.23 ms", "45.6 us": time with a unit fit for the value.
QString duration_text(double seconds);

}  // namespace bnscope
