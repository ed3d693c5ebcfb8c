#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/cells.h"
#include "report/svg_chart.h"
#include "report/writers.h"

namespace bnscope {

namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;margin:0;background:#f6f7f9}
main{max-width:1080px;margin:0 auto;padding:20px 28px 60px;background:#fff;min-height:100vh}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}.sub{color:#666;margin:0 0 12px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #dcdfe4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;font-family:"DejaVu Sans Mono",monospace;font-size:12px}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-weight:600;font-size:12px;color:#fff}
.pass{background:#2e8b57}.fail{background:#c8453b}.skip{background:#8a8f98}
.note{color:#555;font-size:12px}.warn{color:#9a5b00}
svg.chart{display:block;max-width:100%;height:auto;margin:4px 0 10px}
svg text.tick{font-size:10px;fill:#555}svg text.axis{font-size:11px;fill:#333}svg text.ref{font-size:11px;fill:#a86a00}
code{font-family:"DejaVu Sans Mono",monospace;font-size:12px}
)";

std::string e(const std::string& s) {
  return html_escape(s);
}
std::string n(double v) {
  return format_si(v);
}
std::string badge(bool passed) {
  return passed ? "<span class=\"badge pass\">PASS</span>"
                : "<span class=\"badge fail\">FAIL</span>";
}
std::string ms(double s) {
  return format_si(s * 1e3);
}
std::string join(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}
void machine(std::ostream& os, const Report& r) {
  const MachineInfo& m = r.machine;
  os << "<h2 id=\"machine\">Machine</h2>\n<table>\n";
  os << "<tr><th>CPU</th><td>" << e(m.cpu_model) << "</td></tr>\n";
  os << "<tr><th>Logical cores</th><td>" << m.logical_cores << "</td></tr>\n";
  os << "<tr><th>Memory</th><td>" << n(static_cast<double>(m.memory_bytes) / (1u << 30))
     << " GiB</td></tr>\n";
  os << "<tr><th>OS</th><td>" << e(m.os) << "</td></tr>\n";
  os << "<tr><th>Kernel</th><td>" << e(m.kernel) << "</td></tr>\n";
  os << "<tr><th>Host</th><td>" << e(m.hostname) << "</td></tr>\n";
  os << "<tr><th>cpu backend</th><td>" << e(m.cpu_code_path) << "</td></tr>\n";
  for (const std::string& d : m.devices) os << "<tr><th>Device</th><td>" << e(d) << "</td></tr>\n";
  os << "</table>\n";
}

void problem(std::ostream& os, const Report& r) {
  if (!r.has_problem) return;
  const ProblemInfo& p = r.problem;
  os << "<h2 id=\"problem\">Problem</h2>\n<table>\n";
  if (!p.source.empty())
    os << "<tr><th>Source</th><td><code>" << e(p.source) << "</code></td></tr>\n";
  os << "<tr><th>Op</th><td><code>" << e(p.op) << "</code></td></tr>\n";
  os << "<tr><th>T</th><td>" << e(p.dtype) << "</td></tr>\n";
  os << "<tr><th>reserve_space_2 convention</th><td>" << e(p.convention) << "</td></tr>\n";
  if (!p.mode.empty()) os << "<tr><th>mode</th><td>" << e(p.mode) << "</td></tr>\n";
  for (const auto& [k, v] : p.attrs)
    os << "<tr><th>" << e(k) << "</th><td>" << e(v) << "</td></tr>\n";
  os << "</table>\n<table>\n<tr><th>Input</th><th>dtype</th><th>shape</th><th>CRC-32</th></tr>\n";
  for (const InputInfo& in : p.inputs)
    os << "<tr><td>" << e(in.name) << "</td><td>" << dtype_name(in.dtype) << "</td><td>"
       << e(shape_str(in.shape)) << "</td><td><code>" << e(in.crc32) << "</code></td></tr>\n";
  os << "</table>\n";
}

void notes(std::ostream& os, const Report& r) {
  if (r.notes.empty()) return;
  os << "<h2 "
        "id=\"notes\">Notes</h2>\n<table>\n<tr><th>Kind</th><th>Code</th><th>Message</th></tr>\n";
  for (const Note& note : r.notes)
    os << "<tr><td>" << note_kind_name(note.kind) << "</td><td><code>" << e(note.code)
       << "</code></td><td>" << e(note_text(note)) << "</td></tr>\n";
  os << "</table>\n";
}

void output_detail(std::ostream& os, const OutputDiff& o) {
  os << "<h3 id=\"out-" << e(o.name) << "\">" << e(o.name) << " " << badge(o.passed) << "</h3>\n";
  if (!o.note.empty()) os << "<p class=\"note warn\">" << e(o.note) << "</p>\n";
  if (!o.channels.empty()) {
    BarSeries s;
    s.log_scale = true;
    s.reference = o.tolerance.atol;
    s.reference_label = "atol " + format_si(o.tolerance.atol);
    s.y_label = "max |a-b|";
    s.x_label = "channel (" + std::to_string(o.channels.size()) + "); red: outside tolerance";
    for (const ChannelError& c : o.channels) {
      s.values.push_back(c.max_abs);
      s.highlight.push_back(c.mismatches > 0);
      if (o.channels.size() <= 32) s.labels.push_back(std::to_string(c.channel));
    }
    os << "<p class=\"note\">Per-channel maximum absolute error</p>\n";
    svg_bar_chart(os, s, 1000, 220);
  }
  BarSeries h;
  h.y_label = "elements";
  h.x_label = "|a-b| (log-spaced bins)";
  for (int b = 0; b < histogram_bin_count(); ++b) {
    h.values.push_back(static_cast<double>(o.histogram[static_cast<std::size_t>(b)]));
    h.labels.push_back(histogram_bin_label(b));
    h.highlight.push_back(b == histogram_bin_count() - 1);
  }
  os << "<p class=\"note\">Error histogram</p>\n";
  svg_bar_chart(os, h, 1000, 200);
  if (!o.worst.empty()) {
    os << "<table>\n<tr><th>#</th><th>index</th><th>coordinates</th><th>channel</th>"
          "<th>reference</th><th>candidate</th><th>|a-b|</th><th>rel</th><th>ULP</th></tr>\n";
    const auto row = [&](const std::string& rank, const ElementError& w) {
      os << "<tr><td>" << rank << "</td><td class=\"n\">" << w.index << "</td><td>"
         << join(w.coords) << "</td><td class=\"n\">" << w.channel << "</td><td class=\"n\">"
         << format_si(w.reference, 9) << "</td><td class=\"n\">" << format_si(w.candidate, 9)
         << "</td><td class=\"n\">" << n(w.abs_error) << "</td><td class=\"n\">" << n(w.rel_error)
         << "</td><td class=\"n\">" << ulp_text(w.ulp) << "</td></tr>\n";
    };
    for (std::size_t i = 0; i < o.worst.size(); ++i) row(std::to_string(i + 1), o.worst[i]);
    if (o.max_ulp_element) row("max ULP", *o.max_ulp_element);
    os << "</table>\n";
  }
}

void diff(std::ostream& os, const Report& r) {
  if (!r.has_diff) return;
  os << "<h2 id=\"diff\">Diff " << badge(r.diff.passed()) << "</h2>\n";
  os << "<p class=\"sub\">An element passes when |a-b| &lt;= atol + rtol*|b|, b the "
        "reference.</p>\n";
  for (const Comparison& c : r.diff.comparisons) {
    os << "<h3>" << e(c.candidate) << " vs " << e(c.reference) << " " << badge(c.passed)
       << "</h3>\n";
    for (const std::string& note : c.notes) os << "<p class=\"note\">" << e(note) << "</p>\n";
    os << "<table>\n<tr><th>output</th><th>dtype</th><th>shape</th><th>atol</th><th>rtol</th>"
          "<th>max |a-b|</th><th>mean |a-b|</th><th>max rel</th><th>max ULP</th>"
          "<th>mismatches</th><th title=\""
       << kRequiredAtolMeaning << "\">" << kRequiredAtolWords << "</th><th>verdict</th></tr>\n";
    for (const OutputDiff& o : c.outputs) {
      os << "<tr><td>" << e(o.name) << "</td><td>" << dtype_name(o.dtype) << "</td><td>"
         << e(shape_str(o.shape)) << "</td>";
      if (!o.compared) {
        os << "<td colspan=\"8\" class=\"note\">" << e(o.note)
           << "</td><td><span class=\"badge skip\">SKIP</span></td></tr>\n";
        continue;
      }
      os << "<td class=\"n\">" << n(o.tolerance.atol) << "</td><td class=\"n\">"
         << n(o.tolerance.rtol) << "</td><td class=\"n\">" << n(o.max_abs)
         << "</td><td class=\"n\">" << n(o.mean_abs) << "</td><td class=\"n\">" << n(o.max_rel)
         << "</td><td class=\"n\">" << ulp_text(o.max_ulp) << "</td><td class=\"n\">"
         << o.mismatches << " / " << o.count << "</td><td class=\"n\">" << n(o.required_atol)
         << "</td><td>" << badge(o.passed) << "</td></tr>\n";
    }
    os << "</table>\n";
    for (const OutputDiff& o : c.outputs)
      if (o.compared && (!o.passed || o.max_abs > 0)) output_detail(os, o);
  }
}

// The first screen of a report: the verdict per candidate and the reference it was compared
// with, then what most likely went wrong and the notes, before any table of numbers or chart.
void verdict(std::ostream& os, const Report& r) {
  if (!r.has_diff) return;
  os << "<table id=\"verdict\">\n<tr><th>candidate</th><th>reference</th><th>verdict</th>"
        "<th>outputs outside tolerance</th></tr>\n";
  for (const Comparison& c : r.diff.comparisons) {
    std::string failing;
    for (const OutputDiff& o : c.outputs)
      if (!o.passed) failing += (failing.empty() ? "" : ", ") + o.name;
    os << "<tr><td>" << e(c.candidate) << "</td><td>" << e(c.reference) << "</td><td>"
       << badge(c.passed) << "</td><td>" << (failing.empty() ? "none" : e(failing))
       << "</td></tr>\n";
  }
  os << "</table>\n";
}

void causes(std::ostream& os, const Report& r) {
  if (r.causes.empty()) return;
  os << "<h2 id=\"causes\">Likely causes</h2>\n<p class=\"sub\">Each cause of the catalog was "
        "fitted and tested by re-running with its fix; the error ratio is max |a-b| / (atol + "
        "rtol*|b|).</p>\n";
  os << "<table>\n<tr><th>#</th><th>candidate</th><th>cause</th><th>evidence</th>"
        "<th>confidence</th><th>ratio before</th><th>ratio after</th><th>max |a-b| after</th>"
        "<th>resolves</th><th>fix</th></tr>\n";
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const Cause& c = r.causes[i];
    os << "<tr><td>" << i + 1 << "</td><td>" << e(c.candidate) << "</td><td>" << e(c.title)
       << "<br><code>" << e(c.code) << "</code></td><td>" << e(c.explanation) << "</td><td>"
       << e(std::string(confidence_name(c.confidence))) << "</td><td class=\"n\">" << n(c.before)
       << "</td><td class=\"n\">" << n(c.after) << "</td><td class=\"n\">" << n(c.max_abs_after)
       << "</td><td>"
       << (c.pattern_only ? std::string("no")
           : c.in_kernel  ? std::string("in its kernel")
                          : badge(c.resolves))
       << "</td><td>" << e(c.pattern_only ? "next: " + c.suggestion : c.suggestion)
       << "</td></tr>\n";
  }
  os << "</table>\n";
}

std::string case_label(const Profile& p) {
  return p.backend + " " + shape_str(p.shape) + " " + std::string(dtype_name(p.dtype)) + " " +
         p.format + " " + std::string(mode_name(p.is_training));
}

void profiles(std::ostream& os, const Report& r) {
  if (r.profiles.empty()) return;
  os << "<h2 id=\"profile\">Profile</h2>\n<p class=\"sub\">Bytes follow the minimum-traffic model: "
        "every input "
        "read once, every output written once. Roofline: the copy bandwidth (CPU; when and how it "
        "was measured below the table) or the device's peak (GPU).";
  if (const auto adaptive = std::find_if(r.profiles.begin(), r.profiles.end(),
                                         [](const Profile& p) { return p.time_budget > 0; });
      adaptive != r.profiles.end())
    os << " Repetitions adapt to the problem: one warm-up run (a backend's verdict run counts as "
          "its warm-up), at least 3 timed runs (fewer only if fewer repetitions were asked for), "
          "more "
          "up to the repetitions asked for only while a backend's profile stays within "
       << n(adaptive->time_budget) << " s; reps counts the timed runs made.";
  os << "</p>\n";
  os << "<table>\n<tr><th>case</th><th>op</th><th>reps</th><th>median ms</th><th>min ms</th>"
        "<th>max ms</th><th>MB moved</th><th>GB/s</th><th>roofline GB/s</th><th>of roofline</th>"
        "</tr>\n";
  std::vector<HBar> bars;
  for (const Profile& p : r.profiles) {
    os << "<tr><td>" << e(case_label(p)) << "</td><td>" << e(p.op) << "</td><td class=\"n\">"
       << p.reps << "</td><td class=\"n\">" << ms(p.wall.median) << "</td><td class=\"n\">"
       << ms(p.wall.min) << "</td><td class=\"n\">" << ms(p.wall.max) << "</td><td class=\"n\">"
       << n(static_cast<double>(p.traffic.total()) / 1e6) << "</td><td class=\"n\">"
       << n(p.achieved_gbps) << "</td><td class=\"n\">"
       << (p.roofline_gbps > 0 ? n(p.roofline_gbps) : "-") << "</td><td class=\"n\">"
       << (p.roofline_gbps > 0 ? n(100 * p.roofline_fraction) + " %" : "-") << "</td></tr>\n";
    bars.push_back({case_label(p), p.achieved_gbps, p.roofline_gbps});
  }
  os << "</table>\n";
  std::vector<std::string> sources;  // each roofline's, once
  for (const Profile& p : r.profiles)
    if (!p.roofline_source.empty() &&
        std::find(sources.begin(), sources.end(), p.roofline_source) == sources.end())
      sources.push_back(p.roofline_source);
  for (const std::string& source : sources)
    os << "<p class=\"note\">Roofline: " << e(source) << ".</p>\n";
  for (const Profile& p : r.profiles)
    if (p.roofline_fraction > 1) {
      os << "<p class=\"note\">Above 100 %: the working set fits in a cache, which the "
            "DRAM copy probe does not measure.</p>\n";
      break;
    }
  for (const Profile& p : r.profiles)
    if (const std::string caveat = speed_caveat(p); !caveat.empty())
      os << "<p class=\"note\">" << e(caveat) << ".</p>\n";
  os << "<p class=\"note\">Achieved bandwidth; orange marks: roofline</p>\n";
  svg_hbar_chart(os, bars, "GB/s");
  for (const Profile& p : r.profiles) {
    if (p.phases.size() <= 1) continue;
    os << "<h3>Phases: " << e(case_label(p))
       << "</h3>\n<table>\n<tr><th>phase</th>"
          "<th>median ms</th><th>min ms</th><th>max ms</th></tr>\n";
    for (const PhaseStats& ps : p.phases)
      os << "<tr><td>" << e(ps.phase) << "</td><td class=\"n\">" << ms(ps.stats.median)
         << "</td><td class=\"n\">" << ms(ps.stats.min) << "</td><td class=\"n\">"
         << ms(ps.stats.max) << "</td></tr>\n";
    os << "</table>\n";
  }
}

std::string signed_ms(double s) {
  return (s > 0 ? "+" : "") + ms(s);
}
std::string percent(double v) {
  return std::isfinite(v) ? (v > 0 ? "+" : "") + format_si(v) + " %" : "-";
}
std::string gbps(double v) {
  return std::isfinite(v) ? n(v) : "-";
}

// The pinned baseline's figures beside the profiles', per backend and phase.
void baseline(std::ostream& os, const Report& r) {
  if (!r.baseline) return;
  const ReportBaseline& b = *r.baseline;
  os << "<h2 id=\"baseline\">Against the baseline</h2>\n<p class=\"sub\">Baseline: the profile "
        "run of "
     << e(b.measured_at) << " on <code>" << e(b.problem) << "</code>"
     << (b.same_problem ? "" : " (another problem than this report's)") << ", " << b.reps
     << " reps, " << (b.threads > 0 ? std::to_string(b.threads) : std::string("all"))
     << " threads. &Delta;: this report's median minus the baseline's; negative is faster.</p>\n";
  if (!baseline_comparisons(r).empty())
    os << "<table>\n<tr><th>backend</th><th>phase</th><th>median ms</th><th>baseline ms</th>"
          "<th>&Delta; ms</th><th>&Delta; %</th><th>GB/s</th><th>baseline GB/s</th></tr>\n";
  std::vector<std::string> notes;
  for (const Profile& p : r.profiles) {
    const Profile* base = b.find(p.backend);
    if (!base) {
      notes.push_back(p.backend + ": not in the baseline");
      continue;
    }
    const ProfileComparison c = compare_profiles(p, *base);
    std::vector<const PhaseDelta*> rows;
    for (const PhaseDelta& d : c.phases) rows.push_back(&d);
    rows.push_back(&c.wall);
    for (const PhaseDelta* d : rows)
      os << "<tr><td>" << e(p.backend) << "</td><td>"
         << (d == &c.wall ? std::string("whole run (wall)") : e(d->phase))
         << "</td><td class=\"n\">" << ms(d->seconds) << "</td><td class=\"n\">"
         << ms(d->baseline_seconds) << "</td><td class=\"n\">" << signed_ms(d->delta_seconds)
         << "</td><td class=\"n\">" << percent(d->percent) << "</td><td class=\"n\">"
         << gbps(d->gbps) << "</td><td class=\"n\">" << gbps(d->baseline_gbps) << "</td></tr>\n";
    for (const std::string& ph : c.only_in_profile)
      notes.push_back(p.backend + " " + ph + ": not in the baseline");
    for (const std::string& ph : c.only_in_baseline)
      notes.push_back(p.backend + " " + ph + ": in the baseline only");
  }
  if (!baseline_comparisons(r).empty()) os << "</table>\n";
  for (const Profile& base : b.profiles) {
    const bool profiled = std::any_of(r.profiles.begin(), r.profiles.end(),
                                      [&](const Profile& p) { return p.backend == base.backend; });
    if (!profiled)
      notes.push_back(base.backend + ": in the baseline only (" + ms(base.kernel_seconds) +
                      " ms median)");
  }
  for (const std::string& note : notes) os << "<p class=\"note\">" << e(note) << "</p>\n";
}

}  // namespace

void write_report_html(const Report& r, std::ostream& os) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << e(r.title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<main>\n";
  os << "<h1>" << e(r.title);
  if (r.has_diff) os << " " << badge(r.diff.passed());
  os << "</h1>\n<p class=\"sub\">bnscope " << e(r.version) << " &middot; " << e(r.created)
     << "</p>\n";
  verdict(os, r);
  causes(os, r);
  notes(os, r);
  problem(os, r);
  diff(os, r);
  profiles(os, r);
  baseline(os, r);
  machine(os, r);
  // The full report, machine-readable, for tools that scrape the page.
  std::ostringstream json;
  write_report_json(r, json);
  os << "<script type=\"application/json\" id=\"bnscope-report\">\n"
     << json.str() << "</script>\n</main>\n</body>\n</html>\n";
}

}  // namespace bnscope
