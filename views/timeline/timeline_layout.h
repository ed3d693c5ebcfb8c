#pragma once
// What the timeline draws, without any drawing: events grouped into lanes (one per backend and
// track), sorted by start so the visible ones are found by binary search, the visible time range
// with zoom and pan, hit testing and the ruler's ticks. Kept apart from the widget so it is
// tested without a GL context.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "profile/event_store.h"
#include "profile/profile_batch.h"

namespace bnscope {

struct TimelineLane {
  std::string label;  // "<backend> " + track_label(track): "cpu host", "cpu passes", ...
  std::uint32_t backend = 0;
  std::uint32_t track = 0;
  std::vector<TraceEvent> events;  // sorted by start
  double max_duration = 0;         // how far back an event can start and still reach a time
};

class TimelineLayout {
 public:
  // phases: what the backends that made the events say of their phases (Profile::phase_plan),
  // for the boxes' shades and the tooltips; bytes: what each phase's event moves
  // (combined_phase_bytes), for its GB/s.
  void setEvents(const EventStore& store, std::vector<PhaseInfo> phases = {},
                 std::vector<PhaseBytes> bytes = {});
  const EventStore& store() const { return store_; }
  // What the backend says of the phase of that name; nullptr when it says nothing.
  const PhaseInfo* phase(const std::string& name) const { return find_phase(phases_, name); }
  // RGBA colour of an event of that name: event_colour with the phase's shade.
  std::uint32_t colour(const std::string& name) const;
  const std::vector<TimelineLane>& lanes() const { return lanes_; }
  std::size_t eventCount() const { return store_.events().size(); }
  // What the event moves under the minimum-traffic model; < 0 where that is not known.
  std::int64_t bytes(const TraceEvent& e) const;
  // The timed repetitions of the event's backend (its events' largest rep + 1).
  std::uint32_t reps(const TraceEvent& e) const;
  // The tooltip's lines for an event: phase, its description, lane, repetition, start,
  // duration and, where its bytes are known, what it moved and at what bandwidth.
  std::vector<std::string> describe(const TraceEvent& e, std::size_t lane) const;

  double begin() const { return begin_; }  // extent of all events
  double end() const { return end_; }
  double viewStart() const { return view_start_; }
  double viewEnd() const { return view_end_; }
  double viewSpan() const { return view_end_ - view_start_; }
  void fit();  // the whole extent with a small margin
  void setView(double start, double end);
  // factor > 1 zooms in; the time at anchor stays where it is on screen.
  void zoomAround(double anchor, double factor);
  void panBy(double seconds);

  // Indices [first, last) into lane.events of the events overlapping [t0, t1].
  std::pair<std::size_t, std::size_t> visible(std::size_t lane, double t0, double t1) const;
  // The event of a lane under time t, within slack seconds; nullptr when none.
  const TraceEvent* eventAt(std::size_t lane, double t, double slack = 0) const;

 private:
  EventStore store_;
  std::vector<PhaseInfo> phases_;
  std::map<std::pair<std::string, std::string>, std::int64_t> bytes_;  // (backend, phase)
  std::map<std::uint32_t, std::uint32_t> reps_;                        // backend id -> count
  std::vector<TimelineLane> lanes_;
  double begin_ = 0, end_ = 0;
  double view_start_ = 0, view_end_ = 1;
};

// Round tick positions in [t0, t1], at most max_ticks of them; *step gets their spacing.
std::vector<double> ruler_ticks(double t0, double t1, int max_ticks, double* step);
// "1.5 ms", "250 us", "12 ns", "2.01 s": precision from the tick step so labels differ.
std::string time_text(double seconds, double step = 0);
// The phase family an event name belongs to ("kernel:cpu" -> "kernel"), which picks its colour.
std::string phase_family(const std::string& name);
// RGBA colour of a phase family, stable across runs.
std::uint32_t phase_colour(const std::string& family);
// RGBA colour of an event: its family's for shade 0, else a shade of its own
// (PhaseInfo::shade: a CPU run's write and one-sweep passes), so that neighbouring passes are
// told apart.
std::uint32_t event_colour(const std::string& name, int shade = 0);

}  // namespace bnscope
