#pragma once
// What bnscope and its plugin helper (bnscope-plugin-host) say to each other, over the framed
// JSON channel of ipc/child_process.h. Requests and replies are JSON objects:
//   {"request":"describe"}           -> {"ok":true,"protocol":1,"plugin":{PluginInfo}}
//   {"request":"supports","call":C}  -> {"ok":true,"why":""}
//   {"request":"run","call":C,"segments":[{"path":P,"size":S,"offset":O}, ...]}
//                                    -> {"ok":true,"seconds":run()'s time}
//   any failure the helper survives  -> {"ok":false,"error":"one line"}
// C is call_spec_json (plugin/plugin_call.h); the segments are the inputs then the outputs, each
// tensor alone in a shared-memory segment (ipc/shared_memory.h) and ending where the segment
// ends. The helper maps inputs read-only and puts an inaccessible page after every segment, so a
// write past a tensor's end or into an input stops the helper with SIGSEGV; bnscope fills the
// bytes before each output with a pattern and checks it after the run for writes before the start.

#include <cstddef>
#include <cstdint>

namespace bnscope::plugin_protocol {

inline constexpr int kVersion = 1;
inline constexpr unsigned char kCanary = 0xA5;

// The segment one tensor of `bytes` goes in: whole pages, the data at its end.
std::size_t page_size();
inline std::size_t segment_size(std::size_t bytes) {
  const std::size_t page = page_size();
  return (bytes == 0 ? page : (bytes + page - 1) / page * page);
}
inline std::size_t data_offset(std::size_t bytes) {
  return segment_size(bytes) - bytes;
}

}  // namespace bnscope::plugin_protocol
