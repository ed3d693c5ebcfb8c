#pragma once
// Timed events in a compact struct array with interned names, the one source the timeline view
// and the Chrome trace writer read. Times are seconds from the store's origin.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace bnscope {

// A profile's tracks: the run as the host clock saw it, the device's phases (uploads, kernels,
// downloads), a CPU run's passes. Further numbers are further device streams.
inline constexpr std::uint32_t kHostTrack = 0;
inline constexpr std::uint32_t kDeviceTrack = 1;
inline constexpr std::uint32_t kPassTrack = 2;
// "host", "device", "passes", "stream N".
std::string track_label(std::uint32_t track);

struct TraceEvent {
  std::uint32_t name = 0;     // id into EventStore::names()
  std::uint32_t backend = 0;  // id into EventStore::names()
  std::uint32_t track = 0;    // kHostTrack, kDeviceTrack, kPassTrack, ...
  double start = 0;           // seconds
  double duration = 0;        // seconds
  std::uint32_t rep = 0;      // the timed repetition it belongs to, from 0
};

class EventStore {
 public:
  std::uint32_t intern(std::string_view s);
  void add(std::string_view name, std::string_view backend, std::uint32_t track, double start,
           double duration, std::uint32_t rep = 0);
  const std::vector<TraceEvent>& events() const { return events_; }
  const std::string& name(std::uint32_t id) const { return names_.at(id); }
  const std::vector<std::string>& names() const { return names_; }
  bool empty() const { return events_.empty(); }
  void append(const EventStore& other, double time_offset = 0);  // re-interns other's names

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<TraceEvent> events_;
};

}  // namespace bnscope
