#include <cmath>

#include "io/json_writer.h"
#include "report/cells.h"
#include "report/writers.h"

namespace bnscope {

namespace {

struct Row {
  std::string kind, op, mode, backend, reference, output, channel, phase, metric;
  double value;
  std::string unit;
};

void emit(std::ostream& os, const Row& r) {
  const std::string v = std::isfinite(r.value)
                            ? json_number(r.value)
                            : (std::isnan(r.value) ? "nan" : (r.value > 0 ? "inf" : "-inf"));
  os << csv_cell(r.kind) << ',' << csv_cell(r.op) << ',' << csv_cell(r.mode) << ','
     << csv_cell(r.backend) << ',' << csv_cell(r.reference) << ',' << csv_cell(r.output) << ','
     << csv_cell(r.channel) << ',' << csv_cell(r.phase) << ',' << csv_cell(r.metric) << ',' << v
     << ',' << csv_cell(r.unit) << '\n';
}

}  // namespace

void write_report_csv(const Report& r, std::ostream& os) {
  os << "kind,op,mode,backend,reference,output,channel,phase,metric,value,unit\n";
  const std::string op = r.has_problem ? r.problem.op : std::string();
  for (const Profile& p : r.profiles) {
    const std::string m(mode_name(p.is_training));
    for (const PhaseStats& ps : p.phases) {
      emit(os, {"time", p.op, m, p.backend, "", "", "", ps.phase, "min", ps.stats.min, "s"});
      emit(os, {"time", p.op, m, p.backend, "", "", "", ps.phase, "median", ps.stats.median, "s"});
      emit(os, {"time", p.op, m, p.backend, "", "", "", ps.phase, "max", ps.stats.max, "s"});
    }
    emit(os, {"traffic", p.op, m, p.backend, "", "", "", "", "bytes",
              static_cast<double>(p.traffic.total()), "B"});
    emit(os,
         {"bandwidth", p.op, m, p.backend, "", "", "", "", "achieved", p.achieved_gbps, "GB/s"});
    if (p.roofline_gbps > 0) {
      emit(os,
           {"bandwidth", p.op, m, p.backend, "", "", "", "", "roofline", p.roofline_gbps, "GB/s"});
      emit(os, {"bandwidth", p.op, m, p.backend, "", "", "", "", "roofline_fraction",
                p.roofline_fraction, ""});
    }
  }
  // The baseline's figures beside each profile's: one row per phase and metric.
  for (const Profile& p : r.profiles) {
    const Profile* b = r.baseline ? r.baseline->find(p.backend) : nullptr;
    if (!b) continue;
    const ProfileComparison c = compare_profiles(p, *b);
    const std::string m(mode_name(p.is_training));
    std::vector<const PhaseDelta*> rows;
    for (const PhaseDelta& d : c.phases) rows.push_back(&d);
    rows.push_back(&c.wall);
    for (const PhaseDelta* d : rows) {
      auto row = [&](const std::string& metric, double v, const std::string& unit) {
        emit(os, {"baseline", p.op, m, p.backend, "", "", "", d->phase, metric, v, unit});
      };
      row("baseline_median", d->baseline_seconds, "s");
      row("delta_median", d->delta_seconds, "s");
      row("delta_percent", d->percent, "%");
      if (std::isfinite(d->gbps)) {
        row("baseline_gbps", d->baseline_gbps, "GB/s");
        row("delta_gbps", d->delta_gbps, "GB/s");
      }
    }
  }
  if (!r.has_diff) return;
  for (const Comparison& c : r.diff.comparisons)
    for (const OutputDiff& o : c.outputs) {
      if (!o.compared) continue;
      auto row = [&](const std::string& ch, const std::string& metric, double v,
                     const std::string& unit) {
        emit(os, {"error", op, r.problem.mode, c.candidate, c.reference, o.name, ch, "", metric, v,
                  unit});
      };
      row("", "max_abs", o.max_abs, "");
      row("", "mean_abs", o.mean_abs, "");
      row("", "max_rel", o.max_rel, "");
      row("", "max_ulp", static_cast<double>(o.max_ulp), "ulp");
      row("", "mismatches", static_cast<double>(o.mismatches), "elements");
      row("", "passed", o.passed ? 1 : 0, "");
      for (const ChannelError& ce : o.channels) {
        row(std::to_string(ce.channel), "max_abs", ce.max_abs, "");
        row(std::to_string(ce.channel), "mismatches", static_cast<double>(ce.mismatches),
            "elements");
      }
    }
}

}  // namespace bnscope
