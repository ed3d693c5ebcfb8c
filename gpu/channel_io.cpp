#include "channel_io.h"

#include "tensor/error.h"

namespace bnscope::gpu {

DeviceBuffer upload_channel_input(DeviceRuntime& rt, const Prepared& p, std::string_view name,
                                  bool as_double, Stream s) {
  return upload_channels(rt, p.in(name).to_doubles(), as_double, s);
}

void* ChannelResults::make(std::string output) {
  const std::size_t elem = as_double_ ? sizeof(double) : sizeof(float);
  return adopt(DeviceBuffer(rt_, channels_ * elem), std::move(output));
}

void* ChannelResults::adopt(DeviceBuffer buffer, std::string output) {
  items_.push_back({std::move(buffer), std::move(output), {}});
  return items_.back().buffer.get();
}

void ChannelResults::download(Stream s) {
  for (Item& i : items_) i.values = download_channels(i.buffer, channels_, as_double_, s);
}

std::vector<double>& ChannelResults::values(std::string_view output) {
  for (Item& i : items_)
    if (i.output == output) return i.values;
  throw Error(ErrorCode::Internal, "no per-channel result named " + std::string(output));
}

void ChannelResults::store(Result& r) const {
  for (const Item& i : items_) r.output(i.output).tensor.set_doubles(i.values);
}

}  // namespace bnscope::gpu
