#include "profile/traffic.h"

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

}  // namespace bnscope
