#include "backends/frameworks/framework_worker.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <thread>

#include "backends/frameworks/python_choice.h"
#include "ipc/json_channel.h"
#include "ipc/segment_fill.h"
#include "ops/outputs.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

using Seconds = std::chrono::duration<double>;
// TensorFlow's import is seconds on a warm cache, tens of seconds on a cold one: the first reply
// may take this long before the worker counts as hung.
constexpr std::chrono::seconds kStartLimit{300};
constexpr double kTypicalStartSeconds = 8;
// Segments below this are mapped when a run names them: a few pages, no time to hide.
constexpr std::size_t kPrefetchFrom = std::size_t{1} << 20;

// The worker copies each output into its segment (numpy's copyto: glibc's memcpy on two
// threads). glibc streams a copy (non-temporal stores) only above a share of the last-level
// cache, and a VM reports the whole host's, 260 MB on the Emerald Rapids VM: a 103 MB dx went
// through the cache in halves, 10-12 ms where streamed it takes 7 ms, a third of what a re-run
// of tf-onednn added to its 26 ms kernel. The bytes are for this process, not the worker's
// cache: the worker streams every copy of 4 MiB or more. The user's own GLIBC_TUNABLES come
// after ours, and win.
std::string worker_glibc_tunables() {
  std::string t = "glibc.cpu.x86_non_temporal_threshold=0x400000";
  if (const char* own = std::getenv("GLIBC_TUNABLES"); own && *own) t += ":" + std::string(own);
  return t;
}

double now() {
  return Seconds(std::chrono::steady_clock::now().time_since_epoch()).count();
}

JsonValue str(std::string_view s) {
  return JsonValue::of(std::string(s));
}

JsonValue shape_json(const Shape& s) {
  JsonValue a;
  a.kind = JsonValue::Kind::Array;
  for (std::int64_t d : s) a.items.push_back(JsonValue::of(static_cast<double>(d)));
  return a;
}

JsonValue attrs_json(const Prepared& p) {
  JsonValue a = JsonValue::object();
  for (const AttrSpec& spec : p.op->attrs) {
    const std::string_view n = spec.name;
    if (n == "epsilon" || n == "variance_epsilon")
      a.add(std::string(n), JsonValue::of(p.epsilon));
    else if (n == "data_format")
      a.add("data_format", str(data_format_name(p.format)));
    else if (n == "is_training")
      a.add("is_training", JsonValue::of(p.is_training));
    else if (n == "exponential_avg_factor")
      a.add("exponential_avg_factor", JsonValue::of(p.exponential_avg_factor));
    else if (n == "scale_after_normalization")
      a.add("scale_after_normalization", JsonValue::of(p.scale_after_normalization));
  }
  return a;
}

std::string get_string(const JsonValue& v, std::string_view key) {
  const JsonValue* m = v.find(key);
  return m && m->kind == JsonValue::Kind::String ? m->string : std::string();
}

double get_number(const JsonValue& v, std::string_view key) {
  const JsonValue* m = v.find(key);
  return m && m->kind == JsonValue::Kind::Number ? m->number : 0.0;
}

}  // namespace

double worker_time_limit_seconds() {
  if (const char* env = std::getenv("BNSCOPE_WORKER_TIMEOUT"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end && *end == '\0' && v > 0) return v;
    fail("BNSCOPE_WORKER_TIMEOUT=" + clip_for_message(env) +
         ": expected a positive number of seconds");
  }
  return 600;
}

FrameworkWorker::OutputSegment& FrameworkWorker::output_segment(const std::string& name,
                                                                std::size_t bytes) {
  // The worker writes the output into a segment the result then holds as its storage: no copy
  // on this side. A segment an earlier result still holds (the app shows one) is left to it;
  // two are kept for each output, the shown result's and the one a run writes into.
  std::vector<OutputSegment>& kept = outputs_[name];
  for (OutputSegment& s : kept)
    if (s.segment->size() == bytes && s.segment.use_count() == 1) return s;
  // Every one of this size is held: a new one beside the newest (others go, and so do those of
  // another size).
  const auto drop = [&](auto it) {
    released_.push_back(it->seg_id);
    return kept.erase(it);
  };
  for (auto it = kept.begin(); it != kept.end();)
    it = it->segment->size() != bytes ? drop(it) : std::next(it);
  if (kept.size() >= 2) drop(kept.begin());
  kept.push_back({std::make_shared<ipc::SharedMemory>(
                      ipc::SharedMemory::create(bytes, spec_.backend + "-" + name)),
                  next_id()});
  return kept.back();
}

void FrameworkWorker::forget_worker_state() {
  // A new worker maps nothing yet: every input is sent again, every segment named again.
  held_.clear();
  outputs_.clear();
  released_.clear();
}

const WorkerInfo& FrameworkWorker::ensure_started(const std::string& python,
                                                  const RunContext& ctx) {
  if (reset_for_start(python)) {
    launch("");
    await_start(ctx);
  }
  return info_;
}

bool FrameworkWorker::reset_for_start(const std::string& python) {
  if (child_.running() && python == python_) return false;
  if (!info_.unavailable.empty() && python == python_ && !child_.running()) {
    // It said it cannot run in this Python; asking again would import again for the same answer.
    return false;
  }
  child_.stop();
  forget_worker_state();
  info_ = {};
  python_ = python;
  return true;
}

void FrameworkWorker::launch(const std::string& prefetch) {
  const std::string& python = python_;
  ipc::ChildSpec cs;
  cs.argv = {python, "-m", "bnscope_worker", spec_.framework, spec_.variant};
  const char* pp = std::getenv("PYTHONPATH");
  cs.env = spec_.env;
  cs.env.emplace_back("PYTHONPATH",
                      worker_package_dir() + (pp && *pp ? ":" + std::string(pp) : ""));
#if defined(__x86_64__)
  cs.env.emplace_back("GLIBC_TUNABLES", worker_glibc_tunables());
#endif
  // Not beside a library the user preloads: ours would send its allocations to glibc's, not to
  // the allocator that library may bring (tcmalloc, jemalloc); the outputs are copied instead.
  const char* own = std::getenv("LD_PRELOAD");
  if (std::string lending = worker_lending_library();
      !lending.empty() && !lending_broken_ && !(own && *own))
    cs.env.emplace_back("LD_PRELOAD", lending);
  if (!prefetch.empty()) cs.env.emplace_back("BNSCOPE_WORKER_PREFETCH", prefetch);
  cs.what = spec_.backend + " worker (" + python + ")";
  child_.start(cs);
}

const WorkerInfo& FrameworkWorker::await_start(const RunContext& ctx) {
  std::atomic<bool> answered{false};
  std::thread ticker;
  if (ctx.progress)
    ticker = std::thread([&] {  // the import's progress is only time: a curve that never reaches 1
      const double t0 = now();
      while (!answered.load()) {
        const double t = now() - t0;
        ctx.progress(0.9 * t / (t + kTypicalStartSeconds));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  JsonValue hello = JsonValue::object();
  hello.add("cmd", str("hello"));
  JsonValue r;
  try {
    ipc::send_json(child_, hello, std::chrono::seconds(10), ctx.cancel);
    r = ipc::receive_json(child_, kStartLimit, ctx.cancel);
  } catch (...) {
    answered = true;
    if (ticker.joinable()) ticker.join();
    throw;
  }
  answered = true;
  if (ticker.joinable()) ticker.join();
  if (const JsonValue* ok = r.find("ok"); !ok || !ok->boolean) {
    info_.unavailable = get_string(r, "unavailable");
    if (info_.unavailable.empty())
      info_.unavailable = "the worker did not start: " + get_string(r, "error");
    child_.stop();
    return info_;
  }
  info_.framework = get_string(r, "framework");
  info_.version = get_string(r, "version");
  info_.device = get_string(r, "device");
  info_.kernel_path = get_string(r, "kernel_path");
  info_.python = get_string(r, "python");
  return info_;
}

void FrameworkWorker::run(const Prepared& p, Result& result, const RunContext& ctx) {
  // A worker started now imports its framework for seconds: the inputs are written into their
  // segments and mapped by the worker meanwhile, and the run waits only for what is left of that
  // when it answers.
  const bool starting = reset_for_start(framework_python());
  const auto check_available = [&] {
    if (!info_.unavailable.empty())
      throw Error(ErrorCode::Unavailable,
                  "backend " + spec_.backend + " is not available: " + info_.unavailable);
  };
  if (!starting) check_available();
  const OpSpec& op = *p.op;

  JsonValue req = JsonValue::object();
  req.add("cmd", str("run"));
  req.add("op", str(op.name));
  req.add("attrs", attrs_json(p));
  req.add("convention", str(p.reserve_is_inv_std() ? "inv_std" : "variance"));
  req.add("threads", JsonValue::of(static_cast<double>(ctx.threads)));

  double upload = 0;
  JsonValue inputs;
  inputs.kind = JsonValue::Kind::Array;
  std::vector<ipc::SegmentFill> fills;
  std::vector<Held*> sent;
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    const std::string name(op.inputs[i].name);
    const Tensor& t = p.inputs[i];
    Held& h = held_[name];
    JsonValue in = JsonValue::object();
    in.add("name", str(name));
    in.add("dtype", str(dtype_name(t.dtype())));
    in.add("shape", shape_json(t.shape()));
    const bool same = h.version > 0 && h.source.shares_storage_with(t) &&
                      h.source.dtype() == t.dtype() && h.source.shape() == t.shape();
    if (!same) {
      const double t0 = now();
      bool fresh = false;
      if (!h.segment.valid() || h.segment.size() != t.nbytes()) {
        if (h.seg_id) released_.push_back(h.seg_id);
        h.segment = ipc::SharedMemory::create(t.nbytes(), spec_.backend + "-" + name);
        h.seg_id = next_id();
        fresh = true;
      }
      fills.push_back({&h.segment, t.raw(), t.nbytes(), fresh});
      sent.push_back(&h);
      h.source = t;
      h.version = next_id();
      upload += now() - t0;
      in.add("seg", JsonValue::of(static_cast<double>(h.seg_id)));
      in.add("path", str(h.segment.path()));
      in.add("bytes", JsonValue::of(static_cast<double>(t.nbytes())));
    }
    in.add("version", JsonValue::of(static_cast<double>(h.version)));
    inputs.items.push_back(std::move(in));
  }
  req.add("inputs", std::move(inputs));
  std::exception_ptr failed;
  const auto fill = [&] {
    try {
      ipc::fill_segments(fills);
    } catch (...) {
      failed = std::current_exception();
    }
  };
  const auto unsend = [&] {  // nothing was sent: the next run sends these inputs again
    for (Held* h : sent) {
      h->source = Tensor();
      h->version = 0;
    }
  };
  if (starting) {
    // The worker maps the large new segments while it imports (seg:bytes:path, ';' between):
    // their page tables are made then, not after, whether their bytes are written yet or not.
    std::string prefetch;
    for (const Held* h : sent)
      if (h->segment.size() >= kPrefetchFrom)
        prefetch += (prefetch.empty() ? "" : ";") + std::to_string(h->seg_id) + ":" +
                    std::to_string(h->segment.size()) + ":" + h->segment.path();
    launch(prefetch);
    std::thread filler;
    if (!fills.empty()) filler = std::thread(fill);
    try {
      await_start(ctx);
    } catch (const ipc::ChildError& e) {
      if (filler.joinable()) filler.join();
      forget_worker_state();
      if (e.failure() == ipc::ChildFailure::Cancelled)
        throw Error(ErrorCode::Cancelled, "run cancelled; " + spec_.backend + " worker stopped");
      throw Error(ErrorCode::Internal,
                  std::string(e.what()) + " (the next run starts a fresh worker)");
    } catch (...) {
      if (filler.joinable()) filler.join();
      unsend();
      throw;
    }
    const double ready = now();
    if (filler.joinable()) filler.join();
    upload += now() - ready;
    check_available();
  } else if (!fills.empty()) {
    const double t0 = now();
    fill();
    upload += now() - t0;
  }
  if (failed) {
    unsend();
    std::rethrow_exception(failed);
  }
  for (const ipc::SegmentFill& f : fills) bytes_sent_ += static_cast<std::uint64_t>(f.bytes);
  // An output set given to this run to write into lets go of its buffers here (a set of this
  // worker's segments is then free to be written again).
  allocate_outputs(p, result);

  JsonValue order, outs;
  order.kind = outs.kind = JsonValue::Kind::Array;
  std::vector<std::pair<OutputTensor*, OutputSegment*>> copies;
  for (OutputTensor& o : result.outputs) {
    order.items.push_back(str(o.name));
    if (!o.defined || o.tensor.numel() == 0) continue;
    OutputSegment& s = output_segment(o.name, o.tensor.nbytes());
    JsonValue out = JsonValue::object();
    out.add("name", str(o.name));
    out.add("dtype", str(dtype_name(o.tensor.dtype())));
    out.add("shape", shape_json(o.tensor.shape()));
    out.add("seg", JsonValue::of(static_cast<double>(s.seg_id)));
    out.add("path", str(s.segment->path()));
    out.add("bytes", JsonValue::of(static_cast<double>(o.tensor.nbytes())));
    outs.items.push_back(std::move(out));
    copies.emplace_back(&o, &s);
  }
  req.add("output_order", std::move(order));
  req.add("outputs", std::move(outs));
  JsonValue released;
  released.kind = JsonValue::Kind::Array;
  for (long id : released_) released.items.push_back(JsonValue::of(static_cast<double>(id)));
  req.add("release", std::move(released));
  released_.clear();

  JsonValue r;
  try {
    const auto limit =
        std::chrono::milliseconds(static_cast<long long>(worker_time_limit_seconds() * 1000));
    ipc::send_json(child_, req, std::chrono::seconds(30), ctx.cancel);
    r = ipc::receive_json(child_, limit, ctx.cancel);
  } catch (const ipc::ChildError& e) {
    forget_worker_state();
    const std::string next = " (the next run starts a fresh worker)";
    if (e.failure() == ipc::ChildFailure::Cancelled)
      throw Error(ErrorCode::Cancelled, "run cancelled; " + spec_.backend + " worker stopped");
    throw Error(ErrorCode::Internal, std::string(e.what()) + next);
  }
  if (const JsonValue* ok = r.find("ok"); !ok || !ok->boolean) {
    if (std::string why = get_string(r, "unsupported"); !why.empty())
      throw Error(ErrorCode::Unimplemented, "unsupported: " + why);
    if (std::string why = get_string(r, "unavailable"); !why.empty())
      throw Error(ErrorCode::Unavailable, "unavailable: " + why);
    if (const JsonValue* broken = r.find("lending_broken"); broken && broken->boolean) {
      lending_broken_ = true;  // the worker has left; the next one starts without lending
      stop();
    }
    throw Error(ErrorCode::Internal, spec_.backend + ": " + get_string(r, "error"));
  }
  if (const JsonValue* placed = r.find("in_place");
      placed && placed->kind == JsonValue::Kind::Array)
    for (const JsonValue& name : placed->items)
      for (auto& [o, s] : copies)
        if (name.kind == JsonValue::Kind::String && o->name == name.string)
          bytes_in_place_ += static_cast<std::uint64_t>(o->tensor.nbytes());
  const double t0 = now();
  for (auto& [o, s] : copies)
    o->tensor = Tensor::adopt(o->tensor.dtype(), o->tensor.shape(),
                              std::shared_ptr<std::byte>(s->segment, s->segment->data()));
  const double copy_out = now() - t0;  // the adoption: no bytes move
  if (const JsonValue* notes = r.find("notes"); notes && notes->kind == JsonValue::Kind::Array)
    for (const JsonValue& n : notes->items)
      result.notes.push_back(Note{NoteKind::Info, get_string(n, "code"), get_string(n, "message"),
                                  get_string(n, "subject"), -1});
  // What ran, on every result: the kernel a diff compares is named, not implied by the backend.
  result.notes.push_back(Note{NoteKind::Info, "code-path",
                              spec_.backend + " ran " + info_.framework + " " + info_.version +
                                  ", " + info_.device + ", " + info_.kernel_path,
                              "", -1});
  result.timings.push_back({"upload", upload + get_number(r, "transfer_seconds"), -1});
  result.timings.push_back({"kernel:" + spec_.backend, get_number(r, "kernel_seconds"), -1});
  result.timings.push_back({"download", get_number(r, "download_seconds") + copy_out, -1});
}

}  // namespace bnscope
