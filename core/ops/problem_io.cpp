#include "ops/problem_io.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <set>
#include <span>
#include <thread>
#include <utility>

#include "io/atomic_file.h"
#include "io/json_value.h"
#include "io/npy.h"
#include "io/npz.h"
#include "io/zip_stored.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr int kFormatVersion = 1;
constexpr std::string_view kNpySuffix = ".npy";

const OpSpec& known_op(const std::string& name, const std::string& what) {
  const OpSpec* op = find_op(name);
  if (!op) fail(what + ": unknown op '" + name + "'; expected one of " + op_names_joined());
  return *op;
}

std::string_view type_name(AttrType t) {
  switch (t) {
    case AttrType::Float:
      return "a number";
    case AttrType::Bool:
      return "true or false";
    case AttrType::String:
      break;
  }
  return "a string";
}

bool holds(const AttrValue& v, AttrType t) {
  switch (t) {
    case AttrType::Float:
      return std::holds_alternative<double>(v);
    case AttrType::Bool:
      return std::holds_alternative<bool>(v);
    case AttrType::String:
      break;
  }
  return std::holds_alternative<std::string>(v);
}

const AttrSpec& known_attr(const OpSpec& op, const std::string& name, const std::string& what) {
  const AttrSpec* a = op.attr(name);
  if (!a) {
    std::string names;
    for (const AttrSpec& s : op.attrs) names += (names.empty() ? "" : ", ") + std::string(s.name);
    fail(what + ": unknown attr '" + name + "' for " + std::string(op.name) + "; expected one of " +
         names);
  }
  return *a;
}

std::string input_names(const OpSpec& op) {
  std::string out;
  for (const ArgSpec& a : op.inputs) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

}  // namespace

std::string problem_to_json(const Problem& p) {
  const std::string what = "problem '" + p.op + "'";
  const OpSpec& op = known_op(p.op, what);
  JsonValue root = JsonValue::object();
  root.add("bnscope_problem", JsonValue::of(static_cast<double>(kFormatVersion)));
  root.add("op", JsonValue::of(p.op));
  JsonValue& attrs = root.add("attrs", JsonValue::object());
  for (const auto& [name, value] : p.attrs) {
    const AttrSpec& a = known_attr(op, name, what);
    if (!holds(value, a.type))
      fail(what + ": attr '" + name + "' must be " + std::string(type_name(a.type)));
    const std::string& key = name;  // clang 14 cannot capture structured bindings
    std::visit([&](const auto& v) { attrs.add(key, JsonValue::of(v)); }, value);
  }
  if (p.dtype) root.add("dtype", JsonValue::of(std::string(dtype_name(*p.dtype))));
  root.add("convention", JsonValue::of(std::string(convention_name(p.convention))));
  root.add("strict", JsonValue::of(p.strict));
  return dump_json(root);
}

Problem problem_from_json(const std::string& text, const std::string& what) {
  const JsonValue root = parse_json(text, what);
  if (root.kind != JsonValue::Kind::Object) fail(what + ": expected a JSON object");
  for (const auto& [key, unused] : root.members)
    if (key != "bnscope_problem" && key != "op" && key != "attrs" && key != "dtype" &&
        key != "convention" && key != "strict")
      fail(what + ": unexpected key \"" + key +
           "\"; expected bnscope_problem, op, attrs, dtype, convention, strict");
  const JsonValue* version = root.find("bnscope_problem");
  if (!version || version->kind != JsonValue::Kind::Number || version->number != kFormatVersion)
    fail(what + ": expected \"bnscope_problem\": " + std::to_string(kFormatVersion));
  const JsonValue* op_name = root.find("op");
  if (!op_name || op_name->kind != JsonValue::Kind::String)
    fail(what + ": expected \"op\" with an op name");

  Problem p;
  p.op = op_name->string;
  const OpSpec& op = known_op(p.op, what);
  if (const JsonValue* attrs = root.find("attrs")) {
    if (attrs->kind != JsonValue::Kind::Object) fail(what + ": \"attrs\" must be an object");
    for (const auto& [name, v] : attrs->members) {
      const AttrSpec& a = known_attr(op, name, what);
      const bool ok = (a.type == AttrType::Float && v.kind == JsonValue::Kind::Number) ||
                      (a.type == AttrType::Bool && v.kind == JsonValue::Kind::Bool) ||
                      (a.type == AttrType::String && v.kind == JsonValue::Kind::String);
      if (!ok) fail(what + ": attr '" + name + "' must be " + std::string(type_name(a.type)));
      if (a.type == AttrType::Float)
        p.attrs[name] = v.number;
      else if (a.type == AttrType::Bool)
        p.attrs[name] = v.boolean;
      else
        p.attrs[name] = v.string;
    }
  }
  if (const JsonValue* dtype = root.find("dtype")) {
    const auto t = dtype->kind == JsonValue::Kind::String ? parse_dtype(dtype->string)
                                                          : std::optional<DType>();
    if (!t) fail(what + ": \"dtype\" must be float16, bfloat16, float32 or float64");
    p.dtype = *t;
  }
  if (const JsonValue* conv = root.find("convention")) {
    const auto c = conv->kind == JsonValue::Kind::String ? parse_convention(conv->string)
                                                         : std::optional<ReserveConvention>();
    if (!c) fail(what + ": \"convention\" must be \"variance\" or \"inv_std\"");
    p.convention = *c;
  }
  if (const JsonValue* strict = root.find("strict")) {
    if (strict->kind != JsonValue::Kind::Bool) fail(what + ": \"strict\" must be true or false");
    p.strict = strict->boolean;
  }
  return p;
}

std::string input_dtypes_text(const OpSpec& op, const std::string& input) {
  const int i = op.input_index(input);
  std::vector<DType> types;
  for (DType t : kAllDTypes) {
    const bool has = std::find(op.cpu_types.begin(), op.cpu_types.end(), t) != op.cpu_types.end() ||
                     std::find(op.gpu_types.begin(), op.gpu_types.end(), t) != op.gpu_types.end();
    if (!has) continue;
    const DType want =
        i < 0 ? t : resolve_arg_type(op, op.inputs[static_cast<std::size_t>(i)].type, t);
    if (std::find(types.begin(), types.end(), want) == types.end()) types.push_back(want);
  }
  std::string out;
  for (DType t : types) out += (out.empty() ? "" : ", ") + std::string(dtype_name(t));
  return out;
}

Tensor read_input_tensor(const OpSpec& op, const std::string& input, const std::string& source,
                         const std::function<Tensor()>& read) {
  try {
    return read();
  } catch (const UnsupportedDTypeError& e) {
    fail("input '" + input + "' (" + source + ") has dtype " + e.dtype() +
         ", which no TensorFlow kernel of " + std::string(op.name) + " takes; " + input +
         " must be one of " + input_dtypes_text(op, input));
  }
}

void save_problem(const std::string& path, const Problem& p, bool compress) {
  // The archive is written from the problem's own buffers.
  std::vector<std::pair<std::string, const Tensor*>> members;
  for (const auto& [name, t] : p.inputs) members.emplace_back(name, &t);
  const std::string json = problem_to_json(p);
  write_file_atomic_cfile(path, [&](std::FILE* f) {
    write_npz_to(f, path, members, {{kProblemMember, json}}, compress);
  });
}

namespace {

// The writer thread of save_problem_while_made and what make tells it.
class StreamWriter final : public ProblemStream {
 public:
  StreamWriter(StoredZipWriter& zip, std::string last) : zip_(zip), last_(std::move(last)) {}
  ~StreamWriter() { stop(); }

  void started(const Problem& p) override {
    if (thread_.joinable()) return;
    // Shares of the tensors' storage: a make that fails frees its problem while the thread may
    // still be writing from it.
    std::vector<std::pair<std::string, Tensor>> first;
    for (const auto& [name, t] : p.inputs) {
      if (name >= last_) break;
      first.emplace_back(name, t);
    }
    thread_ = std::thread([this, first = std::move(first)] {
      try {
        for (const auto& [name, t] : first) add(name, t);
        write_last();
      } catch (...) {
        // A maker waiting for a buffer is told, or it would wait for ever.
        const std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
        failed_ = true;
        changed_.notify_all();
      }
    });
  }

  void last_slice(const TensorSlice& s) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!thread_.joinable())
      throw Error(ErrorCode::Internal, "a slice of '" + last_ + "' before the problem started");
    if (!failed_) {
      if (handed_ == 0) {
        header_ = npy_header_bytes(s.dtype, s.shape);
        size_ = uc(num_elements(s.shape)) * dtype_size(s.dtype);
      }
      if (s.offset != handed_bytes_ || s.bytes > size_ - handed_bytes_ ||
          s.bytes > s.buffer.nbytes())
        throw Error(ErrorCode::Internal, "the slices of '" + last_ + "' are out of order");
      handed_bytes_ += s.bytes;
      slices_.push_back(s);
      ++handed_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return slices_written_ + 1 >= handed_ || failed_; });
    }
    if (failed_) std::rethrow_exception(error_);
  }

  // make has returned (or failed): the thread ends once it has written what it was given.
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      made_ = true;
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

  // The thread's error, if any, once stopped.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

  // A member in the archive's order, its header kept alive while it is written.
  void add(const std::string& name, const Tensor& t) {
    const std::string header = npy_header_bytes(t);
    zip_.add({name + ".npy",
              {std::as_bytes(std::span<const char>(header)),
               std::span<const std::byte>(static_cast<const std::byte*>(t.raw()), t.nbytes())}});
    written_.insert(name);
  }
  bool written(const std::string& name) const { return written_.count(name) > 0; }

 private:
  // Input `last` slice by slice, when make hands it so.
  void write_last() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return handed_ > 0 || made_; });
    if (handed_ == 0) return;  // left to the caller, from the problem make returned
    const std::string header = header_;
    const std::size_t size = size_;
    lock.unlock();
    std::size_t done = 0;
    bool out = false;  // the front slice went to the archive; it is written once next() is back
    zip_.add_streamed(
        last_ + ".npy", std::as_bytes(std::span<const char>(header)), header.size() + size,
        [&]() -> std::span<const std::byte> {
          std::unique_lock<std::mutex> l(mutex_);
          if (out) {
            release_front();
            out = false;
          }
          for (;;) {
            changed_.wait(l, [&] { return !slices_.empty() || made_ || done == size; });
            if (done == size) return {};
            if (slices_.empty())
              throw Error(ErrorCode::Cancelled, "'" + last_ + "' ended before its declared size");
            if (slices_.front().bytes > 0) break;
            release_front();
          }
          const TensorSlice& s = slices_.front();
          out = true;
          done += s.bytes;
          return {static_cast<const std::byte*>(std::as_const(s.buffer).raw()), s.bytes};
        });
    written_.insert(last_);
  }

  // The front slice is written: its share of the buffer goes before the maker, told, refills it.
  void release_front() {
    slices_.pop_front();
    ++slices_written_;
    changed_.notify_all();
  }

  StoredZipWriter& zip_;
  const std::string last_;
  std::thread thread_;
  std::exception_ptr error_;
  std::set<std::string> written_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool made_ = false, failed_ = false;
  // Input `last`: its header and size from the first slice, the slices handed and not yet written.
  std::string header_;
  std::size_t size_ = 0, handed_bytes_ = 0, handed_ = 0, slices_written_ = 0;
  std::deque<TensorSlice> slices_;
};

}  // namespace

void save_problem_while_made(const std::string& path, const std::string& last,
                             const std::function<Problem(ProblemStream&)>& make) {
  write_file_atomic_cfile(path, [&](std::FILE* f) {
    StoredZipWriter zip(f, path);
    StreamWriter stream(zip, last);
    Problem p = make(stream);
    stream.stop();
    stream.rethrow();
    for (const auto& [name, t] : p.inputs)
      if (!stream.written(name)) stream.add(name, t);
    const std::string json = problem_to_json(p);
    zip.add({kProblemMember, {std::as_bytes(std::span<const char>(json))}});
    zip.finish();
  });
}

bool has_expected_outputs(const std::string& path) {
  try {
    for (const std::string& m : npz_members(path))
      if (std::string_view(m).substr(0, kExpectedPrefix.size()) == kExpectedPrefix) return true;
  } catch (const std::exception&) {
  }
  return false;
}

Problem load_problem(const std::string& path, const std::map<std::string, Tensor>& read_before) {
  const std::vector<std::string> names = npz_members(path);
  bool has_json = false;
  for (const std::string& n : names) has_json |= n == kProblemMember;
  if (!has_json) {
    Problem p;
    add_npz_inputs(p, path, read_before);
    return p;
  }
  const std::vector<std::byte> json = read_npz_bytes(path, kProblemMember);
  Problem p =
      problem_from_json(std::string(reinterpret_cast<const char*>(json.data()), json.size()),
                        path + ":" + kProblemMember);
  const OpSpec& op = known_op(p.op, path);
  // Every member is checked by name before any is inflated: a stray one is refused unread.
  for (const std::string& member : names) {
    if (member.size() <= kNpySuffix.size() || !member.ends_with(kNpySuffix)) continue;
    const std::string name = member.substr(0, member.size() - kNpySuffix.size());
    if (name.starts_with(kExpectedPrefix)) continue;  // the reference outputs it carries
    if (op.input_index(name) < 0)
      fail(path + ": unknown input '" + clip_for_message(name) + "' for " + std::string(op.name) +
           "; expected one of " + input_names(op));
  }
  add_npz_inputs(p, path, read_before);
  return p;
}

std::vector<std::string> add_npz_inputs(Problem& p, const std::string& path,
                                        const std::map<std::string, Tensor>& read_before) {
  const OpSpec& op = known_op(p.op, path);
  std::vector<std::string> added;
  for (const std::string& member : npz_members(path)) {
    if (member.size() <= kNpySuffix.size() || !member.ends_with(kNpySuffix)) continue;
    const std::string name = member.substr(0, member.size() - kNpySuffix.size());
    if (op.input_index(name) < 0) continue;
    added.push_back(name);
    if (const auto known = read_before.find(name); known != read_before.end()) {
      p.inputs.insert_or_assign(name, known->second);
      continue;
    }
    p.inputs.insert_or_assign(name, read_input_tensor(op, name, path + ":" + member, [&] {
                                return read_npz_member(path, member);
                              }));
  }
  return added;
}

}  // namespace bnscope
