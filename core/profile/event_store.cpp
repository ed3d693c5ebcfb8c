#include "profile/event_store.h"

namespace bnscope {

std::string track_label(std::uint32_t track) {
  switch (track) {
    case kHostTrack:
      return "host";
    case kDeviceTrack:
      return "device";
    case kPassTrack:
      return "passes";
    default:
      return "stream " + std::to_string(track);
  }
}

std::uint32_t EventStore::intern(std::string_view s) {
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(s);
  ids_.emplace(names_.back(), id);
  return id;
}

void EventStore::add(std::string_view name, std::string_view backend, std::uint32_t track,
                     double start, double duration, std::uint32_t rep) {
  events_.push_back({intern(name), intern(backend), track, start, duration, rep});
}

void EventStore::append(const EventStore& other, double time_offset) {
  for (const TraceEvent& e : other.events_)
    add(other.name(e.name), other.name(e.backend), e.track, e.start + time_offset, e.duration,
        e.rep);
}

}  // namespace bnscope
