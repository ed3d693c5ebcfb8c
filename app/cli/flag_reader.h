#pragma once
// A command's flags as a table: each entry names a flag and what it sets, and read() walks the
// arguments against it, so every command words a missing value or an unknown flag the same way.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "tensor/shape.h"

namespace bnscope::cli {

std::vector<std::string> split_list(const std::string& text);  // "a,b,c"
double parse_double_flag(const std::string& flag, const std::string& text);
int parse_int_flag(const std::string& flag, const std::string& text, int lo, int hi);
// "32,56,56,64" or "[32,56,56,64]": logical N,H,W,C (5 values for the 3-D formats).
Shape parse_shape_flag(const std::string& flag, const std::string& text);

class FlagReader {
 public:
  using OnValue = std::function<void(const std::string& value)>;
  using OnName = std::function<void(const std::string& name)>;
  using OnNamedValue = std::function<void(const std::string& name, const std::string& value)>;
  using Message = std::function<std::string(const std::string& argument)>;

  // Unknown flags fail with "unknown flag 'X' (see bnscope-cli COMMAND --help)"; the command's
  // guard puts "bnscope-cli COMMAND: " before it.
  explicit FlagReader(std::string command);

  // A flag taking the argument after it; without one, "FLAG expects a value".
  FlagReader& value(std::string flag, OnValue on_value);
  // A flag standing alone.
  FlagReader& toggle(std::string flag, std::function<void()> on_flag);
  // Flags PREFIX + NAME with NAME not empty (--atol-OUTPUT), taking a value. on_name vets NAME
  // before the value is read, so a bad NAME is reported even when the value is missing.
  FlagReader& prefixed(std::string prefix, OnName on_name, OnNamedValue on_value);

  // The common kinds of value, checked with the parse_*_flag wording.
  FlagReader& text(std::string flag, std::string& into);
  // Replaces, not appends; a list with no item ("", ",,") is refused.
  FlagReader& list(std::string flag, std::vector<std::string>& into);
  FlagReader& integer(std::string flag, int& into, int lo, int hi);
  FlagReader& number(std::string flag, double& into);  // non-negative
  FlagReader& number(std::string flag, std::optional<double>& into);
  FlagReader& shape(std::string flag, Shape& into);
  FlagReader& seed(std::string flag, std::uint64_t& into, int hi);  // 0..hi
  FlagReader& set(std::string flag, bool& into, bool to = true);

  // For commands with a fixed usage line: unknown flags and flags missing their value both fail
  // with message(argument) instead.
  FlagReader& bad_argument(Message message);

  // Applies the flags in order. A flag taking a value may be given once ("--out given twice");
  // flags standing alone may repeat.
  void read(Args args) const;

 private:
  struct Entry {
    std::string flag;
    bool takes_value = false;
    bool is_prefix = false;
    OnName on_name;
    OnNamedValue on_value;
    std::function<void()> on_flag;
  };
  const Entry* find(const std::string& argument) const;

  std::string command_;
  std::vector<Entry> entries_;
  Message bad_argument_;
};

}  // namespace bnscope::cli
