// File: tests/models/scenario/message_text_test.cpp
// Quoting and suggestions in scenario error messages.
#include "models/scenario/message_text.hpp"

#include "models/did_you_mean.hpp"

#include <gtest/gtest.h>

namespace railsim::models::scenario {
namespace {

TEST(MessageText, QuotesLikeAJsonString) {
  EXPECT_EQ(quote("400"), "\"400\"");
  EXPECT_EQ(quote(""), "\"\"");
  // A quote and a backslash are escaped, a newline (0x0a) and a tab (0x09) written \u00XX.
  EXPECT_EQ(quote("a\"b\\c\nd\te"), R"("a\"b\\c\u000ad\u0009e")");
  EXPECT_EQ(quote("\u00b5s"), "\"\u00b5s\"");  // UTF-8 passes through
}

TEST(MessageText, ListsChoicesQuotedInTheirOrder) {
  EXPECT_EQ(quoted_list({"aligned", "misaligned", "explicit"}),
            R"("aligned", "misaligned", "explicit")");
  EXPECT_EQ(quoted_list({"one"}), R"("one")");
  EXPECT_EQ(quoted_list({}), "");
}

TEST(MessageText, SuggestsTheClosestNameInDoubleQuotes) {
  EXPECT_EQ(closest_match("spnie", {"leaf", "spine", "rails"}), "spine");
  EXPECT_EQ(closest_match("nothing-like", {"leaf", "spine"}), std::nullopt);
  EXPECT_EQ(did_you_mean_quoted("alinged", {"aligned", "misaligned"}),
            R"( (did you mean "aligned"?))");
  EXPECT_EQ(did_you_mean_quoted("xyzzy", {"aligned", "misaligned"}), "");
}

}  // namespace
}  // namespace railsim::models::scenario
