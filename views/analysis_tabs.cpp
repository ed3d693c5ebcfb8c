#include "analysis_tabs.h"

#include <QTabWidget>

#include "diff/diff_compute.h"
#include "diff/diff_view.h"
#include "ops/prepared.h"
#include "problem_controller.h"
#include "profile/phase_table_model.h"
#include "profile/profile_view.h"
#include "report/writers.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// Same op, attrs, dtype, convention and input bytes.
bool same_problem(const Problem& a, const Problem& b) {
  const ProblemInfo x = describe_problem(a), y = describe_problem(b);
  if (x.op != y.op || x.attrs != y.attrs || x.dtype != y.dtype || x.convention != y.convention ||
      x.inputs.size() != y.inputs.size())
    return false;
  for (std::size_t i = 0; i < x.inputs.size(); ++i)
    if (x.inputs[i].name != y.inputs[i].name || x.inputs[i].fnv1a64 != y.inputs[i].fnv1a64 ||
        x.inputs[i].shape != y.inputs[i].shape)
      return false;
  return true;
}

}  // namespace

AnalysisTabs add_analysis_tabs(QTabWidget* tabs, ProblemController* controller) {
  AnalysisTabs t;
  t.diff = new DiffView(controller, tabs);
  t.profile = new ProfileView(controller, tabs);
  tabs->addTab(t.diff, QObject::tr("&Diff"));
  tabs->addTab(t.profile, QObject::tr("P&rofile"));
  return t;
}

Report analysis_report(const Problem& problem, const DiffOutcome* diff,
                       const std::vector<Profile>& profiles) {
  Report r = new_report("bnscope report: " + problem.op);
  r.has_problem = true;
  r.problem = describe_problem(problem);
  r.notes = prepare(problem).notes;
  if (diff && diff->error.empty() && !diff->report.comparisons.empty()) {
    r.has_diff = true;
    r.diff = diff->report;
    r.causes = diff->causes;
  }
  r.profiles = profiles;
  return r;
}

bool export_report(const AnalysisTabs& tabs, const ProblemController& controller,
                   const QString& dir, QString* error) {
  try {
    const Problem& problem = controller.problem();
    std::shared_ptr<const DiffOutcome> diff = tabs.diff ? tabs.diff->outcome() : nullptr;
    if (!diff || !diff->error.empty() || !same_problem(diff->request.problem, problem)) {
      DiffRequest request;
      request.problem = problem;
      request.candidates = {"cpu"};
      if (tabs.diff) request.options = tabs.diff->options();
      diff = compute_diff(request);
      if (!diff->error.empty()) throw Error(ErrorCode::InvalidArgument, diff->error);
    }
    std::vector<Profile> profiles;
    if (tabs.profile && tabs.profile->profiledProblem() &&
        same_problem(*tabs.profile->profiledProblem(), problem))
      profiles = tabs.profile->phaseModel()->profiles();
    write_report_files(analysis_report(problem, diff.get(), profiles), dir.toStdString());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

}  // namespace bnscope
