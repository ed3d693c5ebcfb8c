#include "backends/cpu/row_walk.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "backends/cpu/kernels.h"
#include "backends/cpu/walk_timing.h"
#include "tensor/error.h"
#include "tensor/tensor.h"

namespace bnscope::cpu {

namespace {

constexpr std::size_t kInputBytes = std::size_t{2} << 20;  // of each input: past L2, within L3
constexpr int kRounds = 5;

struct Decision {
  std::int64_t tile = 0;  // the tile row_tile gave; 0 when rows won
  double tiles_seconds = 0, rows_seconds = 0;
};

struct Key {
  std::int64_t lanes;
  simd::Elem elem;
  bool operator<(const Key& o) const {
    return lanes != o.lanes ? lanes < o.lanes : static_cast<int>(elem) < static_cast<int>(o.elem);
  }
};

std::mutex& decisions_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, Decision>& decisions() {
  static std::map<Key, Decision> d;
  return d;
}

// Times the single sweep of `rows` rows of `lanes` lanes both ways, alternating which goes
// first, in the lane arrays the backend uses.
Decision measure(std::int64_t lanes, simd::Elem elem, std::int64_t tile) {
  const DType dtype = simd::dtype_of(elem);
  const std::int64_t rows = std::max<std::int64_t>(
      4 * tile, static_cast<std::int64_t>(kInputBytes /
                                          (static_cast<std::size_t>(lanes) * dtype_size(dtype))));
  // Zeros (the same bits in every dtype): the sweep's time does not depend on the values.
  // Tensors, as the backend's inputs and outputs are: cache-line aligned, so dx streams.
  Tensor a(dtype, {rows, lanes}), b(dtype, {rows, lanes}), out(dtype, {rows, lanes});
  LaneArrays<float> arrays(lanes, 4);
  std::fill_n(arrays[2], lanes, 0.5f);
  std::fill_n(arrays[3], lanes, 0.5f);
  const simd::Sweep s{elem,       false, std::as_const(a).raw(), std::as_const(b).raw(), out.raw(),
                      /*nt=*/true};
  const auto once = [&](std::int64_t t) {
    std::fill_n(arrays[0], lanes, 0.0f);
    std::fill_n(arrays[1], lanes, 0.0f);
    const auto start = std::chrono::steady_clock::now();
    simd::rows_sweep(s, rows, lanes, lanes, t, arrays[2], arrays[3], arrays[0], arrays[1]);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - start;
    return dt.count();
  };
  once(tile);
  once(0);
  std::vector<double> tiles, by_rows;
  for (int round = 0; round < kRounds; ++round) {
    if (round % 2 == 0) {
      tiles.push_back(once(tile));
      by_rows.push_back(once(0));
    } else {
      by_rows.push_back(once(0));
      tiles.push_back(once(tile));
    }
  }
  Decision d;
  d.tiles_seconds = median_seconds(tiles);
  d.rows_seconds = median_seconds(by_rows);
  d.tile = rows_walk_faster(tiles, by_rows) ? 0 : tile;
  return d;
}

}  // namespace

RowWalkPolicy row_walk_policy() {
  static const RowWalkPolicy policy = [] {
    const char* v = std::getenv("BNSCOPE_ROW_WALK");
    if (v && std::strcmp(v, "tiles") == 0) return RowWalkPolicy::Tiles;
    if (v && std::strcmp(v, "rows") == 0) return RowWalkPolicy::Rows;
    return RowWalkPolicy::Measure;
  }();
  return policy;
}

bool rows_walk_faster(std::vector<double> tiles_seconds, std::vector<double> rows_seconds) {
  if (tiles_seconds.empty() || rows_seconds.empty()) return false;
  return median_seconds(std::move(rows_seconds)) < 0.97 * median_seconds(std::move(tiles_seconds));
}

std::int64_t single_sweep_tile(std::int64_t lanes, simd::Elem elem, std::int64_t tile) {
  if (tile <= 0) return 0;
  switch (row_walk_policy()) {
    case RowWalkPolicy::Tiles:
      return tile;
    case RowWalkPolicy::Rows:
      return 0;
    case RowWalkPolicy::Measure:
      break;
  }
  // Rows of megabytes each (millions of channels) would make the measurement itself a large
  // pass: there the rule's tile stands.
  if (static_cast<std::size_t>(lanes) * dtype_size(simd::dtype_of(elem)) > kInputBytes / 4)
    return tile;
  // The first thread to need a decision measures while the others wait for it here, so the
  // timing is not shared with the pass that asked.
  const std::lock_guard<std::mutex> lock(decisions_mutex());
  auto& known = decisions();
  const Key key{lanes, elem};
  auto it = known.find(key);
  if (it == known.end()) {
    Decision d;
    try {
      d = measure(lanes, elem, tile);
    } catch (const Error&) {  // ResourceExhausted
      d.tile = tile;          // no room to measure: the rule's tile
    }
    it = known.emplace(key, d).first;
  }
  return it->second.tile > 0 ? tile : 0;
}

std::string describe_row_walks() {
  const std::lock_guard<std::mutex> lock(decisions_mutex());
  std::ostringstream out;
  for (const auto& [key, d] : decisions()) {
    if (out.tellp() > 0) out << "; ";
    out << key.lanes << " lanes " << dtype_name(simd::dtype_of(key.elem)) << ": "
        << (d.tile > 0 ? "tiles" : "rows");
    if (d.tiles_seconds > 0)
      out << " (rows " << static_cast<int>(100 * d.rows_seconds / d.tiles_seconds + 0.5)
          << "% of tiles' time)";
  }
  return out.str();
}

}  // namespace bnscope::cpu
