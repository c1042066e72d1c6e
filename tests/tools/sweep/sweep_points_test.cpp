// File: tests/tools/sweep/sweep_points_test.cpp
// Point documents: values set at JSON pointers into objects (replaced in place or added last)
// and arrays (an existing element replaced), any JSON as a value, labels in the cells, and the
// errors for pointers that cannot be set.
#include "tools/sweep/sweep_points.hpp"

#include "sim/input_error.hpp"
#include "tools/sweep/sweep_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::tools::sweep {
namespace {

const std::string toy_base = R"({"a": {"b": 1, "z": 0}, "list": [10, 20, 30], "k~/x": 1})";

SweepFile toy(const std::string& parameters) {
  return parse_sweep(
      R"({"name": "toy", "base": )" + toy_base + R"(, "parameters": )" + parameters + "}",
      "toy.json", ".");
}

std::string error_of(const std::string& parameters) {
  try {
    toy(parameters);
  } catch (const sim::InputError& error) {
    return error.what();
  }
  return "";
}

TEST(SweepPoints, ObjectKeysAreReplacedInPlaceOrAddedLast) {
  const SweepFile sweep = toy(R"([{"name": "p", "set": ["/a/b", "/a/c"], "values": [7]}])");
  EXPECT_EQ(point_document(sweep, 0), R"({"a":{"b":7,"z":0,"c":7},"list":[10,20,30],"k~/x":1})");
}

TEST(SweepPoints, ArrayElementsAreReplaced) {
  const SweepFile sweep = toy(R"([{"name": "p", "set": ["/list/0", "/list/2"], "values": [5]}])");
  EXPECT_EQ(point_document(sweep, 0), R"({"a":{"b":1,"z":0},"list":[5,20,5],"k~/x":1})");
}

TEST(SweepPoints, EscapedKeysAndWholeObjects) {
  // "~0" is "~" and "~1" is "/" (RFC 6901); the value is an object, its label the cell.
  const SweepFile sweep = toy(R"([{"name": "p", "set": ["/k~0~1x"],
      "values": [{"deep": [1, "two"]}, 3], "labels": ["deep", "three"]}])");
  EXPECT_EQ(point_document(sweep, 0),
            R"({"a":{"b":1,"z":0},"list":[10,20,30],"k~/x":{"deep":[1,"two"]}})");
  EXPECT_EQ(point_cells(sweep, 0), std::vector<std::string>{R"("deep")"});
  EXPECT_EQ(point_cells(sweep, 1), std::vector<std::string>{R"("three")"});
  EXPECT_EQ(point_name(sweep, 1), "toy.json point 1 (p=three)");
}

TEST(SweepPoints, ArrayIndexPastTheEndIsAnError) {
  EXPECT_EQ(error_of(R"([{"name": "p", "set": ["/a/b", "/list/3"], "values": [5]}])"),
            "toy.json: /parameters/0/set/1: cannot set /list/3 in the base scenario: no element "
            "3 in /list (it has 3)");
  EXPECT_EQ(error_of(R"([{"name": "p", "set": ["/list/-"], "values": [5]}])"),
            "toy.json: /parameters/0/set/0: cannot set /list/- in the base scenario: /list is an "
            "array: a sweep replaces elements, it does not append");
}

TEST(SweepPoints, MissingParentIsAnError) {
  EXPECT_EQ(error_of(R"([{"name": "p", "set": ["/a/q/r"], "values": [5]}])"),
            "toy.json: /parameters/0/set/0: cannot set /a/q/r in the base scenario: no \"q\" in "
            "/a");
}

TEST(SweepPoints, ParentMadeUnreachableByAnEarlierValueNamesThePoint) {
  // The base has /a/b, but point 1 first replaces /a with a number.
  const SweepFile sweep = toy(R"([{"name": "a", "set": ["/a"], "values": [{"b": 0}, 4]},
      {"name": "b", "set": ["/a/b"], "values": [9]}])");
  EXPECT_EQ(point_document(sweep, 0), R"({"a":{"b":9},"list":[10,20,30],"k~/x":1})");
  try {
    point_document(sweep, 1);
    ADD_FAILURE() << "expected an error";
  } catch (const sim::InputError& error) {
    EXPECT_STREQ(error.what(),
                 "toy.json point 1 (a=4, b=9): /parameters/1/set/0: cannot set /a/b: /a is a "
                 "number, not an object or an array");
  }
}

}  // namespace
}  // namespace railsim::tools::sweep
