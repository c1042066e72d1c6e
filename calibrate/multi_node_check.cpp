// File: calibrate/multi_node_check.cpp
#include "calibrate/multi_node_check.hpp"

#include "calibrate/nccl_run_check.hpp"
#include "calibrate/population_outliers.hpp"
#include "calibrate/text_input.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <tuple>

namespace railsim::calibrate {
namespace {

struct RunFigure {
  std::size_t log_index = 0;
  std::size_t run_index = 0;
  const NcclEvidence* log = nullptr;
  const NcclTestsRun* run = nullptr;
  const NcclTestsRow* row = nullptr;
};

std::string shape_of(const RunFigure& f) {
  return fmt::format("{} {}x{} at {}", f.run->op, f.log->nodes.size(), f.log->gpus.size(),
                     size_text(f.row->size_bytes));
}

void judge_median(const std::vector<RunFigure>& figures,
                  double median,
                  const CalibratedModel& model,
                  std::vector<Finding>& out) {
  const RunFigure& first = figures.front();
  const NcclPrediction p = predict_nccl(*first.log, *first.run, model, first.row->size_bytes);
  Finding f{CheckLayer::kNccl, "busbw vs model", shape_of(first), first.log->log.file, "", "",
            Verdict::kSkipped, Severity::kNone,  p.why_not};
  if (p.time_us) {
    // Every run is at one size, so any run's row converts the predicted time.
    const double predicted = busbw_at(*first.row, *p.time_us);
    const bool ok = median >= (1.0 - kNcclTolerance) * predicted;
    f.expected = fmt::format("busbw >= {:.0f}% of the model's {:.2f} GB/s",
                             100.0 * (1.0 - kNcclTolerance), predicted);
    f.measured = fmt::format("the median of {} runs: {:.2f} GB/s", figures.size(), median);
    f.verdict = ok ? Verdict::kPass : Verdict::kFail;
    f.severity = ok ? Severity::kNone : Severity::kMajor;
    f.next = ok ? ""
                : "every run is slower than the design allows: check the RDMA layer, then "
                  "NCCL's choices (NCCL_DEBUG=INFO: channels, NICs per GPU, GDR, PXN)";
  }
  out.push_back(std::move(f));
}

void check_population(const std::vector<RunFigure>& figures,
                      const CalibratedModel& model,
                      std::vector<Finding>& out) {
  std::vector<PopulationMember> members;
  members.reserve(figures.size());
  for (const RunFigure& f : figures) {
    members.push_back({f.log->nodes, f.row->out_of_place.busbw_GBps});
  }
  const PopulationVerdict v = find_outliers(members, true);
  judge_median(figures, v.median, model, out);
  const std::string bound = fmt::format(">= {:.2f} GB/s (the runs' median {:.2f} less {:.2f})",
                                        v.median - v.allowed, v.median, v.allowed);
  for (const BlamedEnd& end : v.blamed) {
    std::vector<std::string> seen;
    seen.reserve(end.members.size());
    for (const std::size_t i : end.members) {
      seen.push_back(fmt::format("{} {:.2f} GB/s", figures[i].log->label,
                                 figures[i].row->out_of_place.busbw_GBps));
    }
    const RunFigure& first = figures[end.members.front()];
    out.push_back({CheckLayer::kMultiNode, "node across runs", end.end,
                   place(first.log->log.file, first.row->line), bound,
                   fmt::format("all {} of its runs: {}", end.members.size(), fmt::join(seen, ", ")),
                   Verdict::kFail, Severity::kMajor,
                   fmt::format("every run with {} is slow: check that GPUDirect RDMA works there "
                               "(nvidia-peermem loaded, NCCL_DEBUG=INFO shows GDRDMA on its NICs), "
                               "then its RDMA pairs, link state and PCIe above",
                               end.end)});
  }
  for (const std::size_t i : v.unexplained) {
    const RunFigure& f = figures[i];
    out.push_back({CheckLayer::kMultiNode, "node set across runs", f.log->label,
                   place(f.log->log.file, f.row->line), bound,
                   fmt::format("{:.2f} GB/s on {}", f.row->out_of_place.busbw_GBps,
                               fmt::join(f.log->nodes, ", ")),
                   Verdict::kFail, Severity::kMajor,
                   "slow only on this set of nodes: rerun it to rule out a transient or a "
                   "neighbour's traffic, then check the switch path between them"});
  }
  if (v.blamed.empty() && v.unexplained.empty()) {
    out.push_back({CheckLayer::kMultiNode, "node across runs", shape_of(figures.front()),
                   figures.front().log->log.file, bound,
                   fmt::format("all {} runs within it", figures.size()), Verdict::kPass,
                   Severity::kNone, ""});
  }
}

}  // namespace

std::vector<std::set<std::size_t>> check_multi_node(const std::vector<NcclEvidence>& logs,
                                                    const CalibratedModel& model,
                                                    std::vector<Finding>& out) {
  // Populations keyed by shape, in the order of their first run.
  std::vector<std::vector<RunFigure>> populations;
  std::map<std::tuple<std::string, std::size_t, std::size_t, std::int64_t>, std::size_t> index;
  for (std::size_t l = 0; l < logs.size(); ++l) {
    const NcclEvidence& log = logs[l];
    for (std::size_t r = 0; r < log.log.output.runs.size(); ++r) {
      const NcclTestsRun& run = log.log.output.runs[r];
      const NcclTestsRow* row = judged_row(run);
      if (row == nullptr || log.nodes.empty() || row->out_of_place.time_us <= 0.0) {
        continue;
      }
      const auto key = std::make_tuple(run.op, log.nodes.size(), log.gpus.size(), row->size_bytes);
      const auto [it, added] = index.try_emplace(key, populations.size());
      if (added) {
        populations.emplace_back();
      }
      populations[it->second].push_back({l, r, &log, &run, row});
    }
  }
  std::vector<std::set<std::size_t>> judged(logs.size());
  for (const std::vector<RunFigure>& population : populations) {
    if (static_cast<int>(population.size()) < kOutlierMinMembers) {
      continue;
    }
    check_population(population, model, out);
    for (const RunFigure& f : population) {
      judged[f.log_index].insert(f.run_index);
    }
  }
  return judged;
}

}  // namespace railsim::calibrate
