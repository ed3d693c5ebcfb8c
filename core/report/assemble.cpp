#include "ops/prepared.h"
#include "report/report.h"

namespace bnscope {

Report assemble_report(const Problem& problem, const PipelineResult* verdict,
                       std::vector<Profile> profiles, std::string source) {
  ProblemInfo info = describe_problem(problem);
  info.source = std::move(source);
  return assemble_report(problem, std::move(info), verdict, std::move(profiles));
}

Report assemble_report(const Problem& problem, ProblemInfo info, const PipelineResult* verdict,
                       std::vector<Profile> profiles) {
  Report r = new_report("bnscope report: " + describe_case(problem));
  r.has_problem = true;
  r.problem = std::move(info);
  if (verdict)
    set_verdict(r, *verdict);
  else
    r.notes = prepare(problem).notes;  // what a verdict's notes would have said of the inputs
  r.profiles = std::move(profiles);
  add_devices(r);  // after the runs are in: only their backends' devices
  return r;
}

}  // namespace bnscope
