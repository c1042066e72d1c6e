// File: tests/calibrate/parse/text_input_test.cpp
// TextInput: lines as a parser reads them. A byte that is not UTF-8 reads as U+FFFD, with the
// line named, so that a Latin-1 host name reaches `railsim parse --format json` as text instead
// of stopping it; the file's own bytes stay as they were (its content hash).
#include "calibrate/parse/text_input.hpp"

#include "tests/calibrate/fixture.hpp"

#include "calibrate/parse/nccl_tests.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

TEST(TextInput, BytesThatAreNotUtf8ReadAsReplacementCharacters) {
  const std::string text =
      "ok\r\nh\xF6st 1\nn\xC3\xB6"
      "de \xFF\xFE\n";
  const TextInput input("x.txt", text);
  ASSERT_EQ(input.line_count(), 3);
  EXPECT_EQ(input.line(1), "ok");
  EXPECT_EQ(input.line(2), "h\xEF\xBF\xBDst 1");
  EXPECT_EQ(input.line(3),
            "n\xC3\xB6"
            "de \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(input.non_utf8_lines(), (std::vector<int>{2, 3}));
  EXPECT_EQ(input.text(), text);
  EXPECT_EQ(non_utf8_warnings(input),
            (std::vector<std::string>{"x.txt:2: bytes that are not UTF-8 read as U+FFFD",
                                      "x.txt:3: bytes that are not UTF-8 read as U+FFFD"}));
}

TEST(TextInput, Utf8TextHasNoWarnings) {
  const TextInput input("x.txt",
                        "n\xC3\xB6"
                        "de\n");
  EXPECT_TRUE(input.non_utf8_lines().empty());
  EXPECT_TRUE(non_utf8_warnings(input).empty());
}

TEST(TextInput, ManyLinesOfThemAreCounted) {
  std::string text;
  for (int line = 0; line < 7; ++line) {
    text += "\xE9\n";
  }
  const TextInput input("x.txt", text);
  const std::vector<std::string> warnings = non_utf8_warnings(input);
  ASSERT_EQ(warnings.size(), 6U);
  EXPECT_EQ(warnings.back(), "x.txt: and 2 more lines with bytes that are not UTF-8");
}

// Issue 26: the smoke log with a Latin-1 host name on line 7 parses, the host as U+FFFD.
TEST(TextInput, ALogWithALatin1HostNameParses) {
  const TextInput input = test::fixture_text("bad/nccl-tests-host-not-utf8");
  const NcclTestsOutput output = parse_nccl_tests(input);
  ASSERT_FALSE(output.runs.empty());
  ASSERT_EQ(output.runs[0].devices.size(), 2U);
  EXPECT_EQ(output.runs[0].devices[0].host, "cnode3-002");
  EXPECT_EQ(output.runs[0].devices[1].host,
            "cn\xEF\xBF\xBD"
            "de3-003");
  EXPECT_EQ(input.non_utf8_lines(), (std::vector<int>{7}));
}

}  // namespace
}  // namespace railsim::calibrate::parse
