// File: tests/tools/sweep/sweep_command_test.cpp
// `railsim sweep` end to end through its entry point, as main() calls it: a sweep file with its
// base beside it, written to --out, printed to stdout, sharded and merged, and bad input
// thrown (main: exit status 2) with no output left behind.
#include "sweep_fixtures.hpp"

#include "sim/input_error.hpp"
#include "tools/command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

using sweep::testing::base_scenario;
using sweep::testing::fresh_folder;
using sweep::testing::read_text;
using sweep::testing::write_text;

// A folder with base.json and rail.json: 2 node counts x 2 cablings x 2 sizes of the base.
std::string sweep_folder(const std::string& name) {
  std::string dir = fresh_folder(name);
  write_text(dir + "/base.json", base_scenario);
  write_text(dir + "/rail.json", R"({
  "name": "rail-design",
  "base": "base.json",
  "parameters": [
    {"name": "nodes", "set": ["/system/nodes"], "values": [2, 3]},
    {"name": "rails", "set": ["/system/fabric/rails"], "values": ["aligned", "misaligned"]},
    {"name": "sizes", "set": ["/workload"], "labels": ["1M", "1M-2M"], "values": [
      {"op": "all_reduce", "size": "1M"},
      {"op": "all_reduce", "minbytes": "1M", "maxbytes": "2M"}]}
  ]
})");
  return dir;
}

std::string run(const std::vector<std::string>& args) {
  std::ostringstream out;
  EXPECT_EQ(run_sweep_command(args, out), 0);
  return out.str();
}

TEST(SweepCommand, WritesCsvAndJsonOfEveryPoint) {
  const std::string dir = sweep_folder("cli-out");
  const std::string printed = run({dir + "/rail.json", "--jobs", "2", "--out", dir + "/out"});
  // 8 points; the 1M-2M points give two rows (1M, 2M): 4 x 1 + 4 x 2 = 12 rows.
  EXPECT_NE(printed.find("sweep rail-design: 8 points, 12 rows: "), std::string::npos) << printed;
  const nlohmann::json json = nlohmann::json::parse(read_text(dir + "/out/results.json"));
  EXPECT_EQ(json["sweep"], "rail-design");
  EXPECT_EQ(json["sweep_hash"].get<std::string>().size(), 16U);
  EXPECT_TRUE(json["shard"].is_null());
  EXPECT_EQ(json["parameters"], (nlohmann::json{"nodes", "rails", "sizes"}));
  EXPECT_EQ(json["points"], 8);
  ASSERT_EQ(json["rows"].size(), 12U);
  // Point 1 (2 nodes, aligned, 1M-2M) is rows 1 and 2; point 2 starts at row 3.
  EXPECT_EQ(json["rows"][2]["point"], 1);
  EXPECT_EQ(json["rows"][2]["sizes"], "1M-2M");
  EXPECT_EQ(json["rows"][2]["size_bytes"], 2097152);
  EXPECT_EQ(json["rows"][3]["point"], 2);
  EXPECT_EQ(json["rows"][3]["rails"], "misaligned");
  const std::string csv = read_text(dir + "/out/results.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,nodes,rails,sizes,size_bytes,time_us,algbw_GBps,busbw_GBps,algo,proto");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 13);
  // Without --out the same CSV goes to stdout.
  EXPECT_EQ(run({dir + "/rail.json", "--jobs", "1"}), csv);
}

TEST(SweepCommand, ShardedRunsMergeToTheUnshardedFiles) {
  const std::string dir = sweep_folder("cli-shards");
  run({dir + "/rail.json", "--out", dir + "/whole"});
  std::vector<std::string> merge_args = {"--merge"};
  for (const char* k : {"1", "2", "3"}) {
    std::string shard_dir = dir + "/shard";
    shard_dir += k;
    run({dir + "/rail.json", "--shard", std::string(k) + "/3", "--out", shard_dir});
    merge_args.push_back(shard_dir);
  }
  merge_args.insert(merge_args.end(), {"--out", dir + "/merged"});
  EXPECT_NE(run(merge_args).find("8 points, 12 rows"), std::string::npos);
  EXPECT_EQ(read_text(dir + "/merged/results.csv"), read_text(dir + "/whole/results.csv"));
  EXPECT_EQ(read_text(dir + "/merged/results.json"), read_text(dir + "/whole/results.json"));
}

// The message `args` throws.
std::string error_of(const std::vector<std::string>& args) {
  std::ostringstream out;
  try {
    run_sweep_command(args, out);
  } catch (const sim::InputError& error) {
    EXPECT_EQ(out.str(), "");
    return error.what();
  }
  return "";
}

TEST(SweepCommand, BadInputThrowsAndWritesNothing) {
  const std::string dir = sweep_folder("cli-bad");
  write_text(dir + "/bad.json", R"({"name": "bad", "base": "base.json", "parameters": [
    {"name": "rails", "set": ["/system/fabric/rails"], "values": ["aligned", "alinged"]}]})");
  const std::string message = error_of({dir + "/bad.json", "--out", dir + "/out"});
  EXPECT_NE(message.find("bad.json point 1 (rails=alinged): /system/fabric/rails: expected one "
                         "of \"aligned\""),
            std::string::npos)
      << message;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  EXPECT_EQ(error_of({dir + "/rail.json", "--shard", "4/3"}),
            "--shard: expected K/N with 1 <= K <= N (such as $SLURM_ARRAY_TASK_ID/4), got '4/3'");
  EXPECT_EQ(error_of({}), "expected a sweep file (railsim sweep SWEEP.json) or --merge DIR...");
  EXPECT_NE(error_of({dir + "/missing.json"}).find("missing.json: cannot read"), std::string::npos);
}

TEST(SweepCommand, AReportInsideTheOutFolderIsRefusedBeforeItRuns) {
  const std::string dir = sweep_folder("cli-report-inside-out");
  EXPECT_EQ(error_of({dir + "/rail.json", "--out", dir + "/out", "--report", dir + "/out/report"}),
            "--report " + dir + "/out/report and --out " + dir +
                "/out: one inside the other, but railsim replaces each folder whole; give them "
                "separate folders (or the same one)");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(SweepCommand, AMergeOntoOneOfItsShardsIsRefusedBeforeItRuns) {
  const std::string dir = sweep_folder("cli-merge-onto-shard");
  run({dir + "/rail.json", "--shard", "1/2", "--out", dir + "/shard1"});
  run({dir + "/rail.json", "--shard", "2/2", "--out", dir + "/shard2"});
  const std::string before = read_text(dir + "/shard1/results.json");
  EXPECT_EQ(error_of({"--merge", dir + "/shard1", dir + "/shard2", "--out", dir + "/shard1"}),
            "--out " + dir + "/shard1/results.csv: the same file as " + dir +
                "/shard1/results.csv, an input of this run; choose another path");
  EXPECT_EQ(read_text(dir + "/shard1/results.json"), before);
}

}  // namespace
}  // namespace railsim::tools
