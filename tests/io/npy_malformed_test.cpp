// Every malformed .npy gives an Error naming the file and the problem, never a crash or a read
// out of bounds (run under the sanitizers build to check the latter).

#include <gtest/gtest.h>

#include <fstream>

#include "io/npy.h"
#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;
using test::npy_bytes;

const std::string kF4x6 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

std::vector<std::byte> header_with(const std::string& dict) {
  return npy_bytes(dict, {});
}

void expect_bad_header(const std::string& dict, const std::string& problem) {
  SCOPED_TRACE(dict);
  const auto bytes = header_with(dict);
  expect_error([&] { parse_npy(bytes, "bad.npy"); }, {"bad.npy", problem});
}

TEST(NpyMalformed, TruncatedData) {
  const auto bytes = npy_bytes(kF4x6, std::vector<std::byte>(20));
  expect_error([&] { parse_npy(bytes, "short.npy"); },
               {"short.npy", "truncated .npy data", "needs 24 bytes", "has 20"});
}

TEST(NpyMalformed, TrailingData) {
  const auto bytes = npy_bytes(kF4x6, std::vector<std::byte>(28));
  expect_error([&] { parse_npy(bytes, "long.npy"); }, {"long.npy", "4 unexpected bytes"});
}

TEST(NpyMalformed, TruncatedHeader) {
  const auto full = npy_bytes(kF4x6, std::vector<std::byte>(24));
  for (std::size_t n : {1, 5, 8, 9}) {
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<long>(n));
    expect_error([&] { parse_npy(cut, "cut.npy"); }, {"cut.npy", "truncated .npy header"});
  }
  auto v2 = npy_bytes(kF4x6, {}, 2);
  v2.resize(11);
  expect_error([&] { parse_npy(v2, "cut2.npy"); }, {"cut2.npy", "expected at least 12"});
}

TEST(NpyMalformed, HeaderLenBeyondFile) {
  auto bytes = npy_bytes(kF4x6, std::vector<std::byte>(24));
  bytes[8] = std::byte{0xe8};  // header_len = 1000
  bytes[9] = std::byte{0x03};
  expect_error([&] { parse_npy(bytes, "len.npy"); },
               {"len.npy", "header_len is 1000", "only 142 bytes follow"});
  auto v2 = npy_bytes(kF4x6, {}, 2);
  v2[11] = std::byte{0xff};  // header_len > 4 GiB - 16 MiB
  expect_error([&] { parse_npy(v2, "len2.npy"); }, {"len2.npy", "truncated .npy header"});
}

TEST(NpyMalformed, EveryPrefixOfAValidFileIsRejected) {
  const auto full = npy_bytes(kF4x6, std::vector<std::byte>(24));
  for (std::size_t n = 0; n < full.size(); ++n) {
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<long>(n));
    EXPECT_THROW(parse_npy(cut, "cut.npy"), Error) << n;
  }
}

TEST(NpyMalformed, LyingShape) {
  const auto bytes =
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }",
                std::vector<std::byte>(8));
  expect_error([&] { parse_npy(bytes, "liar.npy"); },
               {"liar.npy", "truncated .npy data", "8000000000000 bytes", "has 8"});
}

TEST(NpyMalformed, HugeShape) {
  expect_bad_header(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
      "more than 2^63 elements");
  // The element count fits, the byte count does not.
  const auto bytes =
      header_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483648, 2147483648), }");
  expect_error([&] { parse_npy(bytes, "huge.npy"); }, {"huge.npy", "more than 2^63 bytes"});
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                    "integer out of range");
}

TEST(NpyMalformed, NegativeDimension) {
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
                    "negative dimension -3");
}

TEST(NpyMalformed, NonNumericDescr) {
  expect_bad_header("{'descr': '<U8', 'fortran_order': False, 'shape': (1,), }",
                    "unsupported dtype '<U8' (strings)");
  expect_bad_header("{'descr': 4, 'fortran_order': False, 'shape': (1,), }",
                    "'descr' must be a string");
}

TEST(NpyMalformed, MissingKeys) {
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, }", "missing key 'shape'");
  expect_bad_header("{'descr': '<f4', 'shape': (1,), }", "missing key 'fortran_order'");
  expect_bad_header("{'fortran_order': False, 'shape': (1,), }", "missing key 'descr'");
  expect_bad_header("{}", "missing key");
}

TEST(NpyMalformed, ExtraAndDuplicateKeys) {
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
                    "unexpected key 'x'");
  expect_bad_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
                    "duplicate key 'descr'");
}

TEST(NpyMalformed, WrongValueTypes) {
  expect_bad_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }",
                    "'fortran_order' must be True or False");
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }",
                    "'shape' must be a tuple");
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }",
                    "'shape' must be a tuple");
  expect_bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, '3'), }",
                    "'shape' must be a tuple of integers");
}

TEST(NpyMalformed, GarbagePythonLiteralSyntax) {
  const std::string cases[] = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': <f4, 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}",
      "{'descr': '<f4', 'fortran_order': false, 'shape': (2, 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3.5)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,, 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (02, 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}}",
      "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (2, 3)}",
      "__import__('os').system('true')",
      "[1, 2]",
      std::string(100, '(') + std::string(100, ')'),
      std::string("{'descr': '<f4'\0, 'shape': ()}", 30),
      "\xff\xfe garbage \x01",
  };
  for (const std::string& h : cases) {
    SCOPED_TRACE(h);
    const auto bytes = header_with(h);
    expect_error([&] { parse_npy(bytes, "junk.npy"); }, {"junk.npy", "malformed .npy header"});
  }
}

TEST(NpyMalformed, BadMagicAndVersion) {
  auto bytes = npy_bytes(kF4x6, std::vector<std::byte>(24));
  bytes[1] = std::byte{'n'};
  expect_error([&] { parse_npy(bytes, "magic.npy"); }, {"magic.npy", "not a .npy file"});
  bytes = npy_bytes(kF4x6, std::vector<std::byte>(24));
  bytes[6] = std::byte{4};
  expect_error([&] { parse_npy(bytes, "ver.npy"); },
               {"ver.npy", "unsupported .npy format version 4.0"});
  bytes[6] = std::byte{1};
  bytes[7] = std::byte{1};
  expect_error([&] { parse_npy(bytes, "ver.npy"); }, {"ver.npy", "version 1.1"});
}

TEST(NpyMalformed, FilesOnDiskNameTheirPath) {
  test::ScratchDir dir;
  const std::string empty = dir / "empty.npy";
  std::ofstream(empty).close();
  expect_error([&] { read_npy(empty); }, {empty, "empty file"});
  const std::string text = dir / "text.npy";
  std::ofstream(text) << "x,y\n1,2\n";
  expect_error([&] { read_npy(text); }, {text, "not a .npy file"});
  expect_error([&] { read_npy(dir / "missing.npy"); }, {"missing.npy", "cannot open"});
  expect_error([&] { read_npy(dir.path().string()); }, {dir.path().string()});
}

TEST(NpyMalformed, EveryHeaderByteMutationIsHandled) {
  const auto full = npy_bytes(kF4x6, std::vector<std::byte>(24));
  int accepted = 0;
  for (std::size_t at = 0; at < 74; ++at) {
    for (unsigned value : {0x00u, 0x20u, 0x27u, 0x28u, 0x2cu, 0x2du, 0x39u, 0x7bu, 0x7du, 0xffu}) {
      auto bytes = full;
      bytes[at] = std::byte{static_cast<unsigned char>(value)};
      try {
        const Tensor t = parse_npy(bytes, "mut.npy");
        EXPECT_LE(t.nbytes(), bytes.size());
        ++accepted;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("mut.npy"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(accepted, 0) << "harmless changes (spaces, digits of equal size) still load";
}

}  // namespace
}  // namespace bnscope
