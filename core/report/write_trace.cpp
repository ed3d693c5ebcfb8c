#include <algorithm>

#include "io/json_writer.h"
#include "report/writers.h"

namespace bnscope {

void write_chrome_trace(const Report& r, std::ostream& os) {
  JsonWriter w(os, false);
  w.begin_object().field("displayTimeUnit", "ms");
  w.key("otherData").begin_object().field("tool", "bnscope " + r.version);
  w.field("schema", kReportSchema).field("cpu", r.machine.cpu_model).field("created", r.created);
  w.end_object();
  w.key("traceEvents").begin_array();
  w.begin_object().field("name", "process_name").field("ph", "M").field("pid", 1).field("tid", 0);
  w.key("args").begin_object().field("name", "bnscope").end_object().end_object();
  // Profiles follow one another on the time axis; each gets a thread per track it uses (host,
  // device, passes), named after event_store.h's tracks.
  constexpr std::uint32_t tracks = kPassTrack + 1;
  auto tid_of = [&](std::size_t k, std::uint32_t track) {
    return static_cast<int>(tracks * k + std::min(track, tracks - 1)) + 1;
  };
  double offset_us = 0;
  for (std::size_t k = 0; k < r.profiles.size(); ++k) {
    const Profile& p = r.profiles[k];
    const std::string label = p.backend + " " + shape_str(p.shape) + " " +
                              std::string(dtype_name(p.dtype)) + " " + p.format + " " +
                              std::string(mode_name(p.is_training));
    bool used[tracks] = {true};  // the host track always
    for (const TraceEvent& e : p.events.events()) used[std::min(e.track, tracks - 1)] = true;
    for (std::uint32_t track = 0; track < tracks; ++track) {
      if (!used[track]) continue;
      const int tid = tid_of(k, track);
      w.begin_object().field("name", "thread_name").field("ph", "M").field("pid", 1);
      w.field("tid", tid).key("args").begin_object();
      w.field("name", label + " " + track_label(track)).end_object().end_object();
      w.begin_object().field("name", "thread_sort_index").field("ph", "M").field("pid", 1);
      w.field("tid", tid).key("args").begin_object().field("sort_index", tid).end_object();
      w.end_object();
    }
    double end_us = offset_us;
    for (const TraceEvent& e : p.events.events()) {
      const double ts = offset_us + e.start * 1e6;
      const double dur = e.duration * 1e6;
      end_us = std::max(end_us, ts + dur);
      const std::string& phase = p.events.name(e.name);
      w.begin_object()
          .field("name", "bnscope/" + p.op + "/" + p.events.name(e.backend) + "/" + phase)
          .field("cat", "bnscope")
          .field("ph", "X")
          .field("ts", ts)
          .field("dur", dur)
          .field("pid", 1)
          .field("tid", tid_of(k, e.track));
      w.key("args")
          .begin_object()
          .field("op", p.op)
          .field("backend", p.events.name(e.backend))
          .field("phase", phase)
          .field("rep", static_cast<double>(e.rep))
          .field("dtype", dtype_name(p.dtype))
          .field("shape", shape_str(p.shape))
          .field("data_format", p.format)
          .field("is_training", p.is_training)
          .field("bytes", p.traffic.total())
          .field("gbps", p.achieved_gbps)
          .end_object()
          .end_object();
    }
    w.begin_object().field("name", "achieved GB/s").field("ph", "C").field("ts", offset_us);
    w.field("pid", 1).field("tid", 0).key("args").begin_object();
    w.field(p.backend, p.achieved_gbps).end_object().end_object();
    offset_us = end_us + 100;  // a visible gap between cases
  }
  w.end_array().end_object();
  os << '\n';
}

}  // namespace bnscope
