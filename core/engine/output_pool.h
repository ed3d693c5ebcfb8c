#pragma once
// The output sets of finished runs that nothing reads any more, held for the next run to write
// into: on a real layer that spares it faulting in fresh pages (hundreds of megabytes). The app
// gives a replaced outcome's runs here and clears them after a while without a run; the pipeline
// takes one per backend run, and a profile one for all its repetitions, given back after them.
// Nothing else reaches the buffers while they are held.

#include <cstddef>
#include <mutex>
#include <vector>

#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

class OutputPool {
 public:
  // Holds these runs' output sets instead of what it held; a set whose first buffer something
  // else still holds is dropped (writing into it would change what that reader sees).
  void replace(std::vector<Result> runs);
  // Holds one more set, the next take()'s (the same rule: dropped when shared).
  void give(Result run);
  // One held set for a run to write into (run_prepared_into reuses the buffers whose dtype and
  // size match), none of whose buffers is out as scratch; an empty Result when there is none.
  Result take();
  std::vector<Result> take_all();
  // Lets go of every held set whose data output could not be written by a run of p (another
  // dtype or size: a run after a dtype change), which would otherwise be held beside the new
  // run's own buffers.
  void keep_fitting(const Prepared& p);
  void clear();
  bool empty() const;
  // A copy of what is held (the handles, not the data), for tests and the app's status.
  std::vector<Result> held() const;
  // The largest buffer held, shared, for scratch space that the next run overwrites anyway; an
  // empty Tensor when none.
  Tensor largest_buffer() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Result> held_;
};

// Whether r holds the data output a run of p writes (its dtype and size, as allocate_outputs
// makes it): a run of p writes into r's buffers rather than fresh ones.
bool fits_outputs(const Result& r, const Prepared& p);

// The process's one pool.
OutputPool& output_pool();

}  // namespace bnscope
