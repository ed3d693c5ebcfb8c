#pragma once
// One row per backend and phase of a set of profiles: timing statistics over the repetitions,
// the bytes the minimum-traffic model charges, achieved bandwidth and its share of the roofline;
// with a baseline, each row's median against the baseline's of the same backend and phase.

#include <optional>

#include "profile/profile_history.h"
#include "profile/profiler.h"
#include "table_model.h"

namespace bnscope {

class PhaseTableModel : public TableModel {
  Q_OBJECT
 public:
  // DeltaTime and DeltaPercent are columns only while there is a baseline.
  enum Column {
    Backend,
    Phase,
    Reps,
    Min,
    Median,
    Max,
    Bytes,
    Gbps,
    Roofline,
    DeltaTime,
    DeltaPercent,
    ColumnCount
  };

  explicit PhaseTableModel(QObject* parent = nullptr);
  void setProfiles(std::vector<Profile> profiles);
  const std::vector<Profile>& profiles() const { return profiles_; }
  // Sets the rows against these profiles (a pinned run's), each backend against its own; name:
  // the baseline in the headers ("#3"). An empty list removes the columns.
  void setBaseline(std::vector<Profile> baseline, const QString& name = {});
  bool hasBaseline() const { return !baseline_.empty(); }
  const std::vector<Profile>& baseline() const { return baseline_; }
  // Row r's profile index and phase index (-1: the whole run, host clock).
  std::pair<int, int> rowSource(int row) const { return rows_.at(static_cast<std::size_t>(row)); }
  double value(int row, int column) const;  // NaN when the cell has no number
  // Row r against the baseline; null without one, or when the baseline lacks its backend or
  // phase.
  const PhaseDelta* delta(int row) const;

 private:
  int rows() const override { return static_cast<int>(rows_.size()); }
  QVariant cell(int row, int column, int role) const override;

  void compare();
  void setColumnsFor();

  std::vector<Profile> profiles_;
  std::vector<std::pair<int, int>> rows_;
  std::vector<Profile> baseline_;
  QString baseline_name_;
  std::vector<std::optional<ProfileComparison>> comparisons_;  // one per profile
};

// "1.23 ms", "45.6 us": time with a unit fit for the value.
QString duration_text(double seconds);

}  // namespace bnscope
