#include "analysis/channel_scan.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/bn_math.h"
#include "tensor/error.h"
#include "tensor/parallel.h"
#include "tensor/vec_load.h"

namespace bnscope {

namespace {

constexpr double kScanInf = std::numeric_limits<double>::infinity();
constexpr std::int64_t kBlockElements = std::int64_t{1} << 16;
constexpr std::int64_t kChunkBytes = std::int64_t{16} << 10;

// Per-channel accumulators of one thread. Min and max stay in the storage's precision (exact);
// sums in double. |x| max is not kept: over finite values it is max(|min|, |max|), exactly.
template <class A>
struct Lanes {
  std::vector<A> min, max, abs_min;
  std::vector<double> sum, abs_sum, sq_sum;
  std::vector<std::int64_t> non_finite;
  void reset(std::size_t n, bool magnitudes) {
    const A inf = std::numeric_limits<A>::infinity();
    min.assign(n, inf);
    max.assign(n, -inf);
    sum.assign(n, 0.0);
    non_finite.assign(n, 0);
    if (magnitudes) {
      abs_min.assign(n, inf);
      abs_sum.assign(n, 0.0);
      sq_sum.assign(n, 0.0);
    }
  }
};

// The order of operations, which fixes every bit of the figures: a channel's values are added
// one by one in index order, except in a row of an NCHW plane, where value i goes to the i % 16th
// of kLanes partials (the row's last inner % 16 values excepted) and the partials, started
// afresh each row, then fold into the channel in lane order before those last values. The
// threads' partials fold in thread order. The loops below keep a tile of lanes in registers
// across many rows; nothing else about them may change the figures.
constexpr std::int64_t kLanes = 16;

// NaN and Inf have every exponent bit set. Tested on the bits, not with a float compare, so the
// loops below stay free of branches.
inline bool is_finite_bits(float x) {
  return (std::bit_cast<std::uint32_t>(x) & 0x7f800000u) != 0x7f800000u;
}
inline bool is_finite_bits(double x) {
  constexpr std::uint64_t e = 0x7ff0000000000000ull;
  return (std::bit_cast<std::uint64_t>(x) & e) != e;
}

template <class A>
using Bits = std::conditional_t<sizeof(A) == 4, std::int32_t, std::int64_t>;

template <class A>
constexpr Bits<A> kExpBits = sizeof(A) == 4 ? Bits<A>(0x7f800000) : Bits<A>(0x7ff0000000000000ll);

// H lanes' accumulators, one register each (the sums' doubles fill it), held in registers
// while a tile runs down its rows.
template <class A, int H>
struct Part {
  Vec<A, H> mn, mx, amn;
  Vec<double, H> sm, as, sq;
  Vec<Bits<A>, H> nf;  // non-finite values of this run of rows (its rows less its finite ones)
};

template <bool kMag, class A, int H>
[[gnu::always_inline]] inline void part_fresh(Part<A, H>& t) {
  constexpr A inf = std::numeric_limits<A>::infinity();
  t.mn = Vec<A, H>{} + inf;
  t.mx = Vec<A, H>{} - inf;
  t.sm = Vec<double, H>{};
  t.nf = Vec<Bits<A>, H>{};
  if constexpr (kMag) {
    t.amn = Vec<A, H>{} + inf;
    t.as = Vec<double, H>{};
    t.sq = Vec<double, H>{};
  }
}

template <bool kMag, class A, int H>
[[gnu::always_inline]] inline void part_load(const Lanes<A>& s, std::size_t c, Part<A, H>& t) {
  std::memcpy(&t.mn, &s.min[c], sizeof t.mn);
  std::memcpy(&t.mx, &s.max[c], sizeof t.mx);
  std::memcpy(&t.sm, &s.sum[c], sizeof t.sm);
  t.nf = Vec<Bits<A>, H>{};
  if constexpr (kMag) {
    std::memcpy(&t.amn, &s.abs_min[c], sizeof t.amn);
    std::memcpy(&t.as, &s.abs_sum[c], sizeof t.as);
    std::memcpy(&t.sq, &s.sq_sum[c], sizeof t.sq);
  }
}

// Into H lanes of arrays laid out like Lanes' (the non-finite counts added).
template <bool kMag, class A, int H>
[[gnu::always_inline]] inline void part_store(const Part<A, H>& t, A* mn, A* mx, A* amn, double* sm,
                                              double* as, double* sq, std::int64_t* nf) {
  std::memcpy(mn, &t.mn, sizeof t.mn);
  std::memcpy(mx, &t.mx, sizeof t.mx);
  std::memcpy(sm, &t.sm, sizeof t.sm);
  Vec<std::int64_t, H> n;
  std::memcpy(&n, nf, sizeof n);
  n += __builtin_convertvector(t.nf, Vec<std::int64_t, H>);
  std::memcpy(nf, &n, sizeof n);
  if constexpr (kMag) {
    std::memcpy(amn, &t.amn, sizeof t.amn);
    std::memcpy(as, &t.as, sizeof t.as);
    std::memcpy(sq, &t.sq, sizeof t.sq);
  }
}

template <bool kMag, class A, int H>
[[gnu::always_inline]] inline void part_store(const Part<A, H>& t, Lanes<A>& s, std::size_t c) {
  part_store<kMag>(t, &s.min[c], &s.max[c], kMag ? &s.abs_min[c] : nullptr, &s.sum[c],
                   kMag ? &s.abs_sum[c] : nullptr, kMag ? &s.sq_sum[c] : nullptr, &s.non_finite[c]);
}

// H values at p into the part's lanes.
template <bool kMag, int H, class T, class A>
[[gnu::always_inline]] inline void step(const T* p, Part<A, H>& t) {
  using B = Vec<Bits<A>, H>;
  using D = Vec<double, H>;
  constexpr A inf = std::numeric_limits<A>::infinity();
  Vec<A, H> x;
  load<H, A>(p, x);
  const B bits = reinterpret_cast<B>(x);
  const B fin = (bits & kExpBits<A>) != kExpBits<A>;  // NaN and Inf: every exponent bit set
  const Vec<A, H> lo = fin ? x : Vec<A, H>{} + inf, hi = fin ? x : Vec<A, H>{} - inf;
  t.mn = lo < t.mn ? lo : t.mn;
  t.mx = hi > t.mx ? hi : t.mx;
  const D d = __builtin_convertvector(fin ? x : Vec<A, H>{}, D);
  t.sm += d;
  t.nf += fin;  // -1 per finite value; tile_rows adds the rows
  if constexpr (kMag) {
    const Vec<A, H> a = reinterpret_cast<Vec<A, H>>(bits & std::numeric_limits<Bits<A>>::max());
    const Vec<A, H> alo = fin ? a : Vec<A, H>{} + inf;
    t.amn = alo < t.amn ? alo : t.amn;
    // |double(v)| is double(|v|): the magnitude is taken after the (exact) widening.
    const D ad = reinterpret_cast<D>(reinterpret_cast<Vec<std::int64_t, H>>(d) &
                                     std::numeric_limits<std::int64_t>::max());
    t.as += ad;
    t.sq += ad * ad;
  }
}

// rows x P*H values, row r at p + r * stride, into the tile's P parts. pf, when not 0: the
// address from which to prefetch as many bytes as the tile reads, a row's worth per row.
template <bool kMag, int H, int P, class T, class A>
[[gnu::always_inline]] inline void tile_rows(const T* p, std::int64_t stride, std::int64_t rows,
                                             Part<A, H>* tile, std::uintptr_t pf = 0) {
  static_assert(P == 1 || P == 2);
  constexpr std::uintptr_t kRowBytes = P * H * sizeof(T);
  const auto row = [&](std::int64_t r, Part<A, H>& a, Part<A, H>& b) {
    step<kMag>(p + r * stride, a);
    if constexpr (P == 2) step<kMag>(p + r * stride + H, b);
  };
  Part<A, H> a = tile[0], b = tile[P - 1];
  if (pf) {
    for (std::int64_t r = 0; r < rows; ++r, pf += kRowBytes) {
      for (std::uintptr_t o = 0; o < kRowBytes; o += 64)
        __builtin_prefetch(reinterpret_cast<const void*>(pf + o));
      row(r, a, b);
    }
  } else {
    for (std::int64_t r = 0; r < rows; ++r) row(r, a, b);
  }
  a.nf += static_cast<Bits<A>>(rows);
  b.nf += static_cast<Bits<A>>(rows);
  tile[0] = a;
  if constexpr (P == 2) tile[1] = b;
}

// One value into channel k's accumulators.
template <bool kMag, class T, class A>
[[gnu::always_inline]] inline void add_one(T v, Lanes<A>& s, std::size_t k) {
  constexpr A inf = std::numeric_limits<A>::infinity();
  const A x = static_cast<A>(to_float(v));
  const bool fin = is_finite_bits(x);
  const A lo = fin ? x : inf, hi = fin ? x : -inf;
  s.min[k] = lo < s.min[k] ? lo : s.min[k];
  s.max[k] = hi > s.max[k] ? hi : s.max[k];
  s.sum[k] += static_cast<double>(fin ? x : A(0));
  s.non_finite[k] += static_cast<std::int64_t>(!fin);
  if constexpr (kMag) {
    const A a = std::fabs(x);
    const A av = fin ? a : A(0), alo = fin ? a : inf;
    s.abs_min[k] = alo < s.abs_min[k] ? alo : s.abs_min[k];
    s.abs_sum[k] += static_cast<double>(av);
    s.sq_sum[k] += static_cast<double>(av) * static_cast<double>(av);
  }
}

// Channels [c0, c1) of `rows` rows of a channels-last run (row r at p + r * C) into their lanes:
// tiles of P * H channels, then narrower ones, the last channel or two one value at a time.
template <bool kMag, int H, int P, class T, class A>
[[gnu::always_inline]] inline void add_columns(const T* p, std::int64_t C, std::int64_t rows,
                                               std::int64_t c0, std::int64_t c1, Lanes<A>& s,
                                               std::uintptr_t pf = 0) {
  std::int64_t c = c0;
  for (; c + P * H <= c1; c += P * H) {
    Part<A, H> t[P];
    for (int j = 0; j < P; ++j) part_load<kMag>(s, static_cast<std::size_t>(c + j * H), t[j]);
    tile_rows<kMag, H, P>(p + c, C, rows, t, pf);
    if (pf) pf += static_cast<std::uintptr_t>(rows) * P * H * sizeof(T);
    for (int j = 0; j < P; ++j) part_store<kMag>(t[j], s, static_cast<std::size_t>(c + j * H));
  }
  if constexpr (P == 2) {
    add_columns<kMag, H, 1>(p, C, rows, c, c1, s);
  } else if constexpr (H > 2) {
    add_columns<kMag, H / 2, 1>(p, C, rows, c, c1, s);
  } else if (c < c1) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = c; k < c1; ++k)
        add_one<kMag>(p[r * C + k], s, static_cast<std::size_t>(k));
  }
}

// One lane's figures into lane `to` of `dst`.
template <bool kMag, class A>
void fold_into(Lanes<A>& dst, std::size_t to, A mn, A mx, A amn, double sm, double as, double sq,
               std::int64_t nf) {
  dst.min[to] = std::min(dst.min[to], mn);
  dst.max[to] = std::max(dst.max[to], mx);
  dst.sum[to] += sm;
  dst.non_finite[to] += nf;
  if constexpr (kMag) {
    dst.abs_min[to] = std::min(dst.abs_min[to], amn);
    dst.abs_sum[to] += as;
    dst.sq_sum[to] += sq;
  }
}

// Lane `from` of `src` into lane `to` of `dst`.
template <bool kMag, class A>
void fold_lane(const Lanes<A>& src, std::size_t from, Lanes<A>& dst, std::size_t to) {
  if constexpr (kMag)
    fold_into<kMag>(dst, to, src.min[from], src.max[from], src.abs_min[from], src.sum[from],
                    src.abs_sum[from], src.sq_sum[from], src.non_finite[from]);
  else
    fold_into<kMag>(dst, to, src.min[from], src.max[from], A(0), src.sum[from], 0.0, 0.0,
                    src.non_finite[from]);
}

// A plane's row of `inner` values of channel c: kLanes partials in tiles of P * H lanes, folded
// into the channel in lane order, then the last inner % kLanes values.
template <bool kMag, int H, int P, class T, class A>
[[gnu::always_inline]] inline void add_plane_row(const T* row, std::int64_t inner, std::size_t c,
                                                 Lanes<A>& s) {
  static_assert(kLanes % (P * H) == 0);
  // Per run the non-finite counts stay far below 2^31.
  constexpr std::int64_t kRowsPerRun = std::int64_t{1} << 24;
  const std::int64_t full = inner / kLanes;
  if (full > 0) {
    // The magnitudes' partials stay zero when they are not asked for.
    A mn[kLanes], mx[kLanes], amn[kLanes] = {};
    double sm[kLanes], as[kLanes] = {}, sq[kLanes] = {};
    std::int64_t nf[kLanes] = {};
    for (std::int64_t j = 0; j < kLanes; j += P * H) {
      Part<A, H> t[P];
      for (Part<A, H>& q : t) part_fresh<kMag>(q);
      for (std::int64_t r0 = 0; r0 < full; r0 += kRowsPerRun) {
        tile_rows<kMag, H, P>(row + r0 * kLanes + j, kLanes, std::min(kRowsPerRun, full - r0), t);
        for (int q = 0; q < P; ++q) {
          const std::int64_t k = j + q * H;
          part_store<kMag>(t[q], mn + k, mx + k, amn + k, sm + k, as + k, sq + k, nf + k);
          t[q].nf = Vec<Bits<A>, H>{};
        }
      }
    }
    for (std::int64_t k = 0; k < kLanes; ++k)
      fold_into<kMag>(s, c, mn[k], mx[k], amn[k], sm[k], as[k], sq[k], nf[k]);
  }
  for (std::int64_t i = full * kLanes; i < inner; ++i) add_one<kMag>(row[i], s, c);
}

// Rows [begin, end) of the view (row r: the `inner` contiguous values of channel r % C), in
// tiles of P registers of H doubles.
template <bool kMag, int H, int P, class T, class A>
[[gnu::always_inline]] inline void scan_block(const T* data, const ChannelView& v,
                                              std::int64_t begin, std::int64_t end, Lanes<A>& acc) {
  const std::int64_t C = v.channels, inner = v.inner;
  if (inner == 1) {
    // Channels last: the block is a run of values, whole rows of C channels but for a row begun
    // before it and one it ends inside.
    std::int64_t e = begin;
    if (e % C != 0) {
      const std::int64_t stop = std::min(end, e - e % C + C);
      add_columns<kMag, H, P>(data + (e - e % C), C, 1, e % C, stop - (e - e % C), acc);
      e = stop;
    }
    const std::int64_t rows = (end - e) / C;
    // The tiles run down chunks of rows small enough to stay in L1 between them, and prefetch
    // the next chunk in its address order as they go: a tile's strided reads alone leave the
    // hardware prefetchers behind.
    const std::int64_t chunk =
        std::max<std::int64_t>(1, kChunkBytes / (C * std::int64_t{sizeof(T)}));
    for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const std::uintptr_t next = reinterpret_cast<std::uintptr_t>(data + e) +
                                  static_cast<std::uintptr_t>((r0 + chunk) * C) * sizeof(T);
      add_columns<kMag, H, P>(data + e + r0 * C, C, std::min(chunk, rows - r0), 0, C, acc, next);
    }
    e += rows * C;
    if (e < end) add_columns<kMag, H, P>(data + e, C, 1, 0, end - e, acc);
    return;
  }
  for (std::int64_t r = begin; r < end; ++r)
    add_plane_row<kMag, H, P>(data + r * inner, inner, static_cast<std::size_t>(r % C), acc);
}

// The same loops compiled for AVX2 and AVX-512 (wider tiles, the same per-lane order of
// operations, no FMA: the figures are bit for bit those of the baseline build) and picked when
// the CPU has them; the scan of a new output ends every run the app makes, so it should go at
// memory speed.
template <bool kMag, class T, class A>
void scan_block_baseline(const T* data, const ChannelView& v, std::int64_t begin, std::int64_t end,
                         Lanes<A>& acc) {
  scan_block<kMag, 2, 1>(data, v, begin, end, acc);
}
#if defined(__x86_64__) && defined(__GNUC__)
template <bool kMag, class T, class A>
[[gnu::target("avx2")]] void scan_block_avx2(const T* data, const ChannelView& v,
                                             std::int64_t begin, std::int64_t end, Lanes<A>& acc) {
  scan_block<kMag, 4, 1>(data, v, begin, end, acc);
}
template <bool kMag, class T, class A>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512dq")]] void scan_block_avx512(
    const T* data, const ChannelView& v, std::int64_t begin, std::int64_t end, Lanes<A>& acc) {
  scan_block<kMag, 8, 2>(data, v, begin, end, acc);
}
#endif

template <bool kMag, class T>
ChannelScan scan_typed(const T* data, const ChannelView& v, const ScanControl& ctl) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const std::int64_t rows = v.outer * v.channels;
  const std::int64_t rows_per_block = std::max<std::int64_t>(1, kBlockElements / v.inner);
  const std::int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
  const int threads = parallel_parts(blocks, 1, ctl.threads);
  const auto C = static_cast<std::size_t>(v.channels);
  // Thread t reads a fixed, contiguous run of blocks and the partials merge in thread order:
  // the same figures on every run with the same thread count.
  std::vector<Lanes<A>> parts(static_cast<std::size_t>(threads));
  for (Lanes<A>& p : parts) p.reset(C, kMag);
  std::atomic<bool> stopped{false};
  [[maybe_unused]] const VecIsa isa = vec_isa_at_most(ctl.max_isa);
  parallel_for(blocks, threads, [&](int t, std::int64_t b0, std::int64_t b1) {
    Lanes<A>& acc = parts[static_cast<std::size_t>(t)];
    for (std::int64_t b = b0; b < b1; ++b) {
      if ((ctl.cancel && ctl.cancel->load(std::memory_order_relaxed)) ||
          stopped.load(std::memory_order_relaxed)) {
        stopped.store(true, std::memory_order_relaxed);
        return;
      }
      const std::int64_t r0 = b * rows_per_block, r1 = std::min(rows, r0 + rows_per_block);
#if defined(__x86_64__) && defined(__GNUC__)
      if (isa == VecIsa::Avx512)
        scan_block_avx512<kMag>(data, v, r0, r1, acc);
      else if (isa == VecIsa::Avx2)
        scan_block_avx2<kMag>(data, v, r0, r1, acc);
      else
#endif
        scan_block_baseline<kMag>(data, v, r0, r1, acc);
      if (ctl.blocks_read) ctl.blocks_read->fetch_add(1, std::memory_order_relaxed);
    }
  });
  if (stopped.load()) throw Error(ErrorCode::Cancelled, "run cancelled");
  Lanes<A>& all = parts[0];
  for (std::size_t t = 1; t < parts.size(); ++t)
    for (std::size_t k = 0; k < C; ++k) fold_lane<kMag>(parts[t], k, all, k);
  ChannelScan s;
  s.view = v;
  const std::int64_t per_channel = v.outer * v.inner;
  s.min.resize(C);
  s.max.resize(C);
  s.finite.resize(C);
  s.non_finite = all.non_finite;
  s.sum = std::move(all.sum);
  for (std::size_t k = 0; k < C; ++k) {
    s.finite[k] = per_channel - s.non_finite[k];
    s.min[k] = static_cast<double>(all.min[k]);
    s.max[k] = static_cast<double>(all.max[k]);
  }
  if (kMag) {
    s.abs_min.resize(C);
    s.abs_max.resize(C);
    for (std::size_t k = 0; k < C; ++k) {
      s.abs_min[k] = static_cast<double>(all.abs_min[k]);
      // The largest finite magnitude is at one end of the finite range (+0 when there is none,
      // as a running max from +0 gives).
      s.abs_max[k] = s.finite[k] > 0 ? std::max(std::fabs(s.min[k]), std::fabs(s.max[k])) : 0.0;
    }
    s.abs_sum = std::move(all.abs_sum);
    s.sq_sum = std::move(all.sq_sum);
  }
  return s;
}

void init_scan(ChannelScan& s, const ChannelView& v) {
  const auto n = static_cast<std::size_t>(v.channels);
  s.view = v;
  s.min.assign(n, kScanInf);
  s.max.assign(n, -kScanInf);
  s.abs_min.assign(n, kScanInf);
  s.abs_max.assign(n, -kScanInf);
  s.sum.assign(n, 0.0);
  s.abs_sum.assign(n, 0.0);
  s.sq_sum.assign(n, 0.0);
  s.finite.assign(n, 0);
  s.non_finite.assign(n, 0);
}

}  // namespace

ChannelScan scan_channels(const Tensor& t, const ChannelView& v, const ScanControl& ctl,
                          bool magnitudes) {
  if (v.channels <= 0 || v.inner <= 0 || v.outer <= 0 ||
      t.numel() != v.outer * v.channels * v.inner) {
    ChannelScan s;
    init_scan(s, ChannelView{0, std::max<std::int64_t>(v.channels, 0), 0});
    return s;
  }
  const auto run = [&](const auto* data) {
    return magnitudes ? scan_typed<true>(data, v, ctl) : scan_typed<false>(data, v, ctl);
  };
  switch (t.dtype()) {
    case DType::F16:
      return run(t.data<f16>());
    case DType::BF16:
      return run(t.data<bf16>());
    case DType::F32:
      return run(t.data<float>());
    case DType::F64:
      return run(t.data<double>());
  }
  return {};
}

}  // namespace bnscope
