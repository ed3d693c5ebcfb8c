#include "io/json_writer.h"

namespace bnscope {

void JsonWriter::newline() {
  os_ << '\n' << std::string(2 * first_.size(), ' ');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) os_ << ',';
  first_.back() = false;
  if (pretty_) newline();
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  os_ << bracket;
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  const bool empty = first_.back();
  first_.pop_back();
  if (pretty_ && !empty) newline();
  os_ << bracket;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  close('}');
  if (first_.empty() && pretty_) os_ << '\n';
  return *this;
}

JsonWriter& JsonWriter::scalar(std::string_view text) {
  separate();
  os_ << text;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  std::string text;
  append_json_string(text, k, flavor_);
  text += pretty_ ? ": " : ":";
  scalar(text);
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  std::string text;
  append_json_string(text, s, flavor_);
  return scalar(text);
}

JsonWriter& JsonWriter::value(double v) {
  std::string text;
  append_json_number(text, v, flavor_);
  return scalar(text);
}

}  // namespace bnscope
