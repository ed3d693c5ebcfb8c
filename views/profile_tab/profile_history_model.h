#pragma once
// The Profile tab's history: one row per backend of every profile run of the session, newest
// run first, with when, the settings, the median, GB/s and share of the roofline, and the problem
// (marked when it is not the current one); the pinned baseline's rows marked.

#include <QDateTime>
#include <chrono>
#include <cstdint>

#include "profile/profile_history.h"
#include "table_model.h"

namespace bnscope {

class ProfileHistoryModel : public TableModel {
  Q_OBJECT
 public:
  // The problem last: it takes the width the figures leave.
  enum Column { Run, When, Backend, Reps, Threads, Median, Gbps, Roofline, Problem, ColumnCount };

  explicit ProfileHistoryModel(QObject* parent = nullptr);

  // Adds a run (ProfileHistory::add) and returns its id.
  std::uint64_t add(ProfileRun run);
  const ProfileHistory& history() const { return history_; }
  // The problem runs are checked against (ProfileRun::problem_key); others are marked.
  void setCurrentProblem(std::uint64_t key);
  std::uint64_t currentProblem() const { return current_; }
  bool ofCurrentProblem(const ProfileRun& run) const {
    return !run.earlier_session && run.problem_key == current_;
  }
  // Replaces the whole history (one read back from its file), baseline included.
  void replace(ProfileHistory history);

  bool pin(std::uint64_t id);
  void clearBaseline();

  const ProfileRun& runAt(int row) const;
  const Profile& profileAt(int row) const;
  // The first row of run `id`, -1 when it is gone.
  int firstRow(std::uint64_t id) const;

 signals:
  void baselineChanged();

 private:
  int rows() const override { return static_cast<int>(rows_.size()); }
  QVariant cell(int row, int column, int role) const override;
  void rebuild();
  void marksChanged();

  ProfileHistory history_;
  std::uint64_t current_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> rows_;  // run index, profile index
};

// A wall-clock time in the local time zone.
QDateTime local_time(std::chrono::system_clock::time_point t);
// When a run was made, for the history: the time of day today, with the date on another day.
QString when_text(std::chrono::system_clock::time_point t);

}  // namespace bnscope
