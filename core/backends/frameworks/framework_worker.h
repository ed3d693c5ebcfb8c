#pragma once
// One framework worker (python -m bnscope_worker FRAMEWORK VARIANT in the chosen Python) and
// what it holds: the shared-memory segment of each input it was sent, by the tensor buffer that
// filled it, so a run whose inputs are the same buffers sends only the request (an attr toggled
// re-sends nothing), and one segment per output that the next run reuses.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "ipc/child_process.h"
#include "ipc/shared_memory.h"

namespace bnscope {

struct WorkerSpec {
  std::string backend;    // "tf-eigen": names the worker in messages
  std::string framework;  // "tensorflow" or "torch"
  std::string variant;    // "default", "eigen", "onednn", "xla", "gpu", "cpu", "cuda"
  std::vector<std::pair<std::string, std::string>> env;  // set before the framework's import
};

// What the worker said it runs, from its first reply.
struct WorkerInfo {
  std::string unavailable;  // non-empty: it cannot run here, and why
  std::string framework, version, device, kernel_path, python;
};

class FrameworkWorker {
 public:
  explicit FrameworkWorker(WorkerSpec spec) : spec_(std::move(spec)) {}

  // Starts the worker in `python` when none runs (or the Python changed) and waits for its
  // framework's import (seconds), reporting progress as it waits. Throws Error on a worker that
  // cannot start or dies.
  const WorkerInfo& ensure_started(const std::string& python, const RunContext& ctx);
  const WorkerInfo& info() const { return info_; }
  bool started() { return child_.running(); }
  pid_t pid() const { return child_.pid(); }

  // Runs p into result (outputs allocated here). Throws Error(Unimplemented, "unsupported: ...")
  // for what the framework lacks; a worker that dies, hangs past the time limit or is
  // cancelled is ended, the error says how, and the next run starts a fresh one.
  void run(const Prepared& p, Result& result, const RunContext& ctx);

  // Input bytes copied into shared memory for this worker so far: what a run had to send.
  std::uint64_t bytes_sent() const { return bytes_sent_; }
  // Output bytes the framework's kernel wrote straight into their segments (output lending)
  // so far: the copies a re-run did not make.
  std::uint64_t bytes_in_place() const { return bytes_in_place_; }

  void stop() {
    child_.stop();
    forget_worker_state();
  }

 private:
  struct Held {
    Tensor source;  // shares the buffer the segment was filled from (copy-on-write keeps it)
    ipc::SharedMemory segment;
    long seg_id = 0;
    long version = 0;
  };
  // Shared with the result tensors that adopted it: reused while nothing else holds it.
  struct OutputSegment {
    std::shared_ptr<ipc::SharedMemory> segment;
    long seg_id = 0;
  };
  // Whether a worker must be started for `python`; if so, the old one is stopped and forgotten,
  // and launch() starts the process, its answer to hello still to come (await_start(), which
  // fills info_). `prefetch` names segments the worker maps while it imports its framework.
  bool reset_for_start(const std::string& python);
  void launch(const std::string& prefetch);
  const WorkerInfo& await_start(const RunContext& ctx);
  void forget_worker_state();
  long next_id() { return ++ids_; }

  WorkerSpec spec_;
  std::string python_;
  ipc::ChildProcess child_;
  WorkerInfo info_;
  std::map<std::string, Held> held_;
  OutputSegment& output_segment(const std::string& name, std::size_t bytes);

  std::map<std::string, std::vector<OutputSegment>> outputs_;  // at most two per output
  std::vector<long> released_;  // segments dropped since the last request
  // Set when a worker found the framework holding a block it was lent: from then on this
  // backend's workers start without output lending.
  bool lending_broken_ = false;
  long ids_ = 0;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t bytes_in_place_ = 0;
};

// Seconds a worker may take to answer one request: $BNSCOPE_WORKER_TIMEOUT, else 600.
double worker_time_limit_seconds();

}  // namespace bnscope
