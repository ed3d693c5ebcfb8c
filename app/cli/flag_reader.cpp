#include "flag_reader.h"

#include <set>
#include <sstream>
#include <stdexcept>

#include "tensor/error.h"

namespace bnscope::cli {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

namespace {

// Digits only (a sign where negatives are allowed): stol/stoll also skip blanks and take "+2".
bool plain_integer(const std::string& text, bool negative_allowed) {
  const std::size_t start = negative_allowed && !text.empty() && text[0] == '-' ? 1 : 0;
  return text.size() > start && text.find_first_not_of("0123456789", start) == std::string::npos;
}

}  // namespace

double parse_double_flag(const std::string& flag, const std::string& text) {
  // Decimal notation: stod also takes hexadecimal (0x10) and leading blanks.
  const bool decimal = text.find_first_of("xXpP \t\n\r\f\v") == std::string::npos;
  if (decimal) try {
      std::size_t used = 0;
      const double v = std::stod(text, &used);
      if (used == text.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
  fail(flag + " expects a non-negative number, got '" + clip_for_message(text) + "'");
}

int parse_int_flag(const std::string& flag, const std::string& text, int lo, int hi) {
  if (plain_integer(text, lo < 0)) try {
      std::size_t used = 0;
      const long v = std::stol(text, &used);
      if (used == text.size() && v >= lo && v <= hi) return static_cast<int>(v);
    } catch (const std::exception&) {
    }
  fail(flag + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
       ", got '" + clip_for_message(text) + "'");
}

Shape parse_shape_flag(const std::string& flag, const std::string& text) {
  std::string t = text;
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  Shape s;
  // Every item a plain number: "2, 3,4,5", "+2,..." and a trailing comma are typing slips.
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = t.find(',', start);
    items.push_back(t.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const std::string& d : items) {
    try {
      std::size_t used = 0;
      if (!plain_integer(d, false)) throw std::invalid_argument(d);
      const long long v = std::stoll(d, &used);
      if (used != d.size() || v < 0) throw std::invalid_argument(d);
      s.push_back(v);
    } catch (const std::exception&) {
      fail(flag + " expects dimensions like 32,56,56,64, got '" + clip_for_message(text) + "'");
    }
  }
  if (s.size() != 4 && s.size() != 5)
    fail(flag + " expects 4 (N,H,W,C) or 5 (N,D,H,W,C) dimensions, got '" + clip_for_message(text) +
         "'");
  return s;
}

FlagReader::FlagReader(std::string command) : command_(std::move(command)) {}

FlagReader& FlagReader::value(std::string flag, OnValue on_value) {
  Entry e;
  e.flag = std::move(flag);
  e.takes_value = true;
  e.on_value = [f = std::move(on_value)](const std::string&, const std::string& v) { f(v); };
  entries_.push_back(std::move(e));
  return *this;
}

FlagReader& FlagReader::toggle(std::string flag, std::function<void()> on_flag) {
  Entry e;
  e.flag = std::move(flag);
  e.on_flag = std::move(on_flag);
  entries_.push_back(std::move(e));
  return *this;
}

FlagReader& FlagReader::prefixed(std::string prefix, OnName on_name, OnNamedValue on_value) {
  Entry e;
  e.flag = std::move(prefix);
  e.takes_value = true;
  e.is_prefix = true;
  e.on_name = std::move(on_name);
  e.on_value = std::move(on_value);
  entries_.push_back(std::move(e));
  return *this;
}

FlagReader& FlagReader::text(std::string flag, std::string& into) {
  return value(std::move(flag), [&into](const std::string& v) { into = v; });
}

FlagReader& FlagReader::list(std::string flag, std::vector<std::string>& into) {
  return value(flag, [&into, flag](const std::string& v) {
    into = split_list(v);
    // An empty list would silently mean the defaults.
    if (into.empty())
      fail(flag + " expects a comma-separated list, got '" + clip_for_message(v) + "'");
  });
}

FlagReader& FlagReader::integer(std::string flag, int& into, int lo, int hi) {
  return value(flag, [&into, flag, lo, hi](const std::string& v) {
    into = parse_int_flag(flag, v, lo, hi);
  });
}

FlagReader& FlagReader::number(std::string flag, double& into) {
  return value(flag, [&into, flag](const std::string& v) { into = parse_double_flag(flag, v); });
}

FlagReader& FlagReader::number(std::string flag, std::optional<double>& into) {
  return value(flag, [&into, flag](const std::string& v) { into = parse_double_flag(flag, v); });
}

FlagReader& FlagReader::shape(std::string flag, Shape& into) {
  return value(flag, [&into, flag](const std::string& v) { into = parse_shape_flag(flag, v); });
}

FlagReader& FlagReader::seed(std::string flag, std::uint64_t& into, int hi) {
  return value(flag, [&into, flag, hi](const std::string& v) {
    into = static_cast<std::uint64_t>(parse_int_flag(flag, v, 0, hi));
  });
}

FlagReader& FlagReader::set(std::string flag, bool& into, bool to) {
  return toggle(std::move(flag), [&into, to] { into = to; });
}

FlagReader& FlagReader::bad_argument(Message message) {
  bad_argument_ = std::move(message);
  return *this;
}

const FlagReader::Entry* FlagReader::find(const std::string& argument) const {
  for (const Entry& e : entries_)
    if (!e.is_prefix && e.flag == argument) return &e;
  for (const Entry& e : entries_)
    if (e.is_prefix && argument.size() > e.flag.size() && argument.rfind(e.flag, 0) == 0) return &e;
  return nullptr;
}

void FlagReader::read(Args args) const {
  std::set<std::string> given;  // value flags seen, by their full spelling (--atol-dx too)
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const Entry* e = find(a);
    if (!e) {
      if (bad_argument_) fail(bad_argument_(a));
      fail("unknown flag '" + clip_for_message(a) + "' (see bnscope-cli " + command_ + " --help)");
    }
    if (!e->takes_value) {
      e->on_flag();
      continue;
    }
    const std::string name = e->is_prefix ? a.substr(e->flag.size()) : a;
    if (e->on_name) e->on_name(name);
    if (i + 1 >= args.size()) fail(bad_argument_ ? bad_argument_(a) : a + " expects a value");
    // Which of two values was meant cannot be known: a script that sets a flag twice has a bug.
    if (!given.insert(a).second) fail(clip_for_message(a) + " given twice");
    e->on_value(name, args[++i]);
  }
}

}  // namespace bnscope::cli
