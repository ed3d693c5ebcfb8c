#include <limits>

#include "io/json_writer.h"
#include "report/writers.h"

namespace bnscope {

namespace {

// An array member: `each(w, item)` writes one element.
template <class Items, class Each>
void list(JsonWriter& w, std::string_view key, const Items& items, Each each) {
  w.key(key).begin_array();
  for (const auto& item : items) each(w, item);
  w.end_array();
}

// An array member of plain values.
template <class Items>
void list(JsonWriter& w, std::string_view key, const Items& items) {
  list(w, key, items, [](JsonWriter& jw, const auto& v) { jw.value(v); });
}

void stats(JsonWriter& w, std::string_view key, const TimingStats& s) {
  w.key(key).begin_object().field("count", s.count).field("min", s.min);
  w.field("median", s.median).field("max", s.max).field("mean", s.mean).end_object();
}

void ulp(JsonWriter& w, std::string_view key, std::uint64_t u) {
  w.key(key);
  if (u == std::numeric_limits<std::uint64_t>::max())
    w.null();  // NaN on one side: no distance
  else
    w.value(u);
}

void channel_error(JsonWriter& w, const ChannelError& c) {
  w.begin_object().field("channel", c.channel).field("count", c.count);
  w.field("mismatches", c.mismatches).field("max_abs", c.max_abs);
  w.field("mean_abs", c.mean_abs).field("max_rel", c.max_rel).end_object();
}

void element_error(JsonWriter& w, const ElementError& e) {
  w.begin_object().field("index", e.index);
  list(w, "coords", e.coords);
  w.field("channel", e.channel).field("reference", e.reference).field("candidate", e.candidate);
  w.field("abs_error", e.abs_error).field("rel_error", e.rel_error);
  ulp(w, "ulp", e.ulp);
  w.field("mismatch", e.mismatch).end_object();
}

void output_diff(JsonWriter& w, const OutputDiff& o) {
  w.begin_object().field("name", o.name).field("dtype", dtype_name(o.dtype));
  list(w, "shape", o.shape);
  w.field("compared", o.compared).field("note", o.note).field("passed", o.passed);
  w.field("atol", o.tolerance.atol).field("rtol", o.tolerance.rtol);
  w.field("count", o.count).field("mismatches", o.mismatches);
  w.field("nan_mismatches", o.nan_mismatches).field("nan_both", o.nan_both);
  w.field("max_abs", o.max_abs).field("max_abs_index", o.max_abs_index);
  w.field("mean_abs", o.mean_abs).field("max_rel", o.max_rel);
  ulp(w, "max_ulp", o.max_ulp);
  w.field("required_atol", o.required_atol).field("tolerance_ratio", o.tolerance_ratio);
  w.key("histogram").begin_object().key("labels").begin_array();
  for (int b = 0; b < histogram_bin_count(); ++b) w.value(histogram_bin_label(b));
  w.end_array();
  list(w, "counts", o.histogram);
  w.end_object();
  list(w, "channels", o.channels, channel_error);
  list(w, "worst", o.worst, element_error);
  w.key("max_ulp_element");  // null when the worst list holds it
  if (o.max_ulp_element)
    element_error(w, *o.max_ulp_element);
  else
    w.null();
  w.end_object();
}

void comparison(JsonWriter& w, const Comparison& c) {
  w.begin_object().field("reference", c.reference).field("candidate", c.candidate);
  w.field("passed", c.passed);
  list(w, "notes", c.notes);
  list(w, "outputs", c.outputs, output_diff);
  w.end_object();
}

void phase(JsonWriter& w, const PhaseStats& ps) {
  w.begin_object().field("phase", ps.phase);
  stats(w, "stats", ps.stats);
  list(w, "samples", ps.samples);
  w.end_object();
}

void profile(JsonWriter& w, const Profile& p) {
  w.begin_object().field("op", p.op).field("backend", p.backend);
  w.field("dtype", dtype_name(p.dtype));
  list(w, "shape", p.shape);
  w.field("data_format", p.format).field("is_training", p.is_training);
  w.field("mode", mode_name(p.is_training));
  w.field("warmup", p.warmup);
  w.field("reps", p.reps).field("threads", p.threads);
  w.field("time_budget_seconds", p.time_budget);  // 0: fixed warmup and reps
  stats(w, "wall", p.wall);
  list(w, "phases", p.phases, phase);
  w.field("kernel_seconds", p.kernel_seconds);
  w.key("bytes").begin_object().field("data", p.traffic.data_bytes);
  w.field("channel", p.traffic.channel_bytes).field("total", p.traffic.total());
  w.field("data_passes", p.traffic.data_passes).end_object();
  w.field("achieved_gbps", p.achieved_gbps);
  w.field("roofline_gbps", p.roofline_gbps).field("roofline_source", p.roofline_source);
  w.field("roofline_fraction", p.roofline_fraction);
  w.field("copy_after_gbps", p.copy_after_gbps);
  w.field("measures_speed", p.measures_speed).end_object();
}

void phase_delta(JsonWriter& w, const PhaseDelta& d) {
  w.begin_object().field("phase", d.phase).field("seconds", d.seconds);
  w.field("baseline_seconds", d.baseline_seconds).field("delta_seconds", d.delta_seconds);
  w.field("percent", d.percent).field("gbps", d.gbps).field("baseline_gbps", d.baseline_gbps);
  w.field("delta_gbps", d.delta_gbps).end_object();
}

void profile_comparison(JsonWriter& w, const ProfileComparison& c) {
  w.begin_object().field("backend", c.backend);
  list(w, "phases", c.phases, phase_delta);
  w.key("wall");
  phase_delta(w, c.wall);
  list(w, "only_in_profile", c.only_in_profile);
  list(w, "only_in_baseline", c.only_in_baseline);
  w.end_object();
}

void baseline(JsonWriter& w, const Report& r) {
  w.key("baseline");
  if (!r.baseline) {
    w.null();
    return;
  }
  const ReportBaseline& b = *r.baseline;
  w.begin_object().field("problem", b.problem).field("same_problem", b.same_problem);
  w.field("measured_at", b.measured_at).field("reps", b.reps).field("threads", b.threads);
  list(w, "profiles", b.profiles, profile);
  list(w, "comparisons", baseline_comparisons(r), profile_comparison);
  w.end_object();
}

void machine(JsonWriter& w, const MachineInfo& m) {
  w.key("machine").begin_object().field("cpu_model", m.cpu_model);
  w.field("logical_cores", m.logical_cores).field("memory_bytes", m.memory_bytes);
  w.field("os", m.os).field("kernel", m.kernel).field("hostname", m.hostname);
  w.field("cpu_code_path", m.cpu_code_path);
  list(w, "devices", m.devices);
  w.end_object();
}

void input(JsonWriter& w, const InputInfo& in) {
  w.begin_object().field("name", in.name).field("dtype", dtype_name(in.dtype));
  list(w, "shape", in.shape);
  w.field("crc32", in.crc32).end_object();
}

void problem(JsonWriter& w, const ProblemInfo& p) {
  w.begin_object();
  if (!p.source.empty()) w.field("source", p.source);
  w.field("op", p.op).field("dtype", p.dtype).field("convention", p.convention);
  if (!p.mode.empty()) w.field("mode", p.mode);
  w.key("attrs").begin_object();
  for (const auto& [k, v] : p.attrs) w.field(k, v);
  w.end_object();
  list(w, "inputs", p.inputs, input);
  w.end_object();
}

void note(JsonWriter& w, const Note& n) {
  w.begin_object().field("kind", note_kind_name(n.kind)).field("code", n.code);
  w.field("message", n.message).field("subject", n.subject).field("channel", n.channel);
  w.end_object();
}

void cause(JsonWriter& w, const Cause& c) {
  w.begin_object().field("code", c.code).field("title", c.title);
  w.field("explanation", c.explanation).field("before", c.before).field("after", c.after);
  w.field("max_abs_before", c.max_abs_before).field("max_abs_after", c.max_abs_after);
  w.field("resolves", c.resolves);
  if (!c.candidate.empty()) w.field("candidate", c.candidate);
  w.field("confidence", std::string(confidence_name(c.confidence)));
  if (!c.fitted_name.empty()) w.field("fitted_name", c.fitted_name).field("fitted", c.fitted);
  w.field("suggestion", c.suggestion).field("fixable", !c.fix.empty());
  w.field("partial_fix", c.partial_fix);
  w.field("in_kernel", c.in_kernel).field("benign", c.benign).field("pattern_only", c.pattern_only);
  w.key("channels").begin_array();
  for (std::int64_t ch : c.channels) w.value(ch);
  w.end_array();
  w.key("ruled_out").begin_array();
  for (const RuledOut& r : c.ruled_out)
    w.begin_object().field("code", r.code).field("best_ratio", r.best_ratio).end_object();
  w.end_array();
  w.end_object();
}

}  // namespace

void write_report_json(const Report& r, std::ostream& os) {
  JsonWriter w(os);
  w.begin_object().field("schema", kReportSchema).field("title", r.title);
  w.field("created", r.created);
  w.key("tool").begin_object().field("name", "bnscope").field("version", r.version).end_object();
  machine(w, r.machine);
  w.key("problem");
  if (r.has_problem)
    problem(w, r.problem);
  else
    w.null();
  list(w, "notes", r.notes, note);
  w.key("diff");
  if (r.has_diff) {
    w.begin_object().field("passed", r.diff.passed());
    list(w, "comparisons", r.diff.comparisons, comparison);
    w.end_object();
  } else {
    w.null();
  }
  list(w, "causes", r.causes, cause);
  list(w, "profiles", r.profiles, profile);
  baseline(w, r);
  w.end_object();
}

}  // namespace bnscope
