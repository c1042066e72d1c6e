// File: tests/sim/utf8_test.cpp
// Well-formed UTF-8 per Unicode table 3-7: what is kept, and each byte that is not part of a
// well-formed sequence replaced by one U+FFFD.
#include "sim/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::sim {
namespace {

TEST(Utf8, AsciiAndWellFormedSequencesAreKept) {
  const std::string text = "node-7 \xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";  // é, €, 😀
  EXPECT_TRUE(is_utf8(text));
  EXPECT_EQ(replace_non_utf8(text), text);
  EXPECT_EQ(utf8_sequence_length("\xF4\x8F\xBF\xBF"), 4U);  // U+10FFFF, the last code point
}

TEST(Utf8, EachStrayByteBecomesOneReplacementCharacter) {
  // A Latin-1 "é" (0xE9, then an ASCII letter that cannot continue it) and a lone continuation.
  EXPECT_FALSE(is_utf8("caf\xE9-01"));
  EXPECT_EQ(replace_non_utf8("caf\xE9-01"), "caf\xEF\xBF\xBD-01");
  EXPECT_EQ(replace_non_utf8("\x80"), "\xEF\xBF\xBD");
}

TEST(Utf8, OverlongSurrogateAndOutOfRangeFormsAreRefused) {
  EXPECT_EQ(utf8_sequence_length("\xC0\xAF"), 0U);          // overlong "/"
  EXPECT_EQ(utf8_sequence_length("\xE0\x80\xAF"), 0U);      // overlong "/"
  EXPECT_EQ(utf8_sequence_length("\xED\xA0\x80"), 0U);      // U+D800, a surrogate
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80"), 0U);  // U+110000
  EXPECT_EQ(utf8_sequence_length("\xF5\x80\x80\x80"), 0U);
}

TEST(Utf8, ASequenceCutShortIsRefused) {
  EXPECT_EQ(utf8_sequence_length("\xE2\x82"), 0U);
  EXPECT_EQ(replace_non_utf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8_sequence_length(""), 0U);
}

}  // namespace
}  // namespace railsim::sim
