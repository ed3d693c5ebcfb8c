#pragma once
// A validated problem: the catalog row, resolved attrs, inputs converted to the op's declared
// types, and every note about the inputs (validation, TF-compat, NaN/Inf inputs, reserve spaces
// that do not fit x), attached once by prepare(). Backends take only this and never validate
// again.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/moments.h"
#include "ops/note.h"
#include "ops/problem.h"
#include "tensor/error.h"
#include "tensor/layout.h"

namespace bnscope {

struct Prepared {
  // This preparation, one number per prepare() call in the process (0: made otherwise): a run's
  // Result names it (Result::prepared), so a profile knows the set it reuses was written by the
  // same backend for this very problem.
  std::uint64_t id = 0;
  const OpSpec* op = nullptr;
  DType t = DType::F32;  // data type
  DType u = DType::F32;  // statistics type (scale, reserve spaces, per-channel outputs)
  int rank = 4;
  DataFormat format = DataFormat::NHWC;  // as given; indexing uses channels_last and rank
  bool channels_last = true;
  ChannelView view;       // of x (t for the global ops)
  double epsilon = 1e-4;  // epsilon or variance_epsilon, rounded to float as TensorFlow does
  bool is_training = true;
  double exponential_avg_factor = 1.0;
  bool scale_after_normalization = true;
  ReserveConvention convention = ReserveConvention::Variance;
  std::vector<Tensor> inputs;  // catalog order
  std::vector<Note> notes;
  // What the input notes read from the values: the NaN/Inf count of each input (catalog order)
  // and, when the reserve spaces were checked, x's moments through `view`. A later prepare()
  // given this one takes them for the same buffers instead of reading 100s of MB again.
  std::vector<std::int64_t> non_finite;
  std::optional<ChannelMoments> x_moments;
  // The input each converted input was made from (catalog order; empty where it was taken as
  // given): a later prepare() given this one takes the conversion of the same buffer in the same
  // layout instead of converting hundreds of MB again. Held, not watched: a write to the source
  // then copies it (copy on write) instead of changing what the conversion was made from.
  std::vector<Tensor> converted_from;

  const Tensor& in(std::string_view name) const;
  std::int64_t channels() const { return view.channels; }
  std::int64_t per_channel() const { return view.per_channel(); }
  bool empty() const { return view.channels == 0 || view.per_channel() == 0; }
  // Training-mode reserve_space_2 read as 1/sqrt(var + eps) instead of the variance.
  bool reserve_is_inv_std() const {
    return op->is_grad && is_training && convention == ReserveConvention::InvStd;
  }
};

// Mirrors TensorFlow's checks and messages (spec sections 3.2, 3.7, 5) plus those TensorFlow
// lacked (its advisories); throws Error(InvalidArgument) with a one-line message. Attaches the
// input notes (ops/input_health.h) last, once.
// earlier: a problem prepared before (the app's previous run), whose readings of inputs that
// are still the same buffers are taken as they are: a buffer's values change only through a copy
// (Tensor's copy-on-write) or by a permutation in place (a layout change), which keeps its
// NaN/Inf count; x's moments are taken only through the same shape and view, and a converted
// input only from the same buffer, shape and data_format (an in-place permutation comes with a
// new data_format).
Prepared prepare(const Problem& problem, const Prepared* earlier = nullptr);

struct ValidationProblem {
  std::string subject;  // the input or attr it is about; empty for the op as a whole
  std::string message;  // worded as prepare() words it (the neutral wording of parts)
  ErrorParts parts;     // the structure of an error about an option (strict mode), else empty
};

// Every problem that stops prepare(), in the order prepare() meets them, so the first is the
// error prepare() throws, word for word; empty when prepare() succeeds. The same checks as
// prepare() (the catalog's inputs and attrs), going on past each failure; a check is skipped
// where an earlier problem makes it meaningless (counts against the channels of a wrong-rank x).
std::vector<ValidationProblem> validation_problems(const Problem& problem);

}  // namespace bnscope
