#include <limits>

#include "report/json_writer.h"
#include "report/writers.h"

namespace bnscope {

namespace {

void shape(JsonWriter& w, const Shape& s) {
  w.begin_array();
  for (std::int64_t d : s) w.value(d);
  w.end_array();
}

void stats(JsonWriter& w, const TimingStats& s) {
  w.begin_object()
      .field("count", s.count)
      .field("min", s.min)
      .field("median", s.median)
      .field("max", s.max)
      .field("mean", s.mean)
      .end_object();
}

void ulp(JsonWriter& w, std::uint64_t u) {
  if (u == std::numeric_limits<std::uint64_t>::max())
    w.null();  // NaN on one side: no distance
  else
    w.value(u);
}

void output_diff(JsonWriter& w, const OutputDiff& o) {
  w.begin_object().field("name", o.name).field("dtype", dtype_name(o.dtype));
  w.key("shape");
  shape(w, o.shape);
  w.field("compared", o.compared).field("note", o.note).field("passed", o.passed);
  w.field("atol", o.tolerance.atol).field("rtol", o.tolerance.rtol);
  w.field("count", o.count).field("mismatches", o.mismatches);
  w.field("nan_mismatches", o.nan_mismatches).field("nan_both", o.nan_both);
  w.field("max_abs", o.max_abs).field("max_abs_index", o.max_abs_index);
  w.field("mean_abs", o.mean_abs).field("max_rel", o.max_rel);
  w.key("max_ulp");
  ulp(w, o.max_ulp);
  w.field("required_atol", o.required_atol).field("tolerance_ratio", o.tolerance_ratio);
  w.key("histogram").begin_object().key("labels").begin_array();
  for (int b = 0; b < histogram_bin_count(); ++b) w.value(histogram_bin_label(b));
  w.end_array().key("counts").begin_array();
  for (std::int64_t c : o.histogram) w.value(c);
  w.end_array().end_object();
  w.key("channels").begin_array();
  for (const ChannelError& c : o.channels)
    w.begin_object()
        .field("channel", c.channel)
        .field("count", c.count)
        .field("mismatches", c.mismatches)
        .field("max_abs", c.max_abs)
        .field("mean_abs", c.mean_abs)
        .field("max_rel", c.max_rel)
        .end_object();
  w.end_array().key("worst").begin_array();
  for (const ElementError& e : o.worst) {
    w.begin_object().field("index", e.index).key("coords");
    shape(w, e.coords);
    w.field("channel", e.channel)
        .field("reference", e.reference)
        .field("candidate", e.candidate)
        .field("abs_error", e.abs_error)
        .field("rel_error", e.rel_error)
        .key("ulp");
    ulp(w, e.ulp);
    w.field("mismatch", e.mismatch).end_object();
  }
  w.end_array().end_object();
}

void profile(JsonWriter& w, const Profile& p) {
  w.begin_object()
      .field("op", p.op)
      .field("backend", p.backend)
      .field("dtype", dtype_name(p.dtype));
  w.key("shape");
  shape(w, p.shape);
  w.field("data_format", p.format).field("is_training", p.is_training);
  w.field("warmup", p.warmup).field("reps", p.reps).field("threads", p.threads);
  w.key("wall");
  stats(w, p.wall);
  w.key("phases").begin_array();
  for (const PhaseStats& ps : p.phases) {
    w.begin_object().field("phase", ps.phase).key("stats");
    stats(w, ps.stats);
    w.key("samples").begin_array();
    for (double s : ps.samples) w.value(s);
    w.end_array().end_object();
  }
  w.end_array();
  w.field("kernel_seconds", p.kernel_seconds);
  w.key("bytes")
      .begin_object()
      .field("data", p.traffic.data_bytes)
      .field("channel", p.traffic.channel_bytes)
      .field("total", p.traffic.total())
      .field("data_passes", p.traffic.data_passes)
      .end_object();
  w.field("achieved_gbps", p.achieved_gbps);
  w.field("roofline_gbps", p.roofline_gbps).field("roofline_source", p.roofline_source);
  w.field("roofline_fraction", p.roofline_fraction).end_object();
}

}  // namespace

void write_report_json(const Report& r, std::ostream& os) {
  JsonWriter w(os);
  w.begin_object().field("schema", kReportSchema).field("title", r.title);
  w.field("created", r.created);
  w.key("tool").begin_object().field("name", "bnscope").field("version", r.version).end_object();
  const MachineInfo& m = r.machine;
  w.key("machine").begin_object().field("cpu_model", m.cpu_model);
  w.field("logical_cores", m.logical_cores).field("memory_bytes", m.memory_bytes);
  w.field("os", m.os).field("kernel", m.kernel).field("hostname", m.hostname);
  w.key("devices").begin_array();
  for (const std::string& d : m.devices) w.value(d);
  w.end_array().end_object();

  w.key("problem");
  if (!r.has_problem) {
    w.null();
  } else {
    const ProblemInfo& p = r.problem;
    w.begin_object().field("op", p.op).field("dtype", p.dtype).field("convention", p.convention);
    w.key("attrs").begin_object();
    for (const auto& [k, v] : p.attrs) w.field(k, v);
    w.end_object().key("inputs").begin_array();
    for (const InputInfo& in : p.inputs) {
      w.begin_object().field("name", in.name).field("dtype", dtype_name(in.dtype)).key("shape");
      shape(w, in.shape);
      w.field("fnv1a64", in.fnv1a64).end_object();
    }
    w.end_array().end_object();
  }

  w.key("notes").begin_array();
  for (const Note& n : r.notes)
    w.begin_object()
        .field("kind", note_kind_name(n.kind))
        .field("code", n.code)
        .field("message", n.message)
        .field("subject", n.subject)
        .field("channel", n.channel)
        .end_object();
  w.end_array();

  w.key("diff");
  if (!r.has_diff) {
    w.null();
  } else {
    w.begin_object().field("passed", r.diff.passed()).key("comparisons").begin_array();
    for (const Comparison& c : r.diff.comparisons) {
      w.begin_object().field("reference", c.reference).field("candidate", c.candidate);
      w.field("passed", c.passed).key("notes").begin_array();
      for (const std::string& n : c.notes) w.value(n);
      w.end_array().key("outputs").begin_array();
      for (const OutputDiff& o : c.outputs) output_diff(w, o);
      w.end_array().end_object();
    }
    w.end_array().end_object();
  }

  w.key("causes").begin_array();
  for (const Cause& c : r.causes)
    w.begin_object()
        .field("code", c.code)
        .field("title", c.title)
        .field("explanation", c.explanation)
        .field("before", c.before)
        .field("after", c.after)
        .field("max_abs_before", c.max_abs_before)
        .field("max_abs_after", c.max_abs_after)
        .field("resolves", c.resolves)
        .end_object();
  w.end_array();

  w.key("profiles").begin_array();
  for (const Profile& p : r.profiles) profile(w, p);
  w.end_array().end_object();
}

}  // namespace bnscope
