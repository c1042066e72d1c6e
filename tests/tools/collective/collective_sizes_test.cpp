// File: tests/tools/collective/collective_sizes_test.cpp
// `railsim collective` on every shipped scenario's system, AllReduce from 8 B to 8 GiB with NCCL's
// own choices: a larger size never takes less time (2% slack), where NCCL's tuner moves from one
// algorithm or protocol to the next included, as it does on a real nccl-tests sweep.
#include "tests/sanitizers.hpp"

#include "models/scenario/system_file.hpp"
#include "tools/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

// AllReduce on the scenario's system from 8 B to 8 GiB in steps of `factor`, every time at least
// 98% of the one before.
void expect_time_grows_with_size(const std::string& scenario, const std::string& factor) {
  std::ostringstream out;
  ASSERT_EQ(run_collective({"--system", scenario, "--op", "all_reduce", "-b", "8", "-e", "8G", "-f",
                            factor, "--format", "json"},
                           out),
            0);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  double previous_us = 0.0;
  std::string previous;
  for (const nlohmann::json& row : doc.at("rows")) {
    const double time_us = row.at("time_us").get<double>();
    const std::string what = std::to_string(row.at("size_bytes").get<std::int64_t>()) + " B " +
                             row.at("algo").get<std::string>() + "/" +
                             row.at("proto").get<std::string>();
    EXPECT_GE(time_us, 0.98 * previous_us)
        << scenario << ": " << what << " after " << previous << " (" << previous_us << " us)";
    previous_us = time_us;
    previous = what;
  }
}

// The shipped scenarios of at most 16 nodes, or (`large`) of more.
std::vector<std::string> shipped_scenarios(bool large) {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(RAILSIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() == ".json" &&
        (models::scenario::load_system_file(entry.path().string()).system.nodes > 16) == large) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CollectiveSizes, TimeNeverFallsAsTheSizeDoublesOnShippedScenariosUpToSixteenNodes) {
  if (railsim::test::kUnderSanitizers) {
    GTEST_SKIP() << "thirty sizes on fourteen systems: checked in the optimised build";
  }
  for (const std::string& scenario : shipped_scenarios(false)) {
    expect_time_grows_with_size(scenario, "2");
  }
}

TEST(CollectiveSizes, TimeNeverFallsAsTheSizeGrowsOnTheShippedSuperPods) {
  if (railsim::test::kUnderSanitizers) {
    GTEST_SKIP() << "a thousand ranks and more at every size: checked in the optimised build";
  }
  for (const std::string& scenario : shipped_scenarios(true)) {
    expect_time_grows_with_size(scenario, "4");
  }
}

}  // namespace
}  // namespace railsim::tools
