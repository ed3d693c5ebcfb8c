#pragma once
// Per-channel vectors between a problem and the device: inputs uploaded in the accumulation
// type, and the per-channel results of a launch, read back in the download phase and stored into
// their named outputs after the timer has finished (so the host-side conversion is not timed).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "device_memory.h"
#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope::gpu {

// The input `name` of p as float (or double when as_double) on the device.
DeviceBuffer upload_channel_input(DeviceRuntime& rt, const Prepared& p, std::string_view name,
                                  bool as_double, Stream s);

class ChannelResults {
 public:
  ChannelResults(DeviceRuntime& rt, std::size_t channels, bool as_double)
      : rt_(rt), channels_(channels), as_double_(as_double) {}

  // A new device vector whose contents end up in `output`.
  void* make(std::string output);
  // A vector already on the device (running statistics a call updates in place).
  void* adopt(DeviceBuffer buffer, std::string output);

  // Copies every vector back; synchronizes the stream.
  void download(Stream s);
  // The host copy of one output after download(), to convert before store().
  std::vector<double>& values(std::string_view output);
  void store(Result& r) const;

 private:
  struct Item {
    DeviceBuffer buffer;
    std::string output;
    std::vector<double> values;
  };
  DeviceRuntime& rt_;
  std::size_t channels_;
  bool as_double_;
  std::vector<Item> items_;  // moving an Item keeps its device pointer
};

}  // namespace bnscope::gpu
