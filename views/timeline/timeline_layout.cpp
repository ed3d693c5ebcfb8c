#include "timeline_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "profile/traffic.h"

namespace bnscope {

void TimelineLayout::setEvents(const EventStore& store, std::vector<PhaseInfo> phases,
                               std::vector<PhaseBytes> bytes) {
  store_ = store;
  phases_ = std::move(phases);
  bytes_.clear();
  for (PhaseBytes& b : bytes) bytes_[{std::move(b.backend), std::move(b.phase)}] = b.bytes;
  reps_.clear();
  for (const TraceEvent& e : store_.events())
    reps_[e.backend] = std::max(reps_[e.backend], e.rep + 1);
  lanes_.clear();
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index;
  // Lanes in order of first appearance: the profiler appends backends one after another.
  for (const TraceEvent& e : store_.events()) {
    auto [it, added] = index.try_emplace({e.backend, e.track}, lanes_.size());
    if (added) {
      TimelineLane lane;
      lane.backend = e.backend;
      lane.track = e.track;
      lane.label = store_.name(e.backend) + " " + track_label(e.track);
      lanes_.push_back(std::move(lane));
    }
    TimelineLane& lane = lanes_[it->second];
    lane.events.push_back(e);
    lane.max_duration = std::max(lane.max_duration, e.duration);
  }
  begin_ = end_ = 0;
  bool any = false;
  for (TimelineLane& lane : lanes_) {
    std::stable_sort(lane.events.begin(), lane.events.end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.start < b.start; });
    for (const TraceEvent& e : lane.events) {
      begin_ = any ? std::min(begin_, e.start) : e.start;
      end_ = any ? std::max(end_, e.start + e.duration) : e.start + e.duration;
      any = true;
    }
  }
  fit();
}

std::int64_t TimelineLayout::bytes(const TraceEvent& e) const {
  const auto it = bytes_.find({store_.name(e.backend), store_.name(e.name)});
  return it == bytes_.end() ? -1 : it->second;
}

std::uint32_t TimelineLayout::reps(const TraceEvent& e) const {
  const auto it = reps_.find(e.backend);
  return it == reps_.end() ? 0 : it->second;
}

std::vector<std::string> TimelineLayout::describe(const TraceEvent& e, std::size_t lane) const {
  std::vector<std::string> out;
  const std::string& name = store_.name(e.name);
  out.push_back(name);
  if (const PhaseInfo* info = phase(name); info && !info->description.empty())
    out.push_back(info->description);
  if (lane < lanes_.size()) out.push_back(lanes_[lane].label);
  char line[128];
  std::snprintf(line, sizeof line, "repetition %u of %u", e.rep + 1, std::max(reps(e), e.rep + 1));
  out.emplace_back(line);
  out.push_back("start     " + time_text(e.start - begin_));
  out.push_back("duration  " + time_text(e.duration));
  if (const std::int64_t b = bytes(e); b > 0 && e.duration > 0) {
    std::snprintf(line, sizeof line, " at %.1f GB/s", static_cast<double>(b) / e.duration / 1e9);
    out.push_back("moved     " + bytes_text(static_cast<double>(b)) + line);
  }
  return out;
}

void TimelineLayout::fit() {
  const double span = end_ - begin_;
  const double margin = span > 0 ? span * 0.02 : 1e-6;
  setView(begin_ - margin, end_ + margin);
}

void TimelineLayout::setView(double start, double end) {
  // Below a nanosecond there is nothing to see; keep the range valid whatever the input.
  if (!(end - start > 1e-9) || !std::isfinite(start) || !std::isfinite(end)) {
    const double mid = std::isfinite(start + end) ? (start + end) / 2 : 0;
    start = mid - 5e-10;
    end = mid + 5e-10;
  }
  view_start_ = start;
  view_end_ = end;
}

void TimelineLayout::zoomAround(double anchor, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) return;
  setView(anchor - (anchor - view_start_) / factor, anchor + (view_end_ - anchor) / factor);
}

void TimelineLayout::panBy(double seconds) {
  setView(view_start_ + seconds, view_end_ + seconds);
}

std::pair<std::size_t, std::size_t> TimelineLayout::visible(std::size_t lane, double t0,
                                                            double t1) const {
  if (lane >= lanes_.size()) return {0, 0};
  const TimelineLane& l = lanes_[lane];
  auto by_start = [](const TraceEvent& e, double t) { return e.start < t; };
  // An event overlapping t0 started at most max_duration before it.
  std::size_t first = static_cast<std::size_t>(
      std::lower_bound(l.events.begin(), l.events.end(), t0 - l.max_duration, by_start) -
      l.events.begin());
  while (first < l.events.size() && l.events[first].start + l.events[first].duration < t0) ++first;
  const auto last =
      std::upper_bound(l.events.begin() + static_cast<std::ptrdiff_t>(first), l.events.end(), t1,
                       [](double t, const TraceEvent& e) { return t < e.start; });
  return {first, static_cast<std::size_t>(last - l.events.begin())};
}

const TraceEvent* TimelineLayout::eventAt(std::size_t lane, double t, double slack) const {
  const auto [first, last] = visible(lane, t - slack, t + slack);
  const TraceEvent* best = nullptr;
  double best_distance = 0;
  for (std::size_t i = first; i < last; ++i) {
    const TraceEvent& e = lanes_[lane].events[i];
    const double d = t < e.start                ? e.start - t
                     : t > e.start + e.duration ? t - e.start - e.duration
                                                : 0;
    if (d <= slack && (!best || d < best_distance)) {
      best = &e;
      best_distance = d;
    }
  }
  return best;
}

std::vector<double> ruler_ticks(double t0, double t1, int max_ticks, double* step) {
  std::vector<double> ticks;
  *step = 0;
  if (!(t1 > t0) || max_ticks < 1) return ticks;
  const double raw = (t1 - t0) / max_ticks;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double s = decade;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    s = m * decade;
    if (s >= raw) break;
  }
  *step = s;
  for (double t = std::ceil(t0 / s) * s; t <= t1; t += s)
    ticks.push_back(std::fabs(t) < s * 1e-9 ? 0.0 : t);
  return ticks;
}

std::string time_text(double seconds, double step) {
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  const double magnitude = std::max(std::fabs(seconds), step);
  Unit u = units[3];
  for (const Unit& candidate : units)
    if (magnitude >= candidate.scale) {
      u = candidate;
      break;
    }
  // Enough decimals that neighbouring ticks print differently.
  int decimals = 2;
  if (step > 0)
    decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step / u.scale))), 0, 6);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, seconds / u.scale, u.name);
  return buf;
}

std::string phase_family(const std::string& name) {
  const auto colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(0, colon);
}

namespace {

// ImGui packs colours as 0xAABBGGRR.
std::uint32_t rgb(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
  return 0xFF000000u | (b << 16) | (g << 8) | r;
}

}  // namespace

std::uint32_t event_colour(const std::string& name, int shade) {
  if (shade == 1) return rgb(55, 140, 160);
  if (shade >= 2) return rgb(150, 160, 60);
  return phase_colour(phase_family(name));  // the reducing passes take the pass colour
}

std::uint32_t TimelineLayout::colour(const std::string& name) const {
  const PhaseInfo* info = phase(name);
  return event_colour(name, info ? info->shade : 0);
}

std::uint32_t phase_colour(const std::string& family) {
  if (family == "kernel") return rgb(70, 130, 200);
  if (family == "pass") return rgb(95, 170, 110);
  if (family == "upload") return rgb(225, 150, 60);
  if (family == "download") return rgb(200, 95, 160);
  if (family == "run") return rgb(150, 150, 160);
  std::uint32_t h = 2166136261u;  // FNV-1a: any other phase keeps one colour across runs
  for (unsigned char c : family) h = (h ^ c) * 16777619u;
  return rgb(80 + (h & 0x7F), 80 + ((h >> 8) & 0x7F), 80 + ((h >> 16) & 0x7F));
}

}  // namespace bnscope
