#pragma once
// Picking backends, alike wherever the app asks: one (a combo box) or several (check boxes).
// The combo lists every registered backend, those that cannot run here greyed out with the
// reason as their tooltip; the check boxes list those that can run, and one "N unavailable"
// label carries the others' reasons, so a row of backends this machine lacks does not widen
// the window.

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;

namespace bnscope {

class BackendPicker : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { One, Several };
  BackendPicker(Mode mode, QWidget* parent = nullptr);
  ~BackendPicker() override;

  // Adds the backends registered since (a kernel plugin loaded from the File menu) to every
  // picker the app shows.
  static void refreshAll();

  // Mode One: a choice after the backends that is not a backend (e.g. outputs from a file);
  // current() reports it as key.
  void addExtra(const QString& text, const QString& key);
  // Mode One: the chosen backend's name, or an extra's key.
  QString current() const;
  void setCurrent(const QString& nameOrKey);
  // The checked backends that can run here (mode One: the current one).
  QStringList selected() const;
  void setSelected(const QStringList& names);
  // Every backend that can run here.
  static QStringList available();
  // Those of them whose timings are their own speed (Backend::measures_speed).
  static QStringList timed();

  QComboBox* comboBox() const { return combo_; }  // mode One, else null
  const QList<QCheckBox*>& checkBoxes() const { return checks_; }

 signals:
  void changed();

 private:
  void addMissing();  // the registry's backends this picker does not list yet

  QComboBox* combo_ = nullptr;
  QList<QCheckBox*> checks_;
  QLabel* unavailable_ = nullptr;  // mode Several
};

}  // namespace bnscope
