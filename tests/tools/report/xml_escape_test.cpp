// File: tests/tools/report/xml_escape_test.cpp
// The one escaping function: the five XML specials, control characters XML 1.0 forbids and bytes
// that are not UTF-8.
#include "tools/report/xml_escape.hpp"

#include <gtest/gtest.h>

namespace railsim::tools::report {
namespace {

TEST(XmlEscape, ReplacesTheFiveSpecialCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
}

TEST(XmlEscape, LeavesPlainAndUtf8TextAlone) {
  EXPECT_EQ(xml_escape("busbw (GB/s) \xC2\xB5s"), "busbw (GB/s) \xC2\xB5s");
  EXPECT_EQ(xml_escape(""), "");
}

TEST(XmlEscape, ReplacesForbiddenControlCharacters) {
  EXPECT_EQ(xml_escape(std::string("a\x01"
                                   "b\tc\n",
                                   6)),
            "a\xEF\xBF\xBD"
            "b\tc\n");
}

TEST(XmlEscape, ReplacesBytesThatAreNotUtf8) {
  // A host name saved in Latin-1 ("h\xF6st", \xF6 being o-umlaut there) keeps its ASCII.
  EXPECT_EQ(xml_escape("h\xF6st<1>"), "h\xEF\xBF\xBDst&lt;1&gt;");
}

}  // namespace
}  // namespace railsim::tools::report
