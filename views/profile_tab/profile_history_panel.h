#pragma once
// The Profile tab's history: the session's runs, newest first, the pinned baseline named above
// them with Pin and Clear. The tab adds each finished run and sets its phase table against the
// baseline this panel announces.

#include <QString>
#include <QWidget>
#include <cstdint>

#include "profile/profile_history.h"

class QLabel;
class QPushButton;
class QTableView;

namespace bnscope {

class ProfileHistoryModel;

class ProfileHistoryPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ProfileHistoryPanel(std::uint64_t current_problem, QWidget* parent = nullptr);

  // Keeps a finished run; returns its id.
  std::uint64_t add(ProfileRun run);
  // Runs of another problem key are marked as such; none is dropped.
  void setCurrentProblem(std::uint64_t key);
  void pin(std::uint64_t id);
  // The selected row's run, else the latest.
  void pinSelected();
  void clearBaseline();

  // Keeps the history in the file `path` from now on: takes what an earlier start of the app
  // left there (its runs marked as of an earlier session, its baseline pinned) and writes the
  // history back, atomically, after every run kept and every change of the baseline. A file
  // that cannot be read is set aside as PATH.unreadable, never written over. Returns what the
  // user should be told, empty when there is nothing to say.
  QString keepIn(const QString& path);
  QString file() const { return file_; }

  ProfileHistoryModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QLabel* baselineLabel() const { return baseline_label_; }

 signals:
  // The pinned run, null when none; the pointer lives until the history changes.
  void baselineChanged(const ProfileRun* baseline);
  // The history could not be written to its file: why, in one line.
  void saveFailed(const QString& message);

 private:
  void showBaseline();
  void save();

  ProfileHistoryModel* model_;
  QTableView* table_;
  QLabel* baseline_label_;
  QPushButton* pin_;
  QPushButton* unpin_;
  QString file_;  // empty: kept for this session only
};

}  // namespace bnscope
