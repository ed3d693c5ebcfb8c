#pragma once
// One row per backend and phase of a set of profiles: timing statistics over the repetitions,
// the bytes the minimum-traffic model charges, achieved bandwidth and its share of the roofline.

#include <QAbstractTableModel>

#include "profile/profiler.h"

namespace bnscope {

class PhaseTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole + 1;  // raw number (seconds, bytes, GB/s)
  enum Column { Backend, Phase, Reps, Min, Median, Max, Bytes, Gbps, Roofline, ColumnCount };

  using QAbstractTableModel::QAbstractTableModel;
  void setProfiles(std::vector<Profile> profiles);
  const std::vector<Profile>& profiles() const { return profiles_; }
  // Row r's profile index and phase index (-1: the whole run, host clock).
  std::pair<int, int> rowSource(int row) const { return rows_.at(static_cast<std::size_t>(row)); }
  double value(int row, int column) const;  // NaN when the cell has no number

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Profile> profiles_;
  std::vector<std::pair<int, int>> rows_;
};

// "1.23 ms", "45.6 us": time with a unit fit for the value.
QString duration_text(double seconds);
// "12.6 MB" (1e6 bytes per MB, as bandwidth is counted)
QString bytes_text(double bytes);

}  // namespace bnscope
