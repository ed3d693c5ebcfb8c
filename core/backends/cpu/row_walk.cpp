#include "backends/cpu/row_walk.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <utility>

#include "backends/cpu/kernels.h"

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

std::size_t element_size(simd::Elem elem) {
  return elem == simd::Elem::F32 ? 4 : 2;
}

struct FreeBytes {
  void operator()(void* p) const { std::free(p); }
};
using Bytes = std::unique_ptr<unsigned char[], FreeBytes>;

Bytes cache_line_aligned(std::size_t bytes) {
  bytes = (bytes + 63) / 64 * 64;
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  return Bytes(p);
}

// Fills n elements with 1.0 in the element's encoding.
void fill_ones(unsigned char* p, std::size_t n, simd::Elem elem) {
  if (elem == simd::Elem::F32) {
    std::fill_n(reinterpret_cast<float*>(p), n, 1.0f);
  } else {
    const std::uint16_t one = elem == simd::Elem::BF16 ? 0x3F80 : 0x3C00;
    std::fill_n(reinterpret_cast<std::uint16_t*>(p), n, one);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times the single sweep of `rows` rows of `lanes` lanes both ways, alternating which goes
// first, in the lane arrays the backend uses.
Decision measure(std::int64_t lanes, simd::Elem elem, std::int64_t tile) {
  const std::size_t esize = element_size(elem);
  const std::int64_t rows = std::max<std::int64_t>(
      4 * tile, static_cast<std::int64_t>(kInputBytes / (static_cast<std::size_t>(lanes) * esize)));
  const std::size_t n = static_cast<std::size_t>(rows * lanes);
  Bytes a = cache_line_aligned(n * esize), b = cache_line_aligned(n * esize);
  Bytes out = cache_line_aligned(n * esize);
  fill_ones(a.get(), n, elem);
  fill_ones(b.get(), n, elem);
  std::memset(out.get(), 0, n * esize);
  LaneArrays<float> arrays(lanes, 4);
  std::fill_n(arrays[2], lanes, 0.5f);
  std::fill_n(arrays[3], lanes, 0.5f);
  const simd::Sweep s{elem, false, a.get(), b.get(), out.get(), /*nt=*/true};
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
  d.tiles_seconds = median(tiles);
  d.rows_seconds = median(by_rows);
  d.tile = rows_walk_faster(tiles, by_rows) ? 0 : tile;
  return d;
}

const char* elem_name(simd::Elem elem) {
  switch (elem) {
    case simd::Elem::F32:
      return "float32";
    case simd::Elem::F16:
      return "float16";
    case simd::Elem::BF16:
      return "bfloat16";
  }
  return "?";
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
  return median(std::move(rows_seconds)) < 0.97 * median(std::move(tiles_seconds));
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
  if (static_cast<std::size_t>(lanes) * element_size(elem) > kInputBytes / 4) return tile;
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
    } catch (const std::bad_alloc&) {
      d.tile = tile;  // no room to measure: the rule's tile
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
    out << key.lanes << " lanes " << elem_name(key.elem) << ": " << (d.tile > 0 ? "tiles" : "rows");
    if (d.tiles_seconds > 0)
      out << " (rows " << static_cast<int>(100 * d.rows_seconds / d.tiles_seconds + 0.5)
          << "% of tiles' time)";
  }
  return out.str();
}

}  // namespace bnscope::cpu
