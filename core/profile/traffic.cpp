#include "profile/traffic.h"

#include <cstdio>

#include "ops/outputs.h"

namespace bnscope {

Traffic minimum_traffic(const Prepared& p, const std::vector<OutputTensor>& outputs) {
  Traffic t;
  const std::int64_t e = p.view.outer * p.view.channels * p.view.inner;
  auto count = [&](const Tensor& tensor) {
    // Placeholders ([0]) and unused empty statistics move nothing.
    if (tensor.rank() >= 2 && tensor.numel() == e) {
      t.data_bytes += static_cast<std::int64_t>(tensor.nbytes());
      ++t.data_passes;
    } else {
      t.channel_bytes += static_cast<std::int64_t>(tensor.nbytes());
    }
  };
  for (const Tensor& in : p.inputs) count(in);
  for (const OutputTensor& out : outputs) count(out.tensor);
  return t;
}

Traffic minimum_traffic(const Prepared& p) {
  Result shapes;
  allocate_outputs(p, shapes);
  return minimum_traffic(p, shapes.outputs);
}

std::string bytes_text(double b) {
  char text[64];
  if (b >= 1e9)
    std::snprintf(text, sizeof text, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(text, sizeof text, "%.2f MB", b / 1e6);
  else if (b >= 1e3)
    std::snprintf(text, sizeof text, "%.1f kB", b / 1e3);
  else
    std::snprintf(text, sizeof text, "%.0f B", b);
  return text;
}

}  // namespace bnscope
