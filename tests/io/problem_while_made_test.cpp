// save_problem_while_made against save_problem: the same bytes whether or not the early members
// went out beside the rest of the work and the last input came in slices from reused buffers,
// and the earlier file kept, with no temporary and no thread left waiting, when either the work
// or the writing fails.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "io_test_util.h"
#include "ops/problem_io.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

SampleSpec spec_of(const std::string& op, DataFormat format, DType dtype,
                   Shape shape = {3, 5, 4, 7}) {
  SampleSpec s;
  s.op = op;
  s.format = format;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.seed = 11;
  return s;
}

// save_problem_while_made with random_problem handing the gradient input in slices; the buffers
// the slices came from go to `buffers`.
void save_sampled(const std::string& path, const SampleSpec& spec,
                  std::set<const void*>* buffers = nullptr) {
  const OpSpec& op = *find_op(spec.op);
  const std::string last(op.is_grad ? op.gradient_input() : "");
  save_problem_while_made(path, last, [&](ProblemStream& stream) {
    SampleHooks hooks;
    hooks.before_gradient = [&](const Problem& p) { stream.started(p); };
    hooks.gradient_slice = [&](const TensorSlice& s) {
      if (buffers) buffers->insert(std::as_const(s.buffer).raw());
      stream.last_slice(s);
    };
    Problem p = random_problem(spec, hooks);
    EXPECT_EQ(p.inputs.count(last), 0u) << "a gradient handed in slices is not kept";
    return p;
  });
}

TEST(ProblemWhileMade, SameBytesAsSaveProblem) {
  test::ScratchDir dir;
  struct Case {
    const char* op;
    DataFormat format;
    DType dtype;
  };
  const Case cases[] = {{"FusedBatchNormGradV3", DataFormat::NHWC, DType::F32},
                        {"FusedBatchNormGradV3", DataFormat::NCHW, DType::F16},
                        {"FusedBatchNormGradV2", DataFormat::NCHW, DType::BF16},
                        {"FusedBatchNormGrad", DataFormat::NHWC, DType::F32},
                        {"BatchNormWithGlobalNormalizationGrad", DataFormat::NHWC, DType::F64},
                        {"FusedBatchNormV3", DataFormat::NCHW, DType::BF16}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    SampleSpec spec = spec_of(c.op, c.format, c.dtype);
    save_problem(dir / "plain.npz", random_problem(spec));
    const std::string plain = bytes_of(dir / "plain.npz");
    // One slice, then slices of one row, of a few rows, and smaller than a row.
    for (const std::size_t slice : {std::size_t{8} << 20, std::size_t{1}, std::size_t{100}}) {
      spec.slice_bytes = slice;
      save_sampled(dir / "made.npz", spec);
      EXPECT_EQ(bytes_of(dir / "made.npz"), plain) << slice;
    }
    // Nothing written early: every member after the work.
    const OpSpec& op = *find_op(c.op);
    save_problem_while_made(dir / "late.npz", std::string(op.is_grad ? op.gradient_input() : ""),
                            [&](ProblemStream&) { return random_problem(spec); });
    EXPECT_EQ(bytes_of(dir / "late.npz"), plain);
  }
}

// Many slices through two buffers: each buffer is refilled only once the writer is done with it
// (else the bytes would differ), and the writer holds no share of a buffer by then (else the
// refill would be a private copy at a new address).
TEST(ProblemWhileMade, SlicesFromTwoReusedBuffersGiveTheSameBytes) {
  test::ScratchDir dir;
  for (const DataFormat format : {DataFormat::NHWC, DataFormat::NCHW}) {
    for (const DType dtype : {DType::F16, DType::F64}) {
      SampleSpec spec = spec_of("FusedBatchNormGradV3", format, dtype, {6, 9, 7, 5});
      save_problem(dir / "plain.npz", random_problem(spec));
      spec.slice_bytes = 3 * 9 * 7 * 5 * dtype_size(dtype) / 4;  // odd row counts per slice
      for (const int threads : {1, 2, 3}) {
        spec.threads = threads;
        std::set<const void*> buffers;
        save_sampled(dir / "made.npz", spec, &buffers);
        EXPECT_EQ(bytes_of(dir / "made.npz"), bytes_of(dir / "plain.npz"));
        EXPECT_EQ(buffers.size(), 2u);
      }
    }
  }
  // An empty gradient input is one empty slice.
  const SampleSpec empty =
      spec_of("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32, {2, 0, 3, 4});
  save_problem(dir / "plain.npz", random_problem(empty));
  save_sampled(dir / "made.npz", empty);
  EXPECT_EQ(bytes_of(dir / "made.npz"), bytes_of(dir / "plain.npz"));
}

// A maker that hands the gradient input of `spec` in slices of `slice` bytes from two buffers,
// calling `after(k)` once slice k is handed.
Problem made_by_hand(ProblemStream& stream, const SampleSpec& spec, std::size_t slice,
                     const std::function<void(std::size_t)>& after) {
  Problem whole = random_problem(spec);
  const Tensor y = whole.inputs.at("y_backprop");
  whole.inputs.erase("y_backprop");
  stream.started(whole);
  Tensor buffers[2] = {Tensor(DType::F32, {static_cast<std::int64_t>(slice / 4)}),
                       Tensor(DType::F32, {static_cast<std::int64_t>(slice / 4)})};
  const auto* from = static_cast<const std::byte*>(y.raw());
  std::size_t k = 0;
  for (std::size_t at = 0; at < y.nbytes(); at += slice, ++k) {
    const std::size_t n = std::min(slice, y.nbytes() - at);
    Tensor& b = buffers[k % 2];
    std::memcpy(b.raw(), from + at, n);
    stream.last_slice({y.dtype(), y.shape(), at, b, n});
    after(k);
  }
  return whole;
}

TEST(ProblemWhileMade, FailedWorkKeepsTheEarlierFile) {
  test::ScratchDir dir;
  SampleSpec spec = spec_of("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32);
  save_problem(dir / "p.npz",
               random_problem(spec_of("FusedBatchNormV3", DataFormat::NHWC, DType::F32)));
  const std::string before = bytes_of(dir / "p.npz");
  const auto expect_unchanged = [&] {
    EXPECT_EQ(bytes_of(dir / "p.npz"), before);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.npz"});
  };
  // Failing after the early members went out, before any slice and after a few of them.
  spec.slice_bytes = 64;
  for (const int fail_at : {-1, 0, 3}) {
    SCOPED_TRACE(fail_at);
    EXPECT_THROW(save_problem_while_made(dir / "p.npz", "y_backprop",
                                         [&](ProblemStream& stream) -> Problem {
                                           SampleHooks hooks;
                                           hooks.before_gradient = [&](const Problem& p) {
                                             stream.started(p);
                                             if (fail_at < 0) throw std::runtime_error("no x");
                                           };
                                           int k = 0;
                                           hooks.gradient_slice = [&](const TensorSlice& s) {
                                             if (k++ == fail_at) throw std::runtime_error("no y");
                                             stream.last_slice(s);
                                           };
                                           return random_problem(spec, hooks);
                                         }),
                 std::runtime_error);
    expect_unchanged();
  }
  // The maker stops while the writer waits for the next slice: the writer is cancelled, and the
  // maker's error is the one reported.
  EXPECT_THROW(save_problem_while_made(dir / "p.npz", "y_backprop",
                                       [&](ProblemStream& stream) {
                                         return made_by_hand(stream, spec, 128, [](std::size_t k) {
                                           if (k == 1) throw std::runtime_error("stopped");
                                         });
                                       }),
               std::runtime_error);
  expect_unchanged();
  // A maker that returns before handing the whole gradient input.
  test::expect_error(
      [&] {
        save_problem_while_made(dir / "p.npz", "y_backprop", [&](ProblemStream& stream) {
          Problem p;
          EXPECT_THROW(made_by_hand(stream, spec, 128,
                                    [](std::size_t k) {
                                      if (k == 2) throw std::runtime_error("stopped");
                                    }),
                       std::runtime_error);
          p = random_problem(spec);
          p.inputs.erase("y_backprop");
          return p;
        });
      },
      {"y_backprop", "declared size"});
  expect_unchanged();
}

// The file-size limit fails a write as a full disk does (EFBIG, SIGXFSZ ignored), here on the
// writer thread: with the limit inside the early members or inside the gradient input, while the
// maker waits for a buffer. The writer's error reaches the maker, which stops; nothing waits for
// ever, and the earlier file stays.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit r = old_;
    r.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_{};
  sighandler_t old_handler_{};
};

TEST(ProblemWhileMade, FailedWritingStopsTheMakerAndKeepsTheEarlierFile) {
  test::ScratchDir dir;
  SampleSpec spec = spec_of("FusedBatchNormGradV3", DataFormat::NHWC, DType::F32, {4, 16, 16, 32});
  save_problem(dir / "p.npz",
               random_problem(spec_of("FusedBatchNormV3", DataFormat::NHWC, DType::F32)));
  const std::string before = bytes_of(dir / "p.npz");
  // x is 128 KiB and sorts just before y_backprop.
  for (const rlim_t limit : {rlim_t{16} << 10, rlim_t{200} << 10}) {
    SCOPED_TRACE(limit);
    int slices_handed = 0;
    {
      const FileSizeLimit limited(limit);
      spec.slice_bytes = 4096;
      test::expect_error([&] { save_sampled(dir / "p.npz", spec); }, {"cannot write", "p.npz"});
      // A maker handing slices hears of the failure at its next slice.
      test::expect_error(
          [&] {
            save_problem_while_made(dir / "p.npz", "y_backprop", [&](ProblemStream& stream) {
              return made_by_hand(stream, spec, 8192, [&](std::size_t) { ++slices_handed; });
            });
          },
          {"cannot write"});
    }
    EXPECT_LT(slices_handed, 16);  // the gradient input is 128 KiB: 16 slices
    EXPECT_EQ(bytes_of(dir / "p.npz"), before);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"p.npz"});
  }
}

}  // namespace
}  // namespace bnscope
