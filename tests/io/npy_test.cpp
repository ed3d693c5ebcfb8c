#include "io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;
using test::fixture;
using test::grid;

const Shape kShapes[] = {{}, {3}, {2, 3}, {2, 1, 3}, {1, 2, 3, 2}, {2, 1, 2, 1, 3}, {0, 3}};

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  for (DType dtype : kAllDTypes) {
    for (const Shape& shape : kShapes) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + shape_str(shape));
      const Tensor t = grid(dtype, shape);
      const std::vector<std::byte> bytes = serialize_npy(t);
      EXPECT_EQ((bytes.size() - t.nbytes()) % 64, 0u) << "numpy aligns the data to 64 bytes";
      test::expect_same_tensor(parse_npy(bytes, "mem"), t);
    }
  }
}

TEST(Npy, RoundTripsThroughAFile) {
  test::ScratchDir dir;
  for (DType dtype : kAllDTypes) {
    const Tensor t = grid(dtype, {2, 3, 4});
    write_npy(dir / "t.npy", t);
    test::expect_same_tensor(read_npy(dir / "t.npy"), t);
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"t.npy"});
}

TEST(Npy, KeepsNanInfAndNegativeZeroBits) {
  const double values[] = {std::nan(""), INFINITY, -INFINITY, -0.0, 1e-300};
  for (DType dtype : kAllDTypes) {
    const Tensor t = Tensor::from_doubles(dtype, {5}, values);
    test::expect_same_tensor(parse_npy(serialize_npy(t), "mem"), t);
  }
}

// Byte-identical to what numpy writes, so files go both ways.
TEST(Npy, WritesWhatNumpyWrites) {
  const auto numpy_f4 = read_file_bytes(fixture("v1_f4.npy"));
  EXPECT_EQ(serialize_npy(grid(DType::F32, {2, 3, 4})), numpy_f4);

  const double bf[] = {1.5, -2.0, 3.0, 0.1, 65280.0, -0.0};
  const auto ml_dtypes_bf16 = read_file_bytes(fixture("bf16_ml_dtypes.npy"));
  EXPECT_EQ(serialize_npy(Tensor::from_doubles(DType::BF16, {2, 3}, bf)), ml_dtypes_bf16);
}

TEST(Npy, ReadsBfloat16WrittenByMlDtypes) {
  const Tensor t = read_npy(fixture("bf16_ml_dtypes.npy"));
  ASSERT_EQ(t.dtype(), DType::BF16);
  ASSERT_EQ(t.shape(), (Shape{2, 3}));
  const bf16* v = t.data<bf16>();
  EXPECT_EQ(to_float(v[0]), 1.5f);
  EXPECT_EQ(to_float(v[1]), -2.0f);
  EXPECT_EQ(to_float(v[2]), 3.0f);
  EXPECT_EQ(v[3].bits, float_to_bf16_bits(0.1f));
  EXPECT_EQ(to_float(v[4]), 65280.0f);
  EXPECT_EQ(v[5].bits, 0x8000);  // -0.0
}

TEST(Npy, ReadsHeaderVersions1To3) {
  const Tensor expected = grid(DType::F32, {2, 3, 4});
  for (int v = 1; v <= 3; ++v) {
    SCOPED_TRACE(v);
    const std::string path = fixture(std::string("v") + std::to_string(v) + "_f4.npy");
    EXPECT_EQ(std::to_integer<int>(read_file_bytes(path)[6]), v);
    test::expect_same_tensor(read_npy(path), expected);
  }
}

TEST(Npy, ReadsBigEndian) {
  test::expect_same_tensor(read_npy(fixture("be_f8.npy")), grid(DType::F64, {2, 3, 4}));
  test::expect_same_tensor(read_npy(fixture("be_f2.npy")), grid(DType::F16, {2, 3, 4}));
  expect_error([] { read_npy(fixture("be_i4.npy")); }, {"be_i4.npy", "int32 ('>i4')"});
}

TEST(Npy, TransposesFortranOrderToCOrder) {
  test::expect_same_tensor(read_npy(fixture("fortran_f4.npy")), grid(DType::F32, {2, 3, 4}));
  // Hand-made 2x3 float64 in column-major order: columns (1, 4), (2, 5), (3, 6).
  const auto bytes = test::npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                                     test::raw_le<double>({1, 4, 2, 5, 3, 6}));
  const Tensor t = parse_npy(bytes, "f.npy");
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.to_doubles(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

// No TensorFlow kernel of these ops takes integers or bool: reading them as floats would run
// the op in a dtype nobody asked for.
TEST(Npy, RefusesIntegersAndBoolNamingTheirDtype) {
  for (const auto& [code, name] :
       {std::pair{"i1", "int8"}, std::pair{"i2", "int16"}, std::pair{"i4", "int32"},
        std::pair{"i8", "int64"}, std::pair{"u1", "uint8"}, std::pair{"u2", "uint16"},
        std::pair{"u4", "uint32"}, std::pair{"u8", "uint64"}}) {
    SCOPED_TRACE(code);
    const std::string path = fixture(std::string("int_") + code + ".npy");
    expect_error([&] { read_npy(path); }, {path, std::string("dtype ") + name, "float32"});
    try {
      read_npy(path);
    } catch (const UnsupportedDTypeError& e) {
      EXPECT_EQ(e.dtype(), name);
    }
  }
  expect_error([] { read_npy(fixture("bool.npy")); }, {"bool.npy", "dtype bool"});
}

TEST(Npy, AcceptsHeaderSpellingsNumpyAccepts) {
  const auto data = test::raw_le<float>({1, 2});
  for (const std::string header : {
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
           "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}",
           "{ 'descr' : '=f4' ,\n 'fortran_order' : False , 'shape' : ( 2 , ) }",
       }) {
    SCOPED_TRACE(header);
    EXPECT_EQ(parse_npy(test::npy_bytes(header, data), "ok.npy").to_doubles(),
              (std::vector<double>{1, 2}));
  }
  const auto scalar = test::npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                      test::raw_le<double>({7}));
  const Tensor s = parse_npy(scalar, "scalar.npy");
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.get(0), 7.0);
}

TEST(Npy, ReadsEveryTwoByteVoidAsBfloat16) {
  const std::vector<std::byte> le = test::raw_le<std::uint16_t>({0x3fc0, 0xc000});  // 1.5, -2
  const std::vector<std::byte> be = {std::byte{0x3f}, std::byte{0xc0}, std::byte{0xc0},
                                     std::byte{0x00}};
  for (const auto& [descr, data] :
       {std::pair{std::string("<V2"), le}, std::pair{std::string("|V2"), le},
        std::pair{std::string(">V2"), be}}) {
    SCOPED_TRACE(descr);
    const Tensor t =
        parse_npy(test::npy_bytes(
                      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }", data),
                  "bf.npy");
    ASSERT_EQ(t.dtype(), DType::BF16);
    EXPECT_EQ(t.to_doubles(), (std::vector<double>{1.5, -2.0}));
  }
}

TEST(Npy, RejectsUnsupportedDtypesByName) {
  const struct {
    std::string descr;
    std::string why;
  } cases[] = {{"'<c8'", "complex"},
               {"'<c16'", "complex"},
               {"'|O'", "python objects"},
               {"'<U3'", "strings"},
               {"'|S4'", "strings"},
               {"'<M8[ns]'", "unsupported dtype"},
               {"'|V8'", "raw void"},
               {"'<f16'", "floats"},
               {"'hello'", "unsupported dtype"},
               {"[('a', '<f4'), ('b', '<f4')]", "structured"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.descr);
    const auto bytes =
        test::npy_bytes("{'descr': " + c.descr + ", 'fortran_order': False, 'shape': (1,), }", {});
    expect_error([&] { parse_npy(bytes, "typed.npy"); }, {"typed.npy", "unsupported dtype", c.why});
  }
}

}  // namespace
}  // namespace bnscope
