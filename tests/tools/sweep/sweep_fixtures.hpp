// File: tests/tools/sweep/sweep_fixtures.hpp
// What the sweep tests share: a small base scenario, an evaluator that only reads its point
// (so engine tests run in microseconds), fresh temporary folders and file helpers.
#pragma once

#include "models/scenario/json_reader.hpp"
#include "tools/sweep/sweep_evaluate.hpp"
#include "tools/sweep/sweep_results.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools::sweep::testing {

// Two dgx-h100 nodes and a 1 MiB AllReduce: small enough to simulate in milliseconds.
inline const std::string base_scenario = R"({
  "name": "base",
  "system": {"node": "dgx-h100", "nodes": 2, "fabric": {"rails": "aligned"}},
  "workload": {"op": "all_reduce", "size": "1M", "nccl": {"algo": "ring", "proto": "simple"}}
})";

// One row per point: the node count, rails and size it was given, read from its document,
// and a value derived from them.
inline PointOutput echo_point(const models::scenario::JsonValue& point) {
  const std::int64_t nodes = point.at("system").at("nodes").as_integer();
  const std::string rails = point.at("system").at("fabric").at("rails").as_string();
  const double size = static_cast<double>(point.at("workload").at("size").as_size().count);
  PointOutput out;
  out.rows = {{{"seen_nodes", nodes},
               {"seen_rails", rails},
               {"per_node", size / 3.0 / static_cast<double>(nodes)}}};
  return out;
}

// A new empty folder under the test's temporary directory, named after the running test, so
// tests running at once never share one and each run replaces its previous run's folder.
inline std::string fresh_folder(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      ("railsim-sweep-" + std::string(test->test_suite_name()) + "." + test->name() + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace railsim::tools::sweep::testing
