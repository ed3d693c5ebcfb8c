#include "io/capture_folder.h"

#include <cmath>
#include <filesystem>
#include <set>

#include "io/json_value.h"
#include "io/npy.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

namespace fs = std::filesystem;
constexpr int kFormatVersion = 1;

std::string text_of(const JsonValue& obj, std::string_view key, const std::string& what,
                    bool required = true) {
  const JsonValue* v = obj.find(key);
  if (!v) {
    if (required) fail(what + ": expected \"" + std::string(key) + "\"");
    return {};
  }
  if (v->kind != JsonValue::Kind::String)
    fail(what + ": \"" + std::string(key) + "\" must be a string");
  return v->string;
}

const JsonValue* object_of(const JsonValue& obj, std::string_view key, const std::string& what) {
  const JsonValue* v = obj.find(key);
  if (v && v->kind != JsonValue::Kind::Object)
    fail(what + ": \"" + std::string(key) + "\" must be an object");
  return v;
}

// A plain file name: no folders, so a manifest cannot point outside its capture.
bool plain_name(const std::string& f) {
  return !f.empty() && f != "." && f != ".." && f.find('/') == std::string::npos &&
         f.find('\\') == std::string::npos;
}

CaptureLayer read_layer(const JsonValue& v, std::size_t i, const std::string& manifest,
                        const fs::path& dir) {
  const std::string what = manifest + ": layers[" + std::to_string(i) + "]";
  if (v.kind != JsonValue::Kind::Object) fail(what + ": expected an object");
  CaptureLayer l;
  const JsonValue* index = v.find("index");
  // Range first: a NaN or a huge number must not reach the conversion to int.
  if (!index || index->kind != JsonValue::Kind::Number || !(index->number >= 0) ||
      index->number > 1e9 || index->number != std::floor(index->number))
    fail(what + ": expected \"index\" as a whole number >= 0");
  l.index = static_cast<int>(index->number);
  l.name = text_of(v, "name", what);
  l.captured = text_of(v, "captured", what);
  l.op = text_of(v, "op", what);
  l.data_format = text_of(v, "data_format", what, false);
  l.convention = text_of(v, "convention", what, false);
  l.file = text_of(v, "file", what);
  if (!plain_name(l.file))
    fail(what + ": \"file\" must be a file name inside the capture folder, got '" + l.file + "'");
  if (const JsonValue* shapes = object_of(v, "shapes", what))
    for (const auto& [name, s] : shapes->members) {
      if (s.kind != JsonValue::Kind::Array)
        fail(what + ": shapes." + name + " must be a list of sizes");
      std::vector<std::int64_t>& dims = l.shapes[name];
      for (const JsonValue& d : s.items) {
        if (d.kind != JsonValue::Kind::Number || !(d.number >= 0) || d.number > 9e18 ||
            d.number != std::floor(d.number))
          fail(what + ": shapes." + name + " must be a list of sizes");
        dims.push_back(static_cast<std::int64_t>(d.number));
      }
    }
  if (const JsonValue* dtypes = object_of(v, "dtypes", what))
    for (const auto& [name, d] : dtypes->members) {
      if (d.kind != JsonValue::Kind::String)
        fail(what + ": dtypes." + name + " must be a dtype name");
      l.dtypes[name] = d.string;
    }
  l.path = (dir / l.file).string();
  return l;
}

}  // namespace

bool is_capture_folder(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::is_regular_file(fs::path(dir) / kCaptureManifest, ec);
}

Capture read_capture_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) fail("capture " + dir + ": no such folder");
  if (!fs::is_directory(dir, ec))
    fail("capture " + dir + ": not a folder; expected a folder written by bnscope-capture");
  const fs::path root(dir);
  const std::string manifest = (root / kCaptureManifest).string();
  if (!fs::is_regular_file(manifest, ec))
    fail("capture " + dir + ": no " + kCaptureManifest +
         "; expected a folder written by bnscope-capture");
  const std::vector<std::byte> bytes = read_file_bytes(manifest);
  const JsonValue m = parse_json(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), manifest);
  if (m.kind != JsonValue::Kind::Object) fail(manifest + ": expected a JSON object");
  const JsonValue* version = m.find("bnscope_capture");
  if (!version || version->kind != JsonValue::Kind::Number || version->number != kFormatVersion)
    fail(manifest + ": expected \"bnscope_capture\": " + std::to_string(kFormatVersion));

  Capture c;
  c.dir = dir;
  c.tensorflow = text_of(m, "tensorflow", manifest, false);
  c.keras = text_of(m, "keras", manifest, false);
  c.device = text_of(m, "device", manifest, false);
  c.model = text_of(m, "model", manifest, false);
  c.dtype_policy = text_of(m, "dtype_policy", manifest, false);
  c.loss = text_of(m, "loss", manifest, false);
  const JsonValue* layers = m.find("layers");
  if (!layers || layers->kind != JsonValue::Kind::Array)
    fail(manifest + ": expected \"layers\" as a list");
  if (layers->items.empty()) fail(manifest + ": \"layers\" is empty; nothing was captured");
  std::set<std::string> files;
  std::set<int> indices;
  for (std::size_t i = 0; i < layers->items.size(); ++i) {
    CaptureLayer l = read_layer(layers->items[i], i, manifest, root);
    if (!files.insert(l.file).second)
      fail(manifest + ": file '" + l.file + "' is listed for more than one layer");
    if (!indices.insert(l.index).second)
      fail(manifest + ": index " + std::to_string(l.index) + " is listed more than once");
    if (!fs::is_regular_file(l.path, ec))
      fail("capture " + dir + ": manifest lists '" + l.file + "' (layer '" + l.name +
           "') but the folder has no such file");
    c.layers.push_back(std::move(l));
  }
  if (const JsonValue* skipped = m.find("skipped")) {
    if (skipped->kind != JsonValue::Kind::Array) fail(manifest + ": \"skipped\" must be a list");
    for (const JsonValue& s : skipped->items) {
      if (s.kind != JsonValue::Kind::Object) fail(manifest + ": \"skipped\" entries are objects");
      c.skipped.push_back({text_of(s, "name", manifest + ": skipped"),
                           text_of(s, "reason", manifest + ": skipped")});
    }
  }
  // A problem file the manifest does not list is a capture that was edited by hand or mixed
  // with another one; running it or leaving it out silently would both mislead.
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".npz" && !files.count(name))
      fail("capture " + dir + ": '" + name +
           "' is not listed in the manifest; expected only the listed layer files");
  }
  if (ec) fail("capture " + dir + ": cannot list the folder: " + ec.message());
  return c;
}

}  // namespace bnscope
