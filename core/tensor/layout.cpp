#include "tensor/layout.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "tensor/error.h"
#include "tensor/parallel.h"
#include "tensor/transpose.h"

namespace bnscope {

DataFormat data_format_for(bool channels_last, int rank) {
  if (rank == 5) return channels_last ? DataFormat::NDHWC : DataFormat::NCDHW;
  return channels_last ? DataFormat::NHWC : DataFormat::NCHW;
}

std::string_view data_format_name(DataFormat f) {
  switch (f) {
    case DataFormat::NHWC:
      return "NHWC";
    case DataFormat::NCHW:
      return "NCHW";
    case DataFormat::NDHWC:
      return "NDHWC";
    case DataFormat::NCDHW:
      break;
  }
  return "NCDHW";
}

std::optional<DataFormat> parse_data_format(std::string_view s) {
  if (s == "NHWC") return DataFormat::NHWC;
  if (s == "NCHW") return DataFormat::NCHW;
  if (s == "NDHWC") return DataFormat::NDHWC;
  if (s == "NCDHW") return DataFormat::NCDHW;
  return std::nullopt;
}

int channel_axis(int rank, bool channels_last) {
  return channels_last ? rank - 1 : 1;
}

ChannelView channel_view(const Shape& shape, bool channels_last) {
  if (shape.size() < 2) fail("expected a tensor of rank >= 2, got shape " + shape_str(shape));
  ChannelView v;
  v.channels =
      shape[static_cast<std::size_t>(channel_axis(static_cast<int>(shape.size()), channels_last))];
  const std::int64_t total = num_elements(shape);
  const std::int64_t n = shape[0];
  if (channels_last) {
    v.inner = 1;
    v.outer = v.channels ? total / v.channels : 0;
    if (!v.channels) {  // keep outer meaningful for empty tensors
      v.outer = 1;
      for (std::size_t i = 0; i + 1 < shape.size(); ++i) v.outer *= shape[i];
    }
  } else {
    v.outer = n;
    v.inner = 1;
    for (std::size_t i = 2; i < shape.size(); ++i) v.inner *= shape[i];
  }
  return v;
}

namespace {

// Moves the channel axis between last and second place; the spatial order is kept. Per batch
// element that is one matrix transpose (spatial x channels <-> channels x spatial); a real
// layer's 100 MB takes every core, split by batch element and row band.
struct AxisMove {
  Shape out_shape;
  std::int64_t n = 0, c = 0, spatial = 1;
};
AxisMove axis_move(const Shape& s, bool to_first) {
  if (s.size() < 2) fail("layout conversion needs rank >= 2, got shape " + shape_str(s));
  AxisMove m;
  m.n = s[0];
  if (to_first) {
    m.c = s.back();
    for (std::size_t i = 1; i + 1 < s.size(); ++i) m.spatial *= s[i];
    m.out_shape = {m.n, m.c};
    m.out_shape.insert(m.out_shape.end(), s.begin() + 1, s.end() - 1);
  } else {
    m.c = s[1];
    for (std::size_t i = 2; i < s.size(); ++i) m.spatial *= s[i];
    m.out_shape = {m.n};
    m.out_shape.insert(m.out_shape.end(), s.begin() + 2, s.end());
    m.out_shape.push_back(m.c);
  }
  return m;
}

Tensor move_axis(const Tensor& t, bool to_first, int threads) {
  const AxisMove m = axis_move(t.shape(), to_first);
  const Shape& out_shape = m.out_shape;
  const std::int64_t n = m.n, c = m.c, spatial = m.spatial;
  // Every element is written below: no zero-fill first.
  Tensor out = Tensor::uninitialized(t.dtype(), out_shape);
  if (t.numel() == 0) return out;
  const std::size_t es = dtype_size(t.dtype());
  const auto* src = static_cast<const std::byte*>(t.raw());
  auto* dst = static_cast<std::byte*>(out.raw());
  const std::int64_t rows = to_first ? spatial : c, cols = to_first ? c : spatial;
  const std::int64_t matrix = rows * cols * static_cast<std::int64_t>(es);
  constexpr std::int64_t kBand = 256;  // rows per work item
  const std::int64_t bands = (rows + kBand - 1) / kBand;
  const std::int64_t items = n * bands;
  parallel_for(items, parallel_parts(t.numel(), std::int64_t{1} << 18, threads),
               [&](int, std::int64_t begin, std::int64_t end) {
                 for (std::int64_t i = begin; i < end; ++i) {
                   const std::int64_t b = i / bands, r0 = i % bands * kBand;
                   transpose_rows(es, src + b * matrix, dst + b * matrix, rows, cols, r0,
                                  std::min(r0 + kBand, rows));
                 }
               });
  return out;
}

}  // namespace

Shape channel_axis_moved(const Shape& shape, bool to_first) {
  return axis_move(shape, to_first).out_shape;
}

void move_channel_axis_in_place(const Tensor& t, bool to_first, std::int64_t begin,
                                std::int64_t end, int threads, std::span<std::byte> scratch) {
  move_channel_axis_in_place_until(t, to_first, begin, end, nullptr, threads, scratch);
}

std::int64_t move_channel_axis_in_place_until(const Tensor& t, bool to_first, std::int64_t begin,
                                              std::int64_t end, const std::atomic<bool>* stop,
                                              int threads, std::span<std::byte> scratch) {
  const AxisMove m = axis_move(t.shape(), to_first);
  begin = std::max<std::int64_t>(begin, 0);
  end = std::min(end, m.n);
  if (t.numel() == 0 || begin >= end) return 0;
  const std::size_t es = dtype_size(t.dtype());
  const std::int64_t rows = to_first ? m.spatial : m.c, cols = to_first ? m.c : m.spatial;
  const auto matrix = static_cast<std::size_t>(rows * cols) * es;
  // Deliberately through the shared storage (not raw(), which would copy it): the caller holds
  // every copy of t and wants all of them to see the new layout.
  auto* data = const_cast<std::byte*>(static_cast<const std::byte*>(t.raw()));
  const std::int64_t count = end - begin;
  const int parts = std::min<int>(
      static_cast<int>(count), parallel_parts(count * rows * cols, std::int64_t{1} << 18, threads));
  // One batch element of scratch per part, all allocated before anything moves, so that a move
  // that cannot allocate throws with nothing changed and a started one always finishes.
  std::vector<std::unique_ptr<std::byte[]>> own;
  if (scratch.size() < matrix * static_cast<std::size_t>(parts)) {
    own.resize(static_cast<std::size_t>(parts));
    for (auto& o : own) o.reset(new std::byte[matrix]);
  }
  // Elements are handed out one at a time rather than in fixed shares: a part whose thread gets
  // less of the CPU (the UI thread painting beside it, another program) moves fewer of them
  // instead of holding the others up. Claimed in index order, and each claimed element is moved
  // whole, so what is moved when `stop` ends it early is always a prefix of the range.
  std::atomic<std::int64_t> next{0};
  parallel_for(parts, parts, [&](int part, std::int64_t, std::int64_t) {
    std::byte* aside = own.empty() ? scratch.data() + static_cast<std::size_t>(part) * matrix
                                   : own[static_cast<std::size_t>(part)].get();
    while (!(stop && stop->load(std::memory_order_relaxed))) {
      const std::int64_t k = next.fetch_add(1, std::memory_order_relaxed);
      if (k >= count) break;
      // The element is copied aside, then transposed back into its own place (a real layer's
      // element is a few MB, well within the last-level cache). In this order the one pass from
      // memory is the sequential copy and the tiles' strided reads and writes find their lines
      // in cache; transposing out first and copying back measured twice as slow
      // (tests/bench/layout_bench.cpp).
      std::byte* item = data + static_cast<std::size_t>(begin + k) * matrix;
      std::memcpy(aside, item, matrix);
      transpose_rows(es, aside, item, rows, cols, 0, rows);
    }
  });
  return std::min(next.load(), count);
}

Tensor to_channels_first(const Tensor& t, int threads) {
  return move_axis(t, true, threads);
}
Tensor to_channels_last(const Tensor& t, int threads) {
  return move_axis(t, false, threads);
}

}  // namespace bnscope
