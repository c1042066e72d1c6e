// File: tests/calibrate/parse/launcher_prefix_test.cpp
// Launcher prefixes come off, and nothing else does: an nccl-tests log under each launcher
// parses to exactly what the clean log gives, and NCCL's own "[0]" and the table rows stay.
#include "calibrate/parse/launcher_prefix.hpp"

#include "tests/calibrate/fixture.hpp"

#include "calibrate/parse/nccl_tests.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::calibrate::parse {
namespace {

TEST(LauncherPrefix, EachLaunchersPrefixComesOff) {
  EXPECT_EQ(without_launcher_prefix("[1,0]<stdout>:# Using devices"), "# Using devices");
  EXPECT_EQ(without_launcher_prefix("[1,12]<stderr>:host:1:1 [4] NCCL INFO x"),
            "host:1:1 [4] NCCL INFO x");
  EXPECT_EQ(without_launcher_prefix(" 3: #  size  count"), "#  size  count");
  EXPECT_EQ(without_launcher_prefix("12:     8   2 float"), "    8   2 float");
  EXPECT_EQ(without_launcher_prefix("[0] # nThread 1"), "# nThread 1");
  EXPECT_EQ(without_launcher_prefix("(nccl-tests, rank=3, pid=4242) # Avg bus bandwidth : 1"),
            "# Avg bus bandwidth : 1");
}

TEST(LauncherPrefix, WhatIsNotAPrefixStays) {
  for (const std::string_view line :
       {"    33554432       4194304    double     sum      -1   837.47", "0:00:03 elapsed",
        "cnode3-002:2201134:2201134 [0] NCCL INFO Bootstrap", "[1,0]stdout: x", "[x] y",
        "10.0.0.1:1234:1234 [0] NCCL INFO", "(a note) in parentheses", ""}) {
    EXPECT_EQ(without_launcher_prefix(line), line);
  }
}

TEST(LauncherPrefix, ALogUnderEachLauncherParsesToTheCellsOfTheCleanLog) {
  const TextInput clean =
      test::fixture_text("nccl-tests_allreduce+sendrecv_h100_2node-1gpn_xxrjun-cluster01-smoke");
  const NcclTestsOutput expected = parse_nccl_tests(clean);
  ASSERT_EQ(expected.runs.size(), 2U);
  for (const std::string prefix :
       {"[1,0]<stdout>:", " 0: ", "[0] ", "(all_reduce_perf, rank=0, pid=2201134) "}) {
    std::string text;
    for (int number = 1; number <= clean.line_count(); ++number) {
      text += prefix + std::string(clean.line(number)) + "\n";
    }
    EXPECT_EQ(parse_nccl_tests(TextInput(clean.name(), text)), expected) << prefix;
  }
}

}  // namespace
}  // namespace railsim::calibrate::parse
