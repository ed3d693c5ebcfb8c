#pragma once
// On the built-in sample, what to try first: a bar above the tabs, shown when the sample is
// opened and gone when dismissed or when another problem (or a file's inputs) is opened. Edits
// of the sample keep it: it suggests some.

#include "hint_bar.h"

class QTabWidget;

namespace bnscope {

class ProblemController;
struct AnalysisTabs;

class SampleHint : public HintBar {
  Q_OBJECT
 public:
  // Its links go to the tabs of `tabs` (Diff, Profile) and to Help > Quick start.
  SampleHint(ProblemController* controller, QTabWidget* tabs, const AnalysisTabs& analysis,
             QWidget* parent);
  // The controller now holds the built-in sample: shows the hint, naming it.
  void sampleOpened();

 private:
  ProblemController* controller_;
};

}  // namespace bnscope
