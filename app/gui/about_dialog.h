#pragma once
// Help > About bnscope: bnscope's version, Qt's, the CUDA runtime's and cuDNN's, and every
// registered backend (plugins and framework backends too) with what it is, whether it runs
// here and what it runs. What is known at once is shown at once; the rest (a framework
// backend's Python, the CUDA runtime) is asked in the background and filled in when known,
// "checking..." meanwhile. No framework worker is started.

#include <QFutureWatcher>
#include <optional>
#include <string>
#include <vector>

#include "backends.h"
#include "gpu_versions.h"
#include "text_dialog.h"

namespace bnscope {

class AboutDialog : public TextDialog {
  Q_OBJECT
 public:
  explicit AboutDialog(QWidget* parent = nullptr);
  // Asks again (a plugin loaded since, another framework Python).
  void refresh();
  bool isChecking() const { return !found_.has_value(); }

 signals:
  void checked();  // the background answers are shown

 private:
  struct Found {
    std::vector<app::BackendState> backends;
    app::GpuVersions gpu;
  };
  void render();

  std::vector<app::BackendState> known_;  // names and descriptions, asked nothing
  std::optional<Found> found_;
  QFutureWatcher<Found>* watcher_ = nullptr;
};

}  // namespace bnscope
