// File: tools/sweep/sweep_merge.cpp
// Merging shard outputs, each checked unchanged since its sweep wrote it. Which points a folder
// holds follows from its shard (K/N), not from its rows, so a point whose evaluation gave no rows
// still counts as present.
#include "tools/sweep/sweep_merge.hpp"

#include "sim/input_error.hpp"
#include "sim/input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace railsim::tools::sweep {
namespace {

constexpr std::size_t kNobody = static_cast<std::size_t>(-1);

std::string read_shard_file(const std::string& folder, const char* name) {
  const std::string path = (std::filesystem::path(folder) / name).string();
  std::string problem;
  std::string text = sim::read_input_file(path, problem);
  if (!problem.empty()) {
    throw sim::InputError(fmt::format("--merge: {}: cannot read {}: {}", folder, path, problem));
  }
  return text;
}

// A shard's results.json, checked against its own rows_hash (by parse_results_json) and against
// the results.csv beside it: a pair that disagrees was edited, or mixed from two runs.
SweepResults read_folder(const std::string& folder) {
  const std::string json = (std::filesystem::path(folder) / "results.json").string();
  SweepResults results = parse_results_json(read_shard_file(folder, "results.json"), json);
  if (read_shard_file(folder, "results.csv") != results_csv(results)) {
    throw sim::InputError(fmt::format(
        "--merge: {}: results.csv and results.json disagree: one was changed after the sweep "
        "wrote them; run the sweep (or its shard) again",
        folder));
  }
  return results;
}

std::string shard_label(const SweepResults& results) {
  return results.shard ? "shard " + shard_text(*results.shard) : "the whole sweep";
}

}  // namespace

SweepResults merge_results(const std::vector<std::string>& folders) {
  if (folders.empty()) {
    throw sim::InputError("--merge: expected at least one folder of shard outputs");
  }
  std::vector<SweepResults> parts;
  parts.reserve(folders.size());
  for (const std::string& folder : folders) {
    parts.push_back(read_folder(folder));
  }
  const SweepResults& first = parts.front();
  std::vector<std::size_t> holder(first.points, kNobody);
  for (std::size_t f = 0; f < parts.size(); ++f) {
    const SweepResults& part = parts[f];
    if (part.sweep_hash != first.sweep_hash) {
      throw sim::InputError(fmt::format(
          "--merge: {}: sweep_hash {} differs from {} of {}: outputs of different sweep files",
          folders[f], part.sweep_hash, first.sweep_hash, folders.front()));
    }
    if (part.points != first.points || part.parameters != first.parameters) {
      throw sim::InputError(fmt::format(
          "--merge: {}: its points or parameters differ from those of {}, for the same sweep_hash",
          folders[f], folders.front()));
    }
    for (std::size_t point = 0; point < part.points; ++point) {
      if (part.shard && !shard_runs(*part.shard, point)) {
        continue;
      }
      if (holder[point] != kNobody) {
        throw sim::InputError(fmt::format("--merge: {}: point {} is also in {} ({} and {})",
                                          folders[f], point, folders[holder[point]],
                                          shard_label(part), shard_label(parts[holder[point]])));
      }
      holder[point] = f;
    }
    for (const ResultRow& row : part.rows) {
      if (row.point >= part.points || holder[row.point] != f) {
        throw sim::InputError(fmt::format("--merge: {}: a row of point {}, which {} does not run",
                                          folders[f], row.point, shard_label(part)));
      }
    }
  }
  for (std::size_t point = 0; point < holder.size(); ++point) {
    if (holder[point] == kNobody) {
      // Any folder's N tells the shard the point belongs to in the usual case of equal N.
      const int count = first.shard ? first.shard->count : 1;
      throw sim::InputError(fmt::format(
          "--merge: point {} is in none of the folders: is the output of shard {}/{} missing?",
          point, point % static_cast<std::size_t>(count) + 1, count));
    }
  }
  SweepResults merged;
  merged.sweep = first.sweep;
  merged.sweep_hash = first.sweep_hash;
  merged.parameters = first.parameters;
  merged.points = first.points;
  for (SweepResults& part : parts) {
    std::move(part.rows.begin(), part.rows.end(), std::back_inserter(merged.rows));
  }
  // Stable: a point's rows keep the evaluator's order, as in the unsharded output.
  std::stable_sort(merged.rows.begin(), merged.rows.end(),
                   [](const ResultRow& a, const ResultRow& b) { return a.point < b.point; });
  return merged;
}

}  // namespace railsim::tools::sweep
