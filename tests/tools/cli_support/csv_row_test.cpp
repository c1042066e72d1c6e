// File: tests/tools/cli_support/csv_row_test.cpp
// CSV fields as RFC 4180 has them (section 2, rules 5-7), written out by hand.
#include "tools/cli_support/csv_row.hpp"

#include <gtest/gtest.h>

namespace railsim::tools {
namespace {

TEST(CsvRow, QuotesOnlyTheFieldsThatNeedIt) {
  EXPECT_EQ(csv_field("dgx-h100"), "dgx-h100");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("0-31,64-95"), "\"0-31,64-95\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

TEST(CsvRow, JoinsTheFieldsAndEndsTheLine) {
  EXPECT_EQ(csv_row({"1048576", "systems/a,b.json", "12.500"}),
            "1048576,\"systems/a,b.json\",12.500\n");
  EXPECT_EQ(csv_row({}), "\n");
  EXPECT_EQ(csv_row({""}), "\n");
  EXPECT_EQ(csv_row({"", ""}), ",\n");
}

}  // namespace
}  // namespace railsim::tools
