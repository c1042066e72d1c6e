// File: tests/tools/sweep/sweep_merge_test.cpp
// Shard outputs merged: shards 1/3, 2/3 and 3/3 give back the unsharded results.csv and
// results.json byte for byte; a hash mismatch, a duplicate and a missing point are errors
// naming the folder (or the missing shard).
#include "tools/sweep/sweep_merge.hpp"

#include "sweep_fixtures.hpp"

#include "sim/input_error.hpp"
#include "tools/sweep/sweep_file.hpp"
#include "tools/sweep/sweep_runner.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::tools::sweep {
namespace {

using testing::base_scenario;
using testing::echo_point;
using testing::read_text;

const std::string sweep_text =
    R"({"name": "merge", "base": )" + base_scenario + R"(, "parameters": [
  {"name": "nodes", "set": ["/system/nodes"], "values": [2, 3, 4]},
  {"name": "rails", "set": ["/system/fabric/rails"], "values": ["aligned", "misaligned"],
   "labels": ["al", "mis"]},
  {"name": "size", "set": ["/workload/size"], "values": ["1M", "2M"]}]})";

// Writes the output of `shard` (or of the whole sweep) of `text` into a fresh folder `name`.
std::string write_shard(const std::string& text,
                        const std::string& name,
                        std::optional<Shard> shard) {
  RunOptions options;
  options.jobs = 2;
  options.shard = shard;
  std::string dir = testing::fresh_folder(name);
  write_results(dir, run_points(parse_sweep(text, "merge.json", "."), echo_point, options));
  return dir;
}

std::string merge_error(const std::vector<std::string>& folders) {
  try {
    merge_results(folders);
  } catch (const sim::InputError& error) {
    return error.what();
  }
  return "";
}

TEST(SweepMerge, ThreeShardsMergeToTheUnshardedOutputByteForByte) {
  const std::string whole = write_shard(sweep_text, "whole", std::nullopt);
  // Given out of order, as a shell glob of unpadded numbers might list them.
  const std::vector<std::string> shards = {write_shard(sweep_text, "s3", Shard{3, 3}),
                                           write_shard(sweep_text, "s1", Shard{1, 3}),
                                           write_shard(sweep_text, "s2", Shard{2, 3})};
  const std::string merged = testing::fresh_folder("merged");
  write_results(merged, merge_results(shards));
  EXPECT_EQ(read_text(merged + "/results.csv"), read_text(whole + "/results.csv"));
  EXPECT_EQ(read_text(merged + "/results.json"), read_text(whole + "/results.json"));
  EXPECT_NE(read_text(whole + "/results.json").find(R"("shard": null)"), std::string::npos);
  EXPECT_NE(read_text(shards[0] + "/results.json").find(R"("shard": "3/3")"), std::string::npos);
}

TEST(SweepMerge, DifferentSweepFilesAreRefused) {
  const std::string a = write_shard(sweep_text, "hash-a", Shard{1, 2});
  const std::string b = write_shard(sweep_text + " ", "hash-b", Shard{2, 2});
  const std::string message = merge_error({a, b});
  EXPECT_NE(message.find("--merge: " + b + ": sweep_hash "), std::string::npos) << message;
  EXPECT_NE(message.find("outputs of different sweep files"), std::string::npos) << message;
}

TEST(SweepMerge, APointInTwoFoldersIsRefused) {
  const std::string a = write_shard(sweep_text, "dup-a", Shard{1, 2});
  const std::string b = write_shard(sweep_text, "dup-b", Shard{1, 2});
  const std::string c = write_shard(sweep_text, "dup-c", Shard{2, 2});
  EXPECT_EQ(merge_error({a, c, b}),
            "--merge: " + b + ": point 0 is also in " + a + " (shard 1/2 and shard 1/2)");
}

TEST(SweepMerge, AMissingShardIsNamed) {
  const std::string a = write_shard(sweep_text, "miss-a", Shard{1, 3});
  const std::string c = write_shard(sweep_text, "miss-c", Shard{3, 3});
  EXPECT_EQ(merge_error({a, c}),
            "--merge: point 1 is in none of the folders: is the output of shard 2/3 missing?");
}

TEST(SweepMerge, AnEditedResultsJsonIsRefusedByItsOwnHash) {
  const std::string a = write_shard(sweep_text, "edited-a", Shard{1, 2});
  const std::string b = write_shard(sweep_text, "edited-b", Shard{2, 2});
  // A value made negative by hand, in the JSON alone: the rows no longer match their hash.
  std::string json = read_text(b + "/results.json");
  const std::size_t at = json.find("\"per_node\": ");
  ASSERT_NE(at, std::string::npos);
  json.insert(at + 12, "-");
  testing::write_text(b + "/results.json", json);
  const std::string message = merge_error({a, b});
  EXPECT_EQ(message.rfind(b + "/results.json: /rows: the rows do not match their rows_hash ", 0),
            0U)
      << message;
}

TEST(SweepMerge, ACsvThatDisagreesWithItsJsonIsRefused) {
  const std::string a = write_shard(sweep_text, "mixed-a", Shard{1, 2});
  const std::string b = write_shard(sweep_text, "mixed-b", Shard{2, 2});
  // b's CSV from another run: a's.
  testing::write_text(b + "/results.csv", read_text(a + "/results.csv"));
  EXPECT_EQ(merge_error({a, b}),
            "--merge: " + b +
                ": results.csv and results.json disagree: one was changed after the sweep wrote "
                "them; run the sweep (or its shard) again");
}

TEST(SweepMerge, AFolderWithoutResultsIsNamed) {
  const std::string empty = testing::fresh_folder("no-results");
  EXPECT_EQ(merge_error({empty}).rfind("--merge: " + empty + ": cannot read ", 0), 0U);
}

}  // namespace
}  // namespace railsim::tools::sweep
