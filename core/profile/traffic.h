#pragma once
// The minimum-traffic model (performance spec 1.2, 4.1): the bytes an ideal implementation must
// move, each input read once and each output written once. For the grad ops (training, inference
// and the global-normalization grad) that is x and dy read and dx written, 3 * E * sizeof(T), plus
// the per-channel tensors (about 20 bytes per channel for float statistics: scale and the two
// reserve spaces read, scale_backprop and offset_backprop written). Forward ops: x read, y written,
// plus the statistics. Implementations making more passes are measured against the same count,
// so achieved bandwidth compares across implementations.

#include <cstdint>
#include <string>
#include <vector>

#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

struct Traffic {
  std::int64_t data_bytes = 0;     // x-shaped tensors
  std::int64_t channel_bytes = 0;  // per-channel tensors (inputs and outputs)
  int data_passes = 0;             // x-shaped tensors touched
  std::int64_t total() const { return data_bytes + channel_bytes; }
};

// outputs: the run's outputs (their shapes are all that is read).
Traffic minimum_traffic(const Prepared& p, const std::vector<OutputTensor>& outputs);
// Same, allocating the outputs' shapes itself.
Traffic minimum_traffic(const Prepared& p);

// A byte count for people, in decimal units: "602.8 kB", "205.52 MB", "1.23 GB", "12 B".
std::string bytes_text(double bytes);

}  // namespace bnscope
