#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "io/json_text.h"
#include "io/json_value.h"
#include "io/json_writer.h"
#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;

TEST(JsonValue, RoundTripsValues) {
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

TEST(JsonValue, ReadsStandardEscapes) {
  const JsonValue v = parse_json(R"(["\u00e9\ud83d\ude00\/", null, [], 1E+2])", "mem");
  ASSERT_EQ(v.items.size(), 4u);
  EXPECT_EQ(v.items[0].string, "\xc3\xa9\xf0\x9f\x98\x80/");
  EXPECT_EQ(v.items[1].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.items[3].number, 100.0);
}

TEST(JsonValue, RejectsMalformedText) {
  for (const std::string& bad : std::vector<std::string>{
           "", "{", "{\"a\": 1,}", "[1,]", "{'a': 1}", "{\"a\" 1}", "01", "1.", ".5", "+1", "tru",
           "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "{\"a\": 1, \"a\": 2}", "1 2",
           "\"raw\ncontrol\"", std::string(1000, '[')}) {
    SCOPED_TRACE(bad);
    expect_error([&] { parse_json(bad, "cfg.json"); }, {"cfg.json", "malformed JSON"});
  }
}

TEST(JsonValue, AtNamesTheMissingKey) {
  const JsonValue v = parse_json(R"({"a": 1})", "mem");
  EXPECT_EQ(v.at("a").number, 1.0);
  expect_error([&] { v.at("b"); }, {"\"b\""});
}

TEST(JsonText, FlavoursDifferOnlyWhereMeant) {
  const std::string text = "<a href=\"x\">&</a>\\\t\x1f\x7f";
  std::string python, report;
  append_json_string(python, text, kPythonJson);
  append_json_string(report, text, kReportJson);
  EXPECT_EQ(python, R"("<a href=\"x\">&</a>\\\t\u001f)"
                    "\x7f\"");
  EXPECT_EQ(report, R"("\u003ca href=\"x\"\u003e\u0026\u003c/a\u003e\\\t\u001f)"
                    "\x7f\"");
  for (const std::string& s : {python, report}) EXPECT_EQ(parse_json(s, "mem").string, text);

  EXPECT_EQ(json_number(NAN, kPythonJson), "NaN");
  EXPECT_EQ(json_number(-INFINITY, kPythonJson), "-Infinity");
  EXPECT_EQ(json_number(INFINITY, kPythonJson), "Infinity");
  for (double d : {NAN, INFINITY, -INFINITY}) EXPECT_EQ(json_number(d, kReportJson), "null");
  for (const JsonFlavor& f : {kPythonJson, kReportJson}) {
    EXPECT_EQ(json_number(0.1, f), "0.1");
    EXPECT_EQ(json_number(-0.0, f), "-0");
    EXPECT_EQ(json_number(1e300, f), "1e+300");
  }
}

TEST(JsonValue, DumpsInEitherFlavour) {
  JsonValue v = JsonValue::object();
  v.add("x", JsonValue::of(-HUGE_VAL));
  v.add("s", JsonValue::of(std::string("<&>")));
  EXPECT_EQ(dump_json(v), "{\n  \"x\": -Infinity,\n  \"s\": \"<&>\"\n}\n");
  EXPECT_EQ(dump_json(v, kReportJson),
            "{\n  \"x\": null,\n  \"s\": \"\\u003c\\u0026\\u003e\"\n}\n");
}

TEST(JsonWriter, CompactWritesNullForNonFinite) {
  std::ostringstream os;
  JsonWriter w(os, false);
  w.begin_array().value(INFINITY).value(NAN).value(1.5).value("</script>").end_array();
  EXPECT_EQ(os.str(), "[null,null,1.5,\"\\u003c/script\\u003e\"]");
  const JsonValue v = parse_json(os.str(), "mem");
  ASSERT_EQ(v.items.size(), 4u);
  EXPECT_EQ(v.items[0].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.items[1].kind, JsonValue::Kind::Null);
  EXPECT_EQ(v.items[3].string, "</script>");
}

TEST(JsonWriter, PrettyLayout) {
  std::ostringstream os;
  JsonWriter w(os);
  w.begin_object().field("a", 1).key("b").begin_array().value(true).null().end_array();
  w.key("e").begin_object().end_object().key("f").begin_array().end_array();
  w.field("u", std::uint64_t{18446744073709551615u}).end_object();
  EXPECT_EQ(os.str(),
            "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"e\": {},\n"
            "  \"f\": [],\n  \"u\": 18446744073709551615\n}\n");
}

TEST(JsonWriter, PythonFlavourRoundTripsNonFinite) {
  std::ostringstream os;
  JsonWriter w(os, false, kPythonJson);
  w.begin_array().value(-INFINITY).value("<").end_array();
  EXPECT_EQ(os.str(), "[-Infinity,\"<\"]");
  EXPECT_EQ(parse_json(os.str(), "mem").items[0].number, -HUGE_VAL);
}

}  // namespace
}  // namespace bnscope
