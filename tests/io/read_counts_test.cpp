// The readers count each input's NaN/Inf values piece by piece as they read them (Tensor::
// known_non_finite), so the health note needs no second pass: the count must be the one a pass
// over the tensor gives, for every dtype, with NaN and Inf planted where the reader's pieces and
// threads split the data, from .npy files and stored .npz members alike; data they cannot count
// as they read (big-endian, deflated) is left to be counted, and any write forgets the count.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "io/npy.h"
#include "io/npz.h"
#include "io_test_util.h"
#include "ops/prepared.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "tensor/non_finite.h"

namespace bnscope::test {
namespace {

constexpr std::size_t kPiece = std::size_t{256} << 10;  // the reader's piece

// Bits for a finite value of the dtype (exponent not all ones), then the ones for NaN and Inf.
std::uint64_t exponent_of(DType dt) {
  switch (dt) {
    case DType::F16:
      return 0x7C00u;
    case DType::BF16:
      return 0x7F80u;
    case DType::F32:
      return 0x7F800000u;
    case DType::F64:
      return 0x7FF0000000000000ull;
  }
  return 0;
}

void put(Tensor& t, std::int64_t i, std::uint64_t bits) {
  const std::size_t size = dtype_size(t.dtype());
  std::memcpy(static_cast<std::byte*>(t.raw()) + static_cast<std::size_t>(i) * size, &bits, size);
}

// Random finite values over more than two of the reader's 8 MiB thread parts, with NaN and Inf
// (both signs, several payloads) on both sides of every piece boundary, of the boundaries
// between any 1 to 16 threads' parts, and at both ends.
Tensor planted(DType dt) {
  const std::size_t size = dtype_size(dt);
  const auto n = static_cast<std::int64_t>((std::size_t{17} << 20) / size + 5);
  Tensor t = Tensor::uninitialized(dt, {n});
  const std::uint64_t e = exponent_of(dt), mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    std::uint64_t bits = (s >> 7) & mask;
    if ((bits & e) == e) bits &= ~(e & (e >> 1));  // one exponent bit cleared: finite
    put(t, i, bits);
  }
  const std::uint64_t specials[] = {e, e | 1, e | (e >> 1) | 3, (mask & ~(mask >> 1)) | e};
  int k = 0;
  auto plant = [&](std::int64_t i) {
    if (i >= 0 && i < n) put(t, i, specials[k++ % 4]);
  };
  for (std::size_t b = 0; b <= t.nbytes(); b += kPiece) {
    plant(static_cast<std::int64_t>(b / size) - 1);
    plant(static_cast<std::int64_t>(b / size));
  }
  for (std::int64_t parts = 1; parts <= 16; ++parts)
    for (std::int64_t p = 0; p <= parts; ++p) {
      plant(n * p / parts - 1);
      plant(n * p / parts);
    }
  return t;
}

void expect_counted(const Tensor& read, const Tensor& written, const std::string& what) {
  expect_same_tensor(read, written);
  const std::int64_t want = count_non_finite(written);
  EXPECT_GT(want, 100) << what;
  EXPECT_EQ(read.known_non_finite(), want) << what;
  EXPECT_EQ(count_non_finite(read), want) << what;
}

TEST(ReadCounts, NpyAndStoredNpzCountAsTheyRead) {
  ScratchDir dir;
  for (DType dt : kAllDTypes) {
    const Tensor t = planted(dt);
    const std::string name(dtype_name(dt));
    write_npy(dir / (name + ".npy"), t);
    expect_counted(read_npy(dir / (name + ".npy")), t, name + " .npy");
    // A short member first puts the data at an offset that is no multiple of any element size.
    write_npz(dir / (name + ".npz"), {{"a", Tensor(DType::F16, {3})}, {"t", t}}, {}, false);
    expect_counted(read_npz_member(dir / (name + ".npz"), "t"), t, name + " .npz member");
    expect_counted(read_npz(dir / (name + ".npz")).at("t"), t, name + " .npz");
  }
}

TEST(ReadCounts, SmallEmptyAndFortranOrderTensors) {
  ScratchDir dir;
  const double nan = std::nan(""), inf = INFINITY;
  const Tensor small =
      Tensor::from_doubles(DType::F32, {2, 3}, std::vector<double>{1, nan, 3, -inf, 5, 6});
  const Tensor empty(DType::F64, {0, 4});
  write_npz(dir / "s.npz", {{"small", small}, {"empty", empty}}, {}, false);
  const auto read = read_npz(dir / "s.npz");
  EXPECT_EQ(read.at("small").known_non_finite(), 2);
  EXPECT_EQ(read.at("empty").known_non_finite(), 0);
  // Stored column by column, turned to row-major order on reading: the same count.
  write_bytes(dir / "f.npy", npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                                       raw_le<float>({1.0f, NAN, 3.0f, INFINITY, 5.0f, 6.0f})));
  const Tensor fortran = read_npy(dir / "f.npy");
  EXPECT_EQ(fortran.known_non_finite(), 2);
  EXPECT_TRUE(std::isnan(fortran.get(3)));  // element (1, 0)
}

TEST(ReadCounts, DataNotCountedAsReadIsLeftToCount) {
  ScratchDir dir;
  std::vector<std::byte> big_endian = raw_le<float>({1.0f, NAN, INFINITY});
  for (std::size_t k = 0; k < big_endian.size(); k += 4)
    std::reverse(big_endian.begin() + static_cast<std::ptrdiff_t>(k),
                 big_endian.begin() + static_cast<std::ptrdiff_t>(k + 4));
  write_bytes(dir / "be.npy",
              npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", big_endian));
  const Tensor be = read_npy(dir / "be.npy");
  EXPECT_EQ(be.known_non_finite(), -1);
  EXPECT_EQ(count_non_finite(be), 2);
  const Tensor t = planted(DType::F32);
  write_npz(dir / "d.npz", {{"t", t}}, {}, true);
  const Tensor deflated = read_npz_member(dir / "d.npz", "t");
  EXPECT_EQ(deflated.known_non_finite(), -1);
  EXPECT_EQ(count_non_finite(deflated), count_non_finite(t));
}

TEST(ReadCounts, AWriteForgetsTheCountAndCopiesKeepIt) {
  ScratchDir dir;
  write_npy(dir / "t.npy", Tensor::from_doubles(DType::F32, {3}, std::vector<double>{1, NAN, 2}));
  const Tensor read = read_npy(dir / "t.npy");
  ASSERT_EQ(read.known_non_finite(), 1);
  Tensor copy = read;
  EXPECT_EQ(copy.known_non_finite(), 1);
  EXPECT_EQ(read.reshaped({3, 1}).known_non_finite(), 1);
  EXPECT_EQ(read.to(DType::F32).known_non_finite(), 1);
  EXPECT_EQ(read.to(DType::F16).known_non_finite(), -1);  // a conversion may overflow to Inf
  copy.set(0, NAN);
  EXPECT_EQ(copy.known_non_finite(), -1);
  EXPECT_EQ(read.known_non_finite(), 1);  // the copy wrote to its own storage
  Tensor sole = read_npy(dir / "t.npy");
  sole.data<float>()[1] = 0.0f;
  EXPECT_EQ(sole.known_non_finite(), -1);
  sole.reset(DType::F32, {3});
  EXPECT_EQ(sole.known_non_finite(), -1);
}

// The note is worded the same whether the count came from the reader, from a pass over a
// tensor made in memory, or from no NaN at all.
TEST(ReadCounts, TheInputNoteReadsTheSame) {
  ScratchDir dir;
  SampleSpec spec;
  spec.shape = {4, 16, 16, 40};
  Problem made = random_problem(spec);
  Tensor& dy = made.inputs.at("y_backprop");
  for (std::int64_t i : {std::int64_t{0}, dy.numel() / 2, dy.numel() - 1}) dy.set(i, NAN);
  made.inputs.at("x").set(7, -INFINITY);
  save_problem(dir / "p.npz", made);
  const Problem loaded = load_problem(dir / "p.npz");
  ASSERT_EQ(loaded.inputs.at("y_backprop").known_non_finite(), 3);
  ASSERT_EQ(made.inputs.at("y_backprop").known_non_finite(), -1);
  const Prepared from_file = prepare(loaded), from_memory = prepare(made);
  ASSERT_EQ(from_file.notes.size(), from_memory.notes.size());
  for (std::size_t k = 0; k < from_file.notes.size(); ++k) {
    EXPECT_EQ(from_file.notes[k].code, from_memory.notes[k].code);
    EXPECT_EQ(from_file.notes[k].message, from_memory.notes[k].message);
  }
  EXPECT_EQ(from_file.non_finite, from_memory.non_finite);
  bool noted = false;
  for (const Note& n : from_file.notes)
    noted |= n.message ==
             "y_backprop holds 3 NaN/Inf value(s); every channel they touch is "
             "poisoned";
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace bnscope::test
