// File: tests/models/scenario/json_reader_test.cpp
// JsonDocument and JsonValue: each rejection names the file and the JSON pointer of the value at
// fault, says what was expected and what was found; syntax errors give line and column.
#include "models/scenario/json_reader.hpp"

#include "tests/input_error_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace railsim::models::scenario {
namespace {

// A file under GoogleTest's temporary folder holding `text`; returns its path.
std::string write_temp_file(const std::string& name, std::string_view text) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

TEST(JsonReader, LoadsAFileAndNamesItInErrors) {
  const std::string path = write_temp_file("railsim_json_reader_ok.json", R"({"nodes": "16"})");
  const JsonDocument doc = load_json_file(path);
  EXPECT_EQ(doc.file(), path);
  const JsonValue nodes = doc.root().at("nodes");
  EXPECT_EQ(nodes.file(), path);
  EXPECT_EQ(test::input_error_text([&] { nodes.as_integer(); }),
            path + R"(: /nodes: expected an integer, got a string ("16"))");
}

TEST(JsonReader, SyntaxErrorsGiveLineAndColumn) {
  // Line 3 is `  "fabric": {"spine": tru}`: the lexer reads "tru" and fails on the "}", byte 26
  // of the line (2 spaces, `"fabric":` in 3-11, a space, "{" at 13, `"spine":` in 14-21, a
  // space, "tru" in 23-25).
  const std::string path = write_temp_file("railsim_json_reader_syntax.json",
                                           "{\n"
                                           "  \"nodes\": 16,\n"
                                           "  \"fabric\": {\"spine\": tru}\n"
                                           "}\n");
  try {
    load_json_file(path);
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.line(), 3U);
    EXPECT_EQ(e.column(), 26U);
    EXPECT_FALSE(e.at_value());
    // After the position comes nlohmann's own account of what it read.
    EXPECT_EQ(std::string(e.what()),
              path + R"(:3:26: syntax error while parsing value - invalid literal; )"
                     R"(last read: '"spine": tru}')");
  }
}

TEST(JsonReader, SyntaxErrorsAtTheEndPointPastTheLastLine) {
  // The text ends after line 2's newline: the parser wanted a key at line 3, column 1.
  const std::string message =
      test::input_error_text([] { parse_json("{\n  \"a\": 1,\n", "x.json"); });
  EXPECT_EQ(message.rfind("x.json:3:1: syntax error while parsing object key", 0), 0U) << message;
  // An empty text fails at its first byte.
  EXPECT_EQ(
      test::input_error_text([] { parse_json("", "e.json"); }).rfind("e.json:1:1: syntax error", 0),
      0U);
}

TEST(JsonReader, ARawNewlineInAStringIsReportedWhereItStands) {
  // `{"a": "x` is 8 bytes, so the newline that breaks the string is byte 9 of line 1 (nlohmann's
  // own message says "line 2, column 0").
  const std::string message =
      test::input_error_text([] { parse_json("{\"a\": \"x\ny\"}", "x.json"); });
  EXPECT_EQ(message.rfind("x.json:1:9: syntax error while parsing value - invalid string", 0), 0U)
      << message;
}

TEST(JsonReader, ALogGivenForJsonIsNamedAsNotJson) {
  // An nccl-tests log starts with '#': the parser fails on its first byte.
  EXPECT_EQ(
      test::input_error_text([] { parse_json("\n# nccl-tests version 2.17.8\n", "log.txt"); }),
      "log.txt:2:1: not JSON (a JSON file starts with '{'): if this is a tool's output, "
      "`railsim parse` reads it");
  // JSON that goes wrong later keeps the parser's account.
  EXPECT_EQ(test::input_error_text([] {
              parse_json("{\"a\": #}", "x.json");
            }).rfind("x.json:1:7: syntax error", 0),
            0U);
}

TEST(JsonReader, SyntaxErrorsWithoutAFileStartWithThePosition) {
  // `[1, 2,, 3]`: the second comma, at column 7, is no value.
  EXPECT_EQ(test::input_error_text([] { parse_json("[1, 2,, 3]"); }).rfind("1:7: syntax error", 0),
            0U);
}

TEST(JsonReader, UnreadableFilesSayWhy) {
  const std::string missing = ::testing::TempDir() + "railsim_json_reader_missing.json";
  EXPECT_EQ(test::input_error_text([&] { load_json_file(missing); }),
            missing + ": cannot read: No such file or directory");
  const std::string folder = ::testing::TempDir();
  EXPECT_EQ(
      test::input_error_text([&] { load_json_file(folder); }).rfind(folder + ": cannot read: ", 0),
      0U);
}

TEST(JsonReader, NumbersBeyondADoubleAreRejected) {
  EXPECT_EQ(test::input_error_text([] { parse_json(R"({"a": 1e400})", "x.json"); }),
            "x.json: number overflow parsing '1e400'");
}

TEST(JsonReader, DuplicateKeysAreRejectedAtTheirPointer) {
  EXPECT_EQ(test::input_error_text(
                [] { parse_json(R"({"fabric": {"spine": 1, "spine": 2}})", "x.json"); }),
            R"(x.json: /fabric/spine: duplicate key "spine")");
  // Inside arrays, the pointer counts elements of every kind: /nodes/1 is the second node.
  EXPECT_EQ(test::input_error_text(
                [] { parse_json(R"({"nodes": [{"name": "a"}, {"name": "b", "name": "c"}]})"); }),
            R"(/nodes/1/name: duplicate key "name")");
  EXPECT_EQ(
      test::input_error_text([] { parse_json(R"([[1, 2], 3, [4, {"a": 1, "b": 2, "a": 3}]])"); }),
      R"(/2/1/a: duplicate key "a")");
  // The same key in two different objects is fine.
  EXPECT_NO_THROW(parse_json(R"({"a": {"x": 1}, "b": {"x": 2}, "x": [{"x": 3}, {"x": 4}]})"));
}

TEST(JsonReader, NestingDeeperThanTheCeilingIsRefusedWhereItStarts) {
  // 300,000 arrays deep crashed the readers' recursive walks; the parse stops at the 101st.
  const std::string deep_array =
      R"({"nodes": )" + std::string(300'000, '[') + std::string(300'000, ']') + "}";
  const std::string pointer = "/nodes" + [] {
    std::string zeros;
    for (std::size_t depth = 2; depth <= kMaxJsonDepth; ++depth) {
      zeros += "/0";
    }
    return zeros;
  }();
  EXPECT_EQ(test::input_error_text([&] { parse_json(deep_array, "d.json"); }),
            "d.json: " + pointer + ": nested deeper than 100 arrays and objects");
  std::string deep_object;
  for (int depth = 0; depth < 300'000; ++depth) {
    deep_object += R"({"a": )";
  }
  deep_object += "1" + std::string(300'000, '}');
  EXPECT_NE(test::input_error_text([&] {
              parse_json(deep_object, "d.json");
            }).find(": nested deeper than 100 arrays and objects"),
            std::string::npos);
}

TEST(JsonReader, NestingUpToTheCeilingIsRead) {
  const std::string deepest =
      std::string(kMaxJsonDepth, '[') + "1" + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(test::input_error_text([&] { parse_json(deepest, "d.json"); }), "");
}

TEST(JsonReader, WrongTypesSayWhatWasExpectedAndFound) {
  const JsonDocument doc = parse_json(
      R"({"s": "16", "i": 3, "f": 2.5, "t": true, "n": null, "a": [1], "o": {}})", "x.json");
  const JsonValue root = doc.root();
  EXPECT_EQ(test::input_error_text([&] { root.at("s").as_integer(); }),
            R"(x.json: /s: expected an integer, got a string ("16"))");
  EXPECT_EQ(test::input_error_text([&] { root.at("i").as_string(); }),
            "x.json: /i: expected a string, got an integer (3)");
  EXPECT_EQ(test::input_error_text([&] { root.at("f").as_string(); }),
            "x.json: /f: expected a string, got a number (2.5)");
  EXPECT_EQ(test::input_error_text([&] { root.at("t").as_string(); }),
            "x.json: /t: expected a string, got true");
  EXPECT_EQ(test::input_error_text([&] { root.at("n").as_string(); }),
            "x.json: /n: expected a string, got null");
  EXPECT_EQ(test::input_error_text([&] { root.at("a").as_string(); }),
            "x.json: /a: expected a string, got an array");
  EXPECT_EQ(test::input_error_text([&] { root.at("o").as_bool(); }),
            "x.json: /o: expected true or false, got an object");
  EXPECT_EQ(test::input_error_text([&] { root.at("a").at("k"); }),
            "x.json: /a: expected an object, got an array");
  EXPECT_EQ(test::input_error_text([&] { root.at("o").at(0); }),
            "x.json: /o: expected an array, got an object");
  EXPECT_EQ(test::input_error_text([&] { root.at("i").size(); }),
            "x.json: /i: expected an array or an object, got an integer (3)");
}

TEST(JsonReader, TheRootPointerPrintsAsSlash) {
  const JsonDocument doc = parse_json("[1, 2]", "x.json");
  EXPECT_EQ(doc.root().json_pointer(), "");
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("fabric"); }),
            "x.json: /: expected an object, got an array");
}

TEST(JsonReader, TypedGettersReturnTheirValues) {
  const JsonDocument doc = parse_json(
      R"({"name": "dgx", "on": false, "count": 16, "share": 0.25, "whole": 3,
          "rate": "400Gbps", "latency": "1.5us", "size": "64M", "bytes": 4096,
          "oversub": "2:1", "plain": 2, "half": 1.5})");
  const JsonValue root = doc.root();
  EXPECT_EQ(root.at("name").as_string(), "dgx");
  EXPECT_FALSE(root.at("on").as_bool());
  EXPECT_EQ(root.at("count").as_integer(1, 64), 16);
  EXPECT_DOUBLE_EQ(root.at("share").as_number(0.0, 1.0), 0.25);
  EXPECT_DOUBLE_EQ(root.at("whole").as_number(), 3.0);  // an integer is a number too
  EXPECT_EQ(root.at("rate").as_bandwidth(), sim::gbps(400));
  EXPECT_EQ(root.at("latency").as_duration(), sim::ps(1'500'000));
  EXPECT_EQ(root.at("size").as_size(), sim::mib(64));
  EXPECT_EQ(root.at("bytes").as_size(), sim::bytes(4096));
  EXPECT_DOUBLE_EQ(root.at("oversub").as_ratio(), 2.0);
  EXPECT_DOUBLE_EQ(root.at("plain").as_ratio(), 2.0);
  EXPECT_DOUBLE_EQ(root.at("half").as_ratio(), 1.5);
}

TEST(JsonReader, IntegerRangeErrorsNameTheBounds) {
  const JsonDocument doc = parse_json(
      R"({"fabric": {"spine": {"count": -2}}, "gpus": 9, "f": 2.5, "g": 2.0})", "scenarios/x.json");
  const JsonValue count = doc.root().at("fabric").at("spine").at("count");
  // The error format's example (docs/scenarios.md, Errors), word for word.
  EXPECT_EQ(test::input_error_text([&] { count.as_integer(1); }),
            "scenarios/x.json: /fabric/spine/count: expected an integer >= 1, got -2");
  const JsonValue gpus = doc.root().at("gpus");
  EXPECT_EQ(test::input_error_text([&] { gpus.as_integer(1, 8); }),
            "scenarios/x.json: /gpus: expected an integer from 1 to 8, got 9");
  EXPECT_EQ(
      test::input_error_text([&] { gpus.as_integer(std::numeric_limits<std::int64_t>::min(), 8); }),
      "scenarios/x.json: /gpus: expected an integer <= 8, got 9");
  EXPECT_EQ(test::input_error_text([&] { gpus.as_integer(-8, -1); }),
            "scenarios/x.json: /gpus: expected an integer from -8 to -1, got 9");
  // 2.5 and 2.0 are JSON numbers with a fraction, not integers.
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("f").as_integer(1); }),
            "scenarios/x.json: /f: expected an integer >= 1, got a number (2.5)");
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("g").as_integer(); }),
            "scenarios/x.json: /g: expected an integer, got a number (2.0)");
}

TEST(JsonReader, IntegersCoverAllOfInt64AndNoMore) {
  const JsonDocument doc =
      parse_json(R"([9223372036854775807, -9223372036854775808, 18446744073709551615])");
  EXPECT_EQ(doc.root().at(0).as_integer(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(doc.root().at(1).as_integer(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(test::input_error_text([&] { doc.root().at(2).as_integer(); }),
            "/2: expected an integer, got 18446744073709551615");
}

TEST(JsonReader, NumberRangeErrorsNameTheBounds) {
  const JsonDocument doc = parse_json(R"({"a": -1, "b": 1.5, "c": "1"})");
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("a").as_number(0.0); }),
            "/a: expected a number >= 0, got -1");
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("b").as_number(0.0, 1.0); }),
            "/b: expected a number from 0 to 1, got 1.5");
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("b").as_number(-1.0 / 0.0, 0.5); }),
            "/b: expected a number <= 0.5, got 1.5");
  EXPECT_EQ(test::input_error_text([&] { doc.root().at("c").as_number(); }),
            R"(/c: expected a number, got a string ("1"))");
}

TEST(JsonReader, QuantityErrorsGainFileAndPointer) {
  const JsonDocument doc = parse_json(
      R"({"links": [{"bandwidth": "400"}, {"bandwidth": 400, "latency": "5", "size": "0.3K"}]})",
      "x.json");
  const JsonValue links = doc.root().at("links");
  EXPECT_EQ(test::input_error_text([&] { links.at(0).at("bandwidth").as_bandwidth(); }),
            R"(x.json: /links/0/bandwidth: expected a bandwidth such as "400Gbps" or "50GB/s", )"
            R"(got "400")");
  EXPECT_EQ(test::input_error_text([&] { links.at(1).at("bandwidth").as_bandwidth(); }),
            R"(x.json: /links/1/bandwidth: expected a bandwidth such as "400Gbps" or "50GB/s", )"
            "got an integer (400)");
  EXPECT_EQ(test::input_error_text([&] { links.at(1).at("latency").as_duration(); }),
            R"(x.json: /links/1/latency: expected a duration such as "1.5us" or "200ns", got "5")");
  EXPECT_EQ(test::input_error_text([&] { links.at(1).at("size").as_size(); }),
            R"(x.json: /links/1/size: expected a size such as "64M", "1GiB" or "4096", )"
            R"(got "0.3K" (not a whole number of bytes))");
}

TEST(JsonReader, SizesAndRatiosRejectNegativeAndFractionalNumbers) {
  const JsonDocument doc = parse_json(R"({"neg": -5, "frac": 1.5, "big": 9223372036854775808,
                                          "ratio": -1, "zero": "2:0"})");
  const JsonValue root = doc.root();
  EXPECT_EQ(test::input_error_text([&] { root.at("neg").as_size(); }),
            R"(/neg: expected a size such as "64M", "1GiB" or "4096", got -5)");
  EXPECT_EQ(test::input_error_text([&] { root.at("frac").as_size(); }),
            R"(/frac: expected a size such as "64M", "1GiB" or "4096", got a number (1.5))");
  EXPECT_EQ(test::input_error_text([&] { root.at("big").as_size(); }),
            R"(/big: expected a size such as "64M", "1GiB" or "4096", got 9223372036854775808)");
  EXPECT_EQ(test::input_error_text([&] { root.at("ratio").as_ratio(); }),
            R"(/ratio: expected a ratio such as "2:1" or "1.5", got -1)");
  EXPECT_EQ(test::input_error_text([&] { root.at("zero").as_ratio(); }),
            R"(/zero: expected a ratio such as "2:1" or "1.5", got "2:0" (zero denominator))");
}

TEST(JsonReader, ChoicesSuggestTheClosestOne) {
  const JsonDocument doc =
      parse_json(R"({"rail": "alinged", "ok": "misaligned", "n": 3})", "x.json");
  EXPECT_EQ(test::input_error_text([&] {
              doc.root().at("rail").as_choice({"aligned", "misaligned", "explicit"});
            }),
            R"(x.json: /rail: expected one of "aligned", "misaligned", "explicit", got "alinged" )"
            R"((did you mean "aligned"?))");
  EXPECT_EQ(doc.root().at("ok").as_choice({"aligned", "misaligned", "explicit"}), "misaligned");
  EXPECT_EQ(test::input_error_text([&] {
              doc.root().at("n").as_choice({"aligned", "misaligned"});
            }),
            R"(x.json: /n: expected one of "aligned", "misaligned", got an integer (3))");
}

enum class Rail { kAligned, kMisaligned };

TEST(JsonReader, EnumChoicesMapNamesToValues) {
  const JsonDocument doc = parse_json(R"(["misaligned", "aligned", "crossed"])");
  const auto rail = [&](std::size_t i) {
    return doc.root().at(i).as_enum<Rail>(
        {{"aligned", Rail::kAligned}, {"misaligned", Rail::kMisaligned}});
  };
  EXPECT_EQ(rail(0), Rail::kMisaligned);
  EXPECT_EQ(rail(1), Rail::kAligned);
  EXPECT_EQ(test::input_error_text([&] { rail(2); }),
            R"(/2: expected one of "aligned", "misaligned", got "crossed")");
}

TEST(JsonReader, UnknownKeysSuggestTheClosestAllowedOne) {
  const JsonDocument doc = parse_json(R"({"fabric": {"leaf": {}, "spnie": {}}})", "x.json");
  const JsonValue fabric = doc.root().at("fabric");
  EXPECT_EQ(test::input_error_text([&] {
              fabric.expect_keys({"leaf", "spine", "rails"});
            }),
            R"(x.json: /fabric/spnie: unknown key "spnie" (did you mean "spine"?); )"
            R"(expected one of "leaf", "spine", "rails")");
  EXPECT_NO_THROW(fabric.expect_keys({"leaf", "spnie"}));
  EXPECT_EQ(test::input_error_text([&] { doc.root().expect_keys({"topology"}); }),
            R"(x.json: /fabric: unknown key "fabric"; expected one of "topology")");
}

TEST(JsonReader, TheFirstUnknownKeyIsTheFirstInTheText) {
  // Not the alphabetically first: "zeta" comes before "alpha" in the text.
  const JsonDocument doc = parse_json(R"({"zeta": 1, "alpha": 2})");
  EXPECT_EQ(test::input_error_text([&] { doc.root().expect_keys({}); }),
            R"(/zeta: unknown key "zeta"; expected no keys)");
  EXPECT_EQ(test::input_error_text([&] { doc.root().expect_keys({"zeta"}); }),
            R"(/alpha: unknown key "alpha"; expected one of "zeta")");
}

TEST(JsonReader, ArrayElementsCarryTheirIndexInThePointer) {
  const JsonDocument doc =
      parse_json(R"({"nodes": [{"name": "a"}, {"name": "b"}, {"name": 7}]})", "x.json");
  const JsonValue nodes = doc.root().at("nodes");
  EXPECT_EQ(nodes.size(), 3U);
  const std::vector<JsonValue> elements = nodes.elements();
  ASSERT_EQ(elements.size(), 3U);
  EXPECT_EQ(elements[0].json_pointer(), "/nodes/0");
  EXPECT_EQ(elements[2].at("name").json_pointer(), "/nodes/2/name");
  EXPECT_EQ(elements[1].at("name").as_string(), "b");
  EXPECT_EQ(test::input_error_text([&] { nodes.at(2).at("name").as_string(); }),
            "x.json: /nodes/2/name: expected a string, got an integer (7)");
  EXPECT_EQ(test::input_error_text([&] { nodes.at(3); }),
            "x.json: /nodes: no element 3 in an array of 3");
}

TEST(JsonReader, PointersEscapeTildeAndSlash) {
  // RFC 6901: "~" is written "~0" and "/" is written "~1", "~" first so that "~1" stays a key.
  const JsonDocument doc = parse_json(R"({"a/b": {"m~n": 5, "~1": {"/~": true}}})");
  const JsonValue inner = doc.root().at("a/b");
  EXPECT_EQ(inner.json_pointer(), "/a~1b");
  EXPECT_EQ(test::input_error_text([&] { inner.at("m~n").as_string(); }),
            "/a~1b/m~0n: expected a string, got an integer (5)");
  EXPECT_EQ(inner.at("~1").at("/~").json_pointer(), "/a~1b/~01/~1~0");
  EXPECT_EQ(test::input_error_text([] { parse_json(R"({"x/y": {"k~": 1, "k~": 2}})"); }),
            R"(/x~1y/k~0: duplicate key "k~")");
}

TEST(JsonReader, MissingKeysAreReportedAtTheirObject) {
  const JsonDocument doc = parse_json(R"({"fabric": {"leaf": {}}})", "x.json");
  const JsonValue fabric = doc.root().at("fabric");
  EXPECT_EQ(test::input_error_text([&] { fabric.at("spine"); }),
            R"(x.json: /fabric: missing key "spine")");
  EXPECT_FALSE(fabric.find("spine").has_value());
  EXPECT_FALSE(fabric.contains("spine"));
  ASSERT_TRUE(fabric.find("leaf").has_value());
  EXPECT_EQ(fabric.find("leaf")->json_pointer(), "/fabric/leaf");
  EXPECT_TRUE(fabric.contains("leaf"));
}

TEST(JsonReader, MembersKeepTheOrderOfTheText) {
  const JsonDocument doc = parse_json(R"({"b": 1, "a": 2, "c": 3})");
  const auto members = doc.root().members();
  ASSERT_EQ(members.size(), 3U);
  EXPECT_EQ(members[0].first, "b");
  EXPECT_EQ(members[1].first, "a");
  EXPECT_EQ(members[2].first, "c");
  EXPECT_EQ(members[1].second.json_pointer(), "/a");
  EXPECT_EQ(members[1].second.as_integer(), 2);
}

TEST(JsonReader, TypePredicatesTellJsonTypesApart) {
  const JsonDocument doc = parse_json(R"([null, true, 3, 2.5, "s", [], {}])");
  const std::vector<JsonValue> v = doc.root().elements();
  ASSERT_EQ(v.size(), 7U);
  EXPECT_TRUE(v[0].is_null());
  EXPECT_TRUE(v[1].is_bool());
  EXPECT_TRUE(v[2].is_integer());
  EXPECT_TRUE(v[2].is_number());
  EXPECT_FALSE(v[3].is_integer());
  EXPECT_TRUE(v[3].is_number());
  EXPECT_TRUE(v[4].is_string());
  EXPECT_TRUE(v[5].is_array());
  EXPECT_TRUE(v[6].is_object());
  EXPECT_FALSE(v[6].is_array());
}

TEST(JsonReader, CallersRaiseTheirOwnErrorsAtAValue) {
  const JsonDocument doc = parse_json(R"({"fabric": {"spine": 2, "leaf": 8}})", "x.json");
  const JsonValue spine = doc.root().at("fabric").at("spine");
  const ScenarioError e = spine.error("expected at least as many spines as rails");
  EXPECT_STREQ(e.what(), "x.json: /fabric/spine: expected at least as many spines as rails");
  EXPECT_EQ(e.json_pointer(), "/fabric/spine");
  EXPECT_EQ(e.file(), "x.json");
}

TEST(JsonReader, ValuesStayValidWhenTheDocumentMoves) {
  JsonDocument first = parse_json(R"({"nodes": [{"name": "a"}]})", "x.json");
  const JsonValue name = first.root().at("nodes").at(0).at("name");
  const JsonDocument second = std::move(first);
  EXPECT_EQ(name.as_string(), "a");
  EXPECT_EQ(name.file(), "x.json");
  EXPECT_EQ(second.root().at("nodes").at(0).at("name").as_string(), "a");
}

}  // namespace
}  // namespace railsim::models::scenario
