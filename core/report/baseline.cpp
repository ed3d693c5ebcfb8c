#include "profile/clock.h"
#include "report/report.h"

namespace bnscope {

ReportBaseline report_baseline(const ProfileRun& run, bool same_problem) {
  ReportBaseline b;
  b.problem = run.problem;
  b.same_problem = same_problem;
  b.measured_at = iso8601_utc(run.when);
  b.reps = run.reps;
  b.threads = run.threads;
  b.profiles = run.profiles;
  return b;
}

const Profile* ReportBaseline::find(std::string_view backend) const {
  for (const Profile& p : profiles)
    if (p.backend == backend) return &p;
  return nullptr;
}

std::vector<ProfileComparison> baseline_comparisons(const Report& report) {
  std::vector<ProfileComparison> out;
  if (!report.baseline) return out;
  for (const Profile& p : report.profiles)
    if (const Profile* b = report.baseline->find(p.backend)) out.push_back(compare_profiles(p, *b));
  return out;
}

}  // namespace bnscope
