// File: tests/tools/sweep/sweep_file_test.cpp
// Reading sweep files: grid and list expansion (counts and order worked out by hand), and each
// error in a sweep file as one message naming the file and the JSON pointer in it.
#include "tools/sweep/sweep_file.hpp"

#include "sweep_fixtures.hpp"

#include "models/scenario/scenario_error.hpp"
#include "tools/sweep/sweep_points.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::tools::sweep {
namespace {

using testing::base_scenario;

SweepFile parse(const std::string& rest) {
  return parse_sweep(R"({"name": "t", "base": )" + base_scenario + ", " + rest + "}", "rail.json",
                     ".");
}

// The message parse() throws for `rest`, or "" if it reads.
std::string error_of(const std::string& rest) {
  try {
    parse(rest);
  } catch (const sim::InputError& error) {
    return error.what();
  }
  return "";
}

const std::string three_parameters = R"("parameters": [
  {"name": "nodes", "set": ["/system/nodes"], "values": [2, 3, 4]},
  {"name": "rails", "set": ["/system/fabric/rails"], "values": ["aligned", "misaligned"]},
  {"name": "size", "set": ["/workload/size"], "values": ["1M", "2M"]}])";

TEST(SweepFile, GridIsTheProductWithTheFirstParameterSlowest) {
  const SweepFile sweep = parse(three_parameters);
  // 3 x 2 x 2 points; point 0 takes every first value, point 1 the last parameter's second,
  // point 4 = 1 x 4 + 0 x 2 + 0: nodes' second value, and the last point every last value.
  ASSERT_EQ(sweep.points, 12U);
  EXPECT_EQ(value_indices(sweep, 0), (std::vector<std::size_t>{0, 0, 0}));
  EXPECT_EQ(value_indices(sweep, 1), (std::vector<std::size_t>{0, 0, 1}));
  EXPECT_EQ(value_indices(sweep, 2), (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(value_indices(sweep, 4), (std::vector<std::size_t>{1, 0, 0}));
  EXPECT_EQ(value_indices(sweep, 11), (std::vector<std::size_t>{2, 1, 1}));
  EXPECT_EQ(point_cells(sweep, 7), (std::vector<std::string>{"3", R"("misaligned")", R"("2M")"}));
}

TEST(SweepFile, ListZipsTheValueLists) {
  const SweepFile sweep = parse(R"("mode": "list", "parameters": [
    {"name": "nodes", "set": ["/system/nodes"], "values": [2, 3, 4]},
    {"name": "size", "set": ["/workload/size"], "values": ["1M", "2M", "4M"]}])");
  ASSERT_EQ(sweep.points, 3U);
  EXPECT_EQ(point_cells(sweep, 0), (std::vector<std::string>{"2", R"("1M")"}));
  EXPECT_EQ(point_cells(sweep, 2), (std::vector<std::string>{"4", R"("4M")"}));
}

TEST(SweepFile, HashIsFnv1a64OfTheBytes) {
  // FNV-1a 64 reference values: the empty string is the offset basis; "a" is its published
  // test vector.
  EXPECT_EQ(fnv1a_64_hex(""), "cbf29ce484222325");
  EXPECT_EQ(fnv1a_64_hex("a"), "af63dc4c8601ec8c");
}

TEST(SweepFile, BasePathIsReadRelativeToTheSweepFile) {
  const std::string dir = testing::fresh_folder("base-path");
  std::filesystem::create_directories(dir + "/sweeps");
  testing::write_text(dir + "/base.json", base_scenario);
  testing::write_text(dir + "/sweeps/s.json", R"({"name": "s", "base": "../base.json",
    "parameters": [{"name": "nodes", "set": ["/system/nodes"], "values": [3]}]})");
  const SweepFile sweep = read_sweep_file(dir + "/sweeps/s.json");
  EXPECT_EQ(sweep.points, 1U);
  EXPECT_NE(point_document(sweep, 0).find(R"("nodes":3)"), std::string::npos);
}

struct BadSweep {
  const char* name;
  std::string rest;      // after "name" and "base"
  std::string expected;  // the whole message, or a part of it
};

class SweepFileErrors : public ::testing::TestWithParam<BadSweep> {};

TEST_P(SweepFileErrors, NameTheFileAndThePointer) {
  const std::string message = error_of(GetParam().rest);
  EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  EXPECT_EQ(message.rfind("rail.json: /", 0), 0U) << message;
}

INSTANTIATE_TEST_SUITE_P(
    SweepFile,
    SweepFileErrors,
    ::testing::Values(
        BadSweep{"UnknownKey", R"("paramters": [], "parameters": [])",
                 R"(rail.json: /paramters: unknown key "paramters" (did you mean "parameters"?))"},
        BadSweep{"MissingName", R"("parameters": [{"set": ["/system/nodes"], "values": [2]}])",
                 R"(rail.json: /parameters/0: missing key "name")"},
        BadSweep{"MissingSet", R"("parameters": [{"name": "n", "values": [2]}])",
                 R"(rail.json: /parameters/0: missing key "set")"},
        BadSweep{"MissingValues", R"("parameters": [{"name": "n", "set": ["/system/nodes"]}])",
                 R"(rail.json: /parameters/0: missing key "values")"},
        BadSweep{"EmptyValues",
                 R"("parameters": [{"name": "n", "set": ["/system/nodes"], "values": []}])",
                 R"(rail.json: /parameters/0/values: expected at least one value)"},
        BadSweep{"ParentAbsent",
                 R"("parameters": [{"name": "n", "set": ["/system/nodes"], "values": [2]},
                    {"name": "r", "set": ["/workload/nodes", "/system/fabrik/rails"], "values": [1]}])",
                 R"(rail.json: /parameters/1/set/1: cannot set /system/fabrik/rails in the base )"
                 R"(scenario: no "fabrik" in /system (did you mean "fabric"?))"},
        BadSweep{
            "ArrayIndexAbsent",
            R"("parameters": [{"name": "f", "set": ["/system/faults/0/rate_scale"], "values": [0.5]}])",
            R"(rail.json: /parameters/0/set/0: cannot set /system/faults/0/rate_scale in the )"
            R"(base scenario: no "faults" in /system)"},
        BadSweep{"ParentIsAScalar",
                 R"("parameters": [{"name": "n", "set": ["/system/nodes/x"], "values": [2]}])",
                 R"(rail.json: /parameters/0/set/0: cannot set /system/nodes/x in the base )"
                 R"(scenario: /system/nodes is a number, not an object or an array)"},
        BadSweep{"NotAPointer",
                 R"("parameters": [{"name": "n", "set": ["system/nodes"], "values": [2]}])",
                 R"(rail.json: /parameters/0/set/0: cannot set system/nodes in the base )"
                 R"(scenario: expected a JSON pointer starting with "/")"},
        BadSweep{"PointerSetTwice",
                 R"("parameters": [{"name": "a", "set": ["/system/nodes"], "values": [2]},
                    {"name": "b", "set": ["/system/nodes"], "values": [3]}])",
                 R"(rail.json: /parameters/1/set/0: /system/nodes is already set by )"
                 R"(/parameters/0/set/0)"},
        BadSweep{"DuplicateName",
                 R"("parameters": [{"name": "n", "set": ["/system/nodes"], "values": [2]},
                    {"name": "n", "set": ["/workload/size"], "values": ["1M"]}])",
                 R"(rail.json: /parameters/1/name: parameter "n" is already defined at )"
                 R"(/parameters/0)"},
        BadSweep{"ReservedName",
                 R"("parameters": [{"name": "point", "set": ["/system/nodes"], "values": [2]}])",
                 R"(rail.json: /parameters/0/name: "point" is the column)"},
        BadSweep{"ListOfUnequalLengths",
                 R"("mode": "list", "parameters": [
                    {"name": "n", "set": ["/system/nodes"], "values": [2, 3]},
                    {"name": "s", "set": ["/workload/size"], "values": ["1M", "2M", "4M"]}])",
                 R"(rail.json: /parameters/1/values: list mode: expected 2 values, as )"
                 R"(/parameters/0/values has, got 3)"},
        BadSweep{"UnknownMode", R"("mode": "zip", "parameters": [])",
                 R"(rail.json: /mode: expected one of "grid", "list", got "zip")"},
        BadSweep{"LabelsOfTheWrongLength",
                 R"("parameters": [{"name": "n", "set": ["/system/nodes"], "values": [2, 3],
                    "labels": ["two"]}])",
                 R"(rail.json: /parameters/0/labels: expected one label per value (2), got 1)"},
        BadSweep{"NoParameters", R"("parameters": [])",
                 R"(rail.json: /parameters: expected at least one parameter)"},
        BadSweep{"MoreThanAMillionPoints",
                 R"("parameters": [
                    {"name": "a", "set": ["/system/nodes"], "values": [1,2,3,4,5,6,7,8,9,10]},
                    {"name": "b", "set": ["/workload/size"], "values": [1,2,3,4,5,6,7,8,9,10]},
                    {"name": "c", "set": ["/workload/op"], "values": [1,2,3,4,5,6,7,8,9,10]},
                    {"name": "d", "set": ["/system/node"], "values": [1,2,3,4,5,6,7,8,9,10]},
                    {"name": "e", "set": ["/system/fabric/rails"], "values": [1,2,3,4,5,6,7,8,9,10]},
                    {"name": "f", "set": ["/name"], "values": [1,2,3,4,5,6,7,8,9,10]},
                    {"name": "g", "set": ["/workload/nccl/algo"], "values": [1,2]}])",
                 R"(rail.json: /parameters: the grid has more than 1000000 points)"}),
    [](const ::testing::TestParamInfo<BadSweep>& bad) { return std::string(bad.param.name); });

TEST(SweepFile, UnreadableBaseNamesTheBaseKey) {
  const std::string message = [] {
    try {
      parse_sweep(R"({"name": "t", "base": "no-such.json", "parameters": []})", "rail.json",
                  "/nonexistent");
    } catch (const sim::InputError& error) {
      return std::string(error.what());
    }
    return std::string();
  }();
  EXPECT_NE(message.find("rail.json: /base: cannot read the base scenario"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace railsim::tools::sweep
