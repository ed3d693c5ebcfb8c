#include "io/mini_json.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;

TEST(MiniJson, RoundTripsValues) {
  JsonValue root = JsonValue::object();
  for (double d : {0.1, 1e-300, 5e-324, -0.0, 1.7976931348623157e308, 123456789.0, -2.5}) {
    std::string key(1, 'n');
    key += std::to_string(root.members.size());
    root.add(key, JsonValue::of(d));
  }
  root.add("s", JsonValue::of(std::string("tab\t quote\" back\\ nl\n ctl\x01 utf8 \xc3\xa9")));
  root.add("t", JsonValue::of(true));
  root.add("inf", JsonValue::of(-HUGE_VAL));
  JsonValue& nested = root.add("o", JsonValue::object());
  nested.add("empty", JsonValue::object());
  const std::string text = dump_json(root);
  const JsonValue back = parse_json(text, "mem");
  ASSERT_EQ(back.members.size(), root.members.size());
  for (std::size_t k = 0; k < root.members.size(); ++k) {
    const auto& [key, v] = root.members[k];
    SCOPED_TRACE(key);
    EXPECT_EQ(back.members[k].first, key);
    EXPECT_EQ(back.members[k].second.kind, v.kind);
    if (v.kind == JsonValue::Kind::Number) {
      EXPECT_EQ(back.members[k].second.number, v.number);
      EXPECT_EQ(std::signbit(back.members[k].second.number), std::signbit(v.number));
    }
    if (v.kind == JsonValue::Kind::String) {
      EXPECT_EQ(back.members[k].second.string, v.string);
    }
  }
  EXPECT_TRUE(std::isnan(parse_json("NaN", "mem").number));
}

TEST(MiniJson, ReadsStandardEscapes) {
  const JsonValue v = parse_json(R"(["\u00e9\ud83d\ude00\/", null, [], 1E+2])", "mem");
  ASSERT_EQ(v.items.size(), 4u);
  EXPECT_EQ(v.items[0].string, "\xc3\xa9\xf0\x9f\x98\x80/");
  EXPECT_EQ(v.items[1].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.items[3].number, 100.0);
}

TEST(MiniJson, RejectsMalformedText) {
  for (const std::string& bad : std::vector<std::string>{
           "", "{", "{\"a\": 1,}", "[1,]", "{'a': 1}", "{\"a\" 1}", "01", "1.", ".5", "+1", "tru",
           "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "{\"a\": 1, \"a\": 2}", "1 2",
           "\"raw\ncontrol\"", std::string(1000, '[')}) {
    SCOPED_TRACE(bad);
    expect_error([&] { parse_json(bad, "cfg.json"); }, {"cfg.json", "malformed JSON"});
  }
}

}  // namespace
}  // namespace bnscope
