// File: tests/models/scenario/scenario_error_test.cpp
// ScenarioError's text: file, place, then message, as docs/scenarios.md (Errors) spells it.
#include "models/scenario/scenario_error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::models::scenario {
namespace {

TEST(ScenarioError, ReadsFileThenPointerThenMessage) {
  // The error format's example, word for word.
  const ScenarioError e("scenarios/x.json", "/fabric/spine/count",
                        "expected an integer >= 1, got -2");
  EXPECT_STREQ(e.what(), "scenarios/x.json: /fabric/spine/count: expected an integer >= 1, got -2");
  EXPECT_EQ(e.file(), "scenarios/x.json");
  EXPECT_EQ(e.json_pointer(), "/fabric/spine/count");
  EXPECT_EQ(e.message(), "expected an integer >= 1, got -2");
  EXPECT_TRUE(e.at_value());
  EXPECT_EQ(e.line(), 0U);
  EXPECT_EQ(e.column(), 0U);
}

TEST(ScenarioError, LeavesOutTheFileWhenThereIsNone) {
  const ScenarioError e("", "/nodes", "expected an integer, got a string (\"16\")");
  EXPECT_STREQ(e.what(), "/nodes: expected an integer, got a string (\"16\")");
  EXPECT_EQ(e.file(), "");
}

TEST(ScenarioError, PrintsTheRootPointerAsSlash) {
  // RFC 6901 writes the whole document as "", which would print as nothing at all.
  const ScenarioError e("x.json", "", "expected an object, got an array");
  EXPECT_STREQ(e.what(), "x.json: /: expected an object, got an array");
  EXPECT_EQ(e.json_pointer(), "");
  EXPECT_TRUE(e.at_value());
  EXPECT_STREQ(ScenarioError("", "", "expected an object, got null").what(),
               "/: expected an object, got null");
}

TEST(ScenarioError, TextPositionsAttachToTheFileName) {
  const ScenarioError e = ScenarioError::in_text("x.json", 3, 17, "syntax error");
  EXPECT_STREQ(e.what(), "x.json:3:17: syntax error");
  EXPECT_EQ(e.line(), 3U);
  EXPECT_EQ(e.column(), 17U);
  EXPECT_EQ(e.json_pointer(), "");
  EXPECT_FALSE(e.at_value());
  EXPECT_STREQ(ScenarioError::in_text("", 1, 2, "syntax error").what(), "1:2: syntax error");
}

TEST(ScenarioError, FileErrorsNameOnlyTheFile) {
  const ScenarioError e = ScenarioError::in_file("x.json", "cannot read: Permission denied");
  EXPECT_STREQ(e.what(), "x.json: cannot read: Permission denied");
  EXPECT_FALSE(e.at_value());
  EXPECT_STREQ(ScenarioError::in_file("", "number overflow").what(), "number overflow");
}

TEST(ScenarioError, IsAnInputErrorAndCopiesKeepTheLocation) {
  try {
    throw ScenarioError("x.json", "/a/0", "expected a string, got null");
  } catch (const sim::InputError& e) {
    EXPECT_STREQ(e.what(), "x.json: /a/0: expected a string, got null");
    const auto* scenario = dynamic_cast<const ScenarioError*>(&e);
    ASSERT_NE(scenario, nullptr);
    const ScenarioError copy = *scenario;
    EXPECT_EQ(copy.json_pointer(), "/a/0");
    EXPECT_STREQ(copy.what(), e.what());
  }
}

}  // namespace
}  // namespace railsim::models::scenario
