#include "profile/profile_history_file.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "io/json_value.h"
#include "tensor/dtype.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr std::string_view kSchema = "bnscope-profile-history/1";

// --- writing --------------------------------------------------------------------------------

JsonValue number(double v) {
  return JsonValue::of(v);
}

JsonValue numbers(const std::vector<double>& values) {
  JsonValue a;
  a.kind = JsonValue::Kind::Array;
  for (double v : values) a.items.push_back(number(v));
  return a;
}

JsonValue array() {
  JsonValue a;
  a.kind = JsonValue::Kind::Array;
  return a;
}

JsonValue stats_json(const TimingStats& s) {
  JsonValue o = JsonValue::object();
  o.add("count", number(s.count));
  o.add("min", number(s.min));
  o.add("median", number(s.median));
  o.add("max", number(s.max));
  o.add("mean", number(s.mean));
  return o;
}

JsonValue profile_json(const Profile& p) {
  JsonValue o = JsonValue::object();
  o.add("op", JsonValue::of(p.op));
  o.add("backend", JsonValue::of(p.backend));
  o.add("measures_speed", JsonValue::of(p.measures_speed));
  o.add("dtype", JsonValue::of(std::string(dtype_name(p.dtype))));
  JsonValue shape = array();
  for (std::int64_t d : p.shape) shape.items.push_back(number(static_cast<double>(d)));
  o.add("shape", std::move(shape));
  o.add("data_format", JsonValue::of(p.format));
  o.add("is_training", JsonValue::of(p.is_training));
  o.add("warmup", number(p.warmup));
  o.add("reps", number(p.reps));
  o.add("threads", number(p.threads));
  o.add("time_budget", number(p.time_budget));
  o.add("host_run", JsonValue::of(p.host_run));
  JsonValue phases = array();
  for (const PhaseStats& ps : p.phases) {
    JsonValue ph = JsonValue::object();
    ph.add("phase", JsonValue::of(ps.phase));
    ph.add("samples", numbers(ps.samples));
    ph.add("stats", stats_json(ps.stats));
    phases.items.push_back(std::move(ph));
  }
  o.add("phases", std::move(phases));
  JsonValue plan = array();
  for (const PhaseInfo& info : p.phase_plan) {
    JsonValue ph = JsonValue::object();
    ph.add("name", JsonValue::of(info.name));
    ph.add("description", JsonValue::of(info.description));
    ph.add("x_tensors", number(info.x_tensors));
    ph.add("shade", number(info.shade));
    plan.items.push_back(std::move(ph));
  }
  o.add("phase_plan", std::move(plan));
  o.add("code_path", JsonValue::of(p.code_path));
  o.add("wall", stats_json(p.wall));
  o.add("kernel_seconds", number(p.kernel_seconds));
  JsonValue traffic = JsonValue::object();
  traffic.add("data_bytes", number(static_cast<double>(p.traffic.data_bytes)));
  traffic.add("channel_bytes", number(static_cast<double>(p.traffic.channel_bytes)));
  traffic.add("data_passes", number(p.traffic.data_passes));
  o.add("traffic", std::move(traffic));
  o.add("achieved_gbps", number(p.achieved_gbps));
  o.add("roofline_gbps", number(p.roofline_gbps));
  o.add("roofline_source", JsonValue::of(p.roofline_source));
  o.add("roofline_fraction", number(p.roofline_fraction));
  o.add("copy_after_gbps", number(p.copy_after_gbps));
  return o;
}

// --- reading --------------------------------------------------------------------------------

// A value and where it sits in the text ("runs[2].profiles[0]"), for the error that names it.
struct At {
  const JsonValue& v;
  std::string path;
  std::string_view what;

  [[noreturn]] void bad(const std::string& where, const char* expected) const {
    fail(std::string(what) + ": " + where + ": expected " + expected);
  }
  At member(std::string_view key, JsonValue::Kind kind, const char* expected) const {
    const std::string where = path.empty() ? std::string(key) : path + "." + std::string(key);
    const JsonValue* m = v.find(key);
    if (!m || m->kind != kind) bad(where, expected);
    return {*m, where, what};
  }
  double num(std::string_view key) const {
    return member(key, JsonValue::Kind::Number, "a number").v.number;
  }
  // A whole number in [lo, hi].
  std::int64_t whole(std::string_view key, double lo, double hi) const {
    const At m = member(key, JsonValue::Kind::Number, "a whole number");
    const double d = m.v.number;
    if (!(d >= lo && d <= hi) || std::floor(d) != d) m.bad(m.path, "a whole number in range");
    return static_cast<std::int64_t>(d);
  }
  std::string text(std::string_view key) const {
    return member(key, JsonValue::Kind::String, "a string").v.string;
  }
  bool flag(std::string_view key) const {
    return member(key, JsonValue::Kind::Bool, "true or false").v.boolean;
  }
  At object(std::string_view key) const {
    return member(key, JsonValue::Kind::Object, "an object");
  }
  At list(std::string_view key) const { return member(key, JsonValue::Kind::Array, "an array"); }
  At item(std::size_t i, JsonValue::Kind kind, const char* expected) const {
    const std::string where = path + "[" + std::to_string(i) + "]";
    if (v.items[i].kind != kind) bad(where, expected);
    return {v.items[i], where, what};
  }
};

constexpr double kMaxCount = 1e9;
constexpr double kMaxBytes = 9007199254740992.0;  // 2^53: exact in a double

TimingStats stats_from(const At& o) {
  TimingStats s;
  s.count = static_cast<int>(o.whole("count", 0, kMaxCount));
  s.min = o.num("min");
  s.median = o.num("median");
  s.max = o.num("max");
  s.mean = o.num("mean");
  return s;
}

Profile profile_from(const At& o) {
  Profile p;
  p.op = o.text("op");
  p.backend = o.text("backend");
  p.measures_speed = o.flag("measures_speed");
  const std::string dtype = o.text("dtype");
  const std::optional<DType> t = parse_dtype(dtype);
  if (!t) o.bad(o.path + ".dtype", "float16, bfloat16, float32 or float64");
  p.dtype = *t;
  const At shape = o.list("shape");
  for (std::size_t i = 0; i < shape.v.items.size(); ++i) {
    const At d = shape.item(i, JsonValue::Kind::Number, "a dimension");
    if (!(d.v.number >= 0 && d.v.number <= kMaxBytes) || std::floor(d.v.number) != d.v.number)
      d.bad(d.path, "a dimension");
    p.shape.push_back(static_cast<std::int64_t>(d.v.number));
  }
  p.format = o.text("data_format");
  p.is_training = o.flag("is_training");
  p.warmup = static_cast<int>(o.whole("warmup", 0, kMaxCount));
  p.reps = static_cast<int>(o.whole("reps", 0, kMaxCount));
  p.threads = static_cast<int>(o.whole("threads", 0, kMaxCount));
  p.time_budget = o.num("time_budget");
  p.host_run = o.flag("host_run");
  const At phases = o.list("phases");
  for (std::size_t i = 0; i < phases.v.items.size(); ++i) {
    const At ph = phases.item(i, JsonValue::Kind::Object, "an object");
    PhaseStats ps;
    ps.phase = ph.text("phase");
    const At samples = ph.list("samples");
    for (std::size_t k = 0; k < samples.v.items.size(); ++k)
      ps.samples.push_back(samples.item(k, JsonValue::Kind::Number, "a number").v.number);
    ps.stats = stats_from(ph.object("stats"));
    p.phases.push_back(std::move(ps));
  }
  const At plan = o.list("phase_plan");
  for (std::size_t i = 0; i < plan.v.items.size(); ++i) {
    const At ph = plan.item(i, JsonValue::Kind::Object, "an object");
    PhaseInfo info;
    info.name = ph.text("name");
    info.description = ph.text("description");
    info.x_tensors = static_cast<int>(ph.whole("x_tensors", 0, kMaxCount));
    info.shade = static_cast<int>(ph.whole("shade", 0, kMaxCount));
    p.phase_plan.push_back(std::move(info));
  }
  p.code_path = o.text("code_path");
  p.wall = stats_from(o.object("wall"));
  p.kernel_seconds = o.num("kernel_seconds");
  const At traffic = o.object("traffic");
  p.traffic.data_bytes = traffic.whole("data_bytes", 0, kMaxBytes);
  p.traffic.channel_bytes = traffic.whole("channel_bytes", 0, kMaxBytes);
  p.traffic.data_passes = static_cast<int>(traffic.whole("data_passes", 0, kMaxCount));
  p.achieved_gbps = o.num("achieved_gbps");
  p.roofline_gbps = o.num("roofline_gbps");
  p.roofline_source = o.text("roofline_source");
  p.roofline_fraction = o.num("roofline_fraction");
  p.copy_after_gbps = o.num("copy_after_gbps");
  return p;
}

}  // namespace

std::string profile_history_json(const ProfileHistory& history) {
  JsonValue root = JsonValue::object();
  root.add("schema", JsonValue::of(std::string(kSchema)));
  JsonValue runs = array();
  std::optional<std::size_t> baseline;
  for (const ProfileRun& r : history.runs()) {
    if (history.baseline() == &r) baseline = runs.items.size();
    JsonValue o = JsonValue::object();
    o.add("problem", JsonValue::of(r.problem));
    o.add("reps", number(r.reps));
    o.add("threads", number(r.threads));
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(r.when.time_since_epoch()).count();
    o.add("when_ms", number(static_cast<double>(ms)));
    JsonValue profiles = array();
    for (const Profile& p : r.profiles) profiles.items.push_back(profile_json(p));
    o.add("profiles", std::move(profiles));
    runs.items.push_back(std::move(o));
  }
  root.add("runs", std::move(runs));
  // The baseline as an index into runs: ids are the session's own and begin again at 1.
  root.add("baseline", baseline ? number(static_cast<double>(*baseline)) : JsonValue{});
  return dump_json(root, kPythonJson);
}

ProfileHistory parse_profile_history(std::string_view text, std::string_view what,
                                     std::size_t capacity) {
  const JsonValue root = parse_json(text, what);
  if (root.kind != JsonValue::Kind::Object) fail(std::string(what) + ": expected a JSON object");
  const At top{root, "", what};
  if (const std::string schema = top.text("schema"); schema != kSchema)
    fail(std::string(what) + ": schema \"" + schema + "\", expected \"" + std::string(kSchema) +
         "\"");
  const At runs = top.list("runs");
  std::optional<std::size_t> baseline;
  if (const JsonValue* b = root.find("baseline"); b && b->kind != JsonValue::Kind::Null) {
    const double n = top.whole("baseline", 0, kMaxCount);
    if (n >= static_cast<double>(runs.v.items.size()))
      fail(std::string(what) + ": baseline: expected the index of one of its " +
           std::to_string(runs.v.items.size()) + " runs");
    baseline = static_cast<std::size_t>(n);
  }
  ProfileHistory history(capacity);
  // Past the capacity, the oldest runs go, as add() would have let them; never the baseline.
  std::vector<ProfileRun> read;
  for (std::size_t i = 0; i < runs.v.items.size(); ++i) {
    const At o = runs.item(i, JsonValue::Kind::Object, "an object");
    ProfileRun r;
    r.problem = o.text("problem");
    r.reps = static_cast<int>(o.whole("reps", 0, kMaxCount));
    r.threads = static_cast<int>(o.whole("threads", 0, kMaxCount));
    r.when = std::chrono::system_clock::time_point(
        std::chrono::milliseconds(o.whole("when_ms", -kMaxBytes, kMaxBytes)));
    r.earlier_session = true;
    const At profiles = o.list("profiles");
    for (std::size_t k = 0; k < profiles.v.items.size(); ++k)
      r.profiles.push_back(profile_from(profiles.item(k, JsonValue::Kind::Object, "an object")));
    read.push_back(std::move(r));
  }
  for (std::size_t i = 0; i < read.size(); ++i) {
    const std::uint64_t id = history.add(std::move(read[i]));
    if (baseline && *baseline == i) history.pin(id);
  }
  return history;
}

}  // namespace bnscope
