// File: calibrate/check/multi_node_check.cpp
#include "calibrate/check/multi_node_check.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "calibrate/check/population_outliers.hpp"
#include "calibrate/parse/text_input.hpp"
#include "sim/bytes.hpp"
#include "sim/median.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace railsim::calibrate::check {

using fit::CalibratedModel;
using parse::NcclEvidence;
using parse::NcclTestsRow;
using parse::NcclTestsRun;

namespace {

struct RunFigure {
  std::size_t log_index = 0;
  std::size_t run_index = 0;
  const NcclEvidence* log = nullptr;
  const NcclTestsRun* run = nullptr;
  const NcclTestsRow* row = nullptr;

  double busbw() const { return row->out_of_place.busbw_GBps; }

  std::string evidence() const { return parse::place(log->log.file, row->line); }
};

// The runs of one shape on one set of nodes and GPUs, in the order of the logs.
struct Job {
  std::vector<RunFigure> repeats;
  double busbw = 0.0;  // the repeats' median

  const RunFigure& first() const { return repeats.front(); }

  // "pair2 152.26 GB/s", or "pair2 (the median of 3 repeats) 152.26 GB/s".
  std::string figure_text() const {
    if (repeats.size() == 1) {
      return fmt::format("{} {:.2f} GB/s", first().log->label, busbw);
    }
    return fmt::format("{} (the median of {} repeats) {:.2f} GB/s", first().log->label,
                       repeats.size(), busbw);
  }
};

std::string shape_of(const RunFigure& f) {
  return fmt::format("{} {}x{} at {}", f.run->op, f.log->nodes.size(), f.log->gpus.size(),
                     sim::size_text(sim::Bytes{f.row->size_bytes}));
}

// Repeats agree within kOutlierFloor of their median. The MAD term of the population test is
// left out on purpose: for repeats the spread is the symptom, so it cannot set its own bound.
void check_repeats(const Job& job, std::vector<Finding>& out) {
  const double bound = (1.0 - kOutlierFloor) * job.busbw;
  const auto worst = std::min_element(
      job.repeats.begin(), job.repeats.end(),
      [](const RunFigure& a, const RunFigure& b) { return a.busbw() < b.busbw(); });
  std::vector<std::string> seen;
  seen.reserve(job.repeats.size());
  for (const RunFigure& r : job.repeats) {
    seen.push_back(fmt::format("{} {:.2f}", r.log->label, r.busbw()));
  }
  const bool ok = worst->busbw() >= bound;
  out.push_back(
      {CheckLayer::kMultiNode, "repeats of one job",
       fmt::format("{} on {}", shape_of(job.first()), fmt::join(job.first().log->nodes, "+")),
       worst->evidence(),
       fmt::format(">= {:.2f} GB/s (the {} repeats' median {:.2f} less {:.0f}%)", bound,
                   job.repeats.size(), job.busbw, 100.0 * kOutlierFloor),
       fmt::format("{} GB/s", fmt::join(seen, ", ")), ok ? Verdict::kPass : Verdict::kFail,
       ok ? Severity::kNone : Severity::kMajor,
       ok ? ""
          : fmt::format(
                "{} is {:.1f}% below its repeats on the same nodes, so what changed is shared "
                "or transient: other jobs' traffic on the same leaves and spines (the switch "
                "ports' PortXmitWait and discard counters during the run), on RoCE where ECMP "
                "hashed each run's flows (more QPs per connection, NCCL_IB_QPS_PER_CONNECTION, "
                "or adaptive routing, spread them), the GPUs' clocks (nvidia-smi -q -d "
                "PERFORMANCE for throttling) and where the ranks' CPU threads ran",
                worst->log->label, 100.0 * (1.0 - worst->busbw() / job.busbw))});
}

void judge_median(const std::vector<Job>& jobs,
                  double median,
                  const CalibratedModel& model,
                  std::vector<Finding>& out) {
  const RunFigure& first = jobs.front().first();
  const NcclPrediction p = predict_nccl(*first.log, *first.run, model, first.row->size_bytes);
  Finding f{CheckLayer::kNccl, "busbw vs model", shape_of(first), first.log->log.file, "", "",
            Verdict::kSkipped, Severity::kNone,  p.why_not};
  if (p.time_us) {
    // Every run is at one size, so any run's row converts the predicted time.
    const double predicted = busbw_at(*first.row, *p.time_us);
    const bool ok = median >= (1.0 - kNcclTolerance) * predicted;
    f.expected = fmt::format("busbw >= {:.0f}% of the model's {:.2f} GB/s",
                             100.0 * (1.0 - kNcclTolerance), predicted);
    f.measured = fmt::format("the median of {} jobs: {:.2f} GB/s", jobs.size(), median);
    f.verdict = ok ? Verdict::kPass : Verdict::kFail;
    f.severity = ok ? Severity::kNone : Severity::kMajor;
    f.next = ok ? ""
                : "every run is slower than the design allows: check the RDMA layer, then "
                  "NCCL's choices (NCCL_DEBUG=INFO: channels, NICs per GPU, GDR, PXN)";
  }
  out.push_back(std::move(f));
}

void check_population(const std::vector<Job>& jobs,
                      const CalibratedModel& model,
                      std::vector<Finding>& out) {
  std::vector<PopulationMember> members;
  members.reserve(jobs.size());
  for (const Job& job : jobs) {
    members.push_back({job.first().log->nodes, job.busbw});
  }
  const PopulationVerdict v = find_outliers(members, true);
  judge_median(jobs, v.median, model, out);
  const std::string bound = fmt::format(">= {:.2f} GB/s (the jobs' median {:.2f} less {:.2f})",
                                        v.median - v.allowed, v.median, v.allowed);
  for (const BlamedEnd& end : v.blamed) {
    std::vector<std::string> seen;
    seen.reserve(end.members.size());
    for (const std::size_t i : end.members) {
      seen.push_back(jobs[i].figure_text());
    }
    out.push_back({CheckLayer::kMultiNode, "node across runs", end.end,
                   jobs[end.members.front()].first().evidence(), bound,
                   fmt::format("all {} of its jobs: {}", end.members.size(), fmt::join(seen, ", ")),
                   Verdict::kFail, Severity::kMajor,
                   fmt::format("every run with {} is slow: check that GPUDirect RDMA works there "
                               "(nvidia-peermem loaded, NCCL_DEBUG=INFO shows GDRDMA on its NICs), "
                               "then its RDMA pairs, link state and PCIe above",
                               end.end)});
  }
  for (const std::size_t i : v.unexplained) {
    const Job& job = jobs[i];
    out.push_back(
        {CheckLayer::kMultiNode, "node set across runs", job.first().log->label,
         job.first().evidence(), bound,
         fmt::format("{:.2f} GB/s on {}", job.busbw, fmt::join(job.first().log->nodes, ", ")),
         Verdict::kFail, Severity::kMajor,
         "slow only on this set of nodes: rerun it to rule out a transient or a "
         "neighbour's traffic, then check the switch path between them"});
  }
  if (v.blamed.empty() && v.unexplained.empty()) {
    out.push_back({CheckLayer::kMultiNode, "node across runs", shape_of(jobs.front().first()),
                   jobs.front().first().log->log.file, bound,
                   fmt::format("all {} jobs within it", jobs.size()), Verdict::kPass,
                   Severity::kNone, ""});
  }
}

}  // namespace

std::vector<std::set<std::size_t>> check_multi_node(const std::vector<NcclEvidence>& logs,
                                                    const CalibratedModel& model,
                                                    std::vector<Finding>& out) {
  // Shapes in the order of their first run, each with its jobs in the order of their first run.
  using Shape = std::tuple<std::string, std::size_t, std::size_t, std::int64_t>;
  using Place = std::pair<std::vector<std::string>, std::vector<int>>;  // sorted nodes, GPUs
  std::vector<std::vector<Job>> shapes;
  std::map<Shape, std::size_t> shape_index;
  std::map<std::pair<Shape, Place>, std::size_t> job_index;
  for (std::size_t l = 0; l < logs.size(); ++l) {
    const NcclEvidence& log = logs[l];
    for (std::size_t r = 0; r < log.log.output.runs.size(); ++r) {
      const NcclTestsRun& run = log.log.output.runs[r];
      const NcclTestsRow* row = judged_row(run);
      if (row == nullptr || log.nodes.empty() || row->out_of_place.time_us <= 0.0) {
        continue;
      }
      const Shape shape{run.op, log.nodes.size(), log.gpus.size(), row->size_bytes};
      Place where{log.nodes, log.gpus};
      std::sort(where.first.begin(), where.first.end());
      const auto [s, new_shape] = shape_index.try_emplace(shape, shapes.size());
      if (new_shape) {
        shapes.emplace_back();
      }
      std::vector<Job>& jobs = shapes[s->second];
      const auto [j, new_job] = job_index.try_emplace({shape, std::move(where)}, jobs.size());
      if (new_job) {
        jobs.emplace_back();
      }
      jobs[j->second].repeats.push_back({l, r, &log, &run, row});
    }
  }
  std::vector<std::set<std::size_t>> judged(logs.size());
  for (std::vector<Job>& jobs : shapes) {
    for (Job& job : jobs) {
      std::vector<double> figures;
      figures.reserve(job.repeats.size());
      for (const RunFigure& r : job.repeats) {
        figures.push_back(r.busbw());
      }
      job.busbw = sim::median(std::move(figures));
      if (job.repeats.size() >= 2) {
        check_repeats(job, out);
      }
    }
    if (static_cast<int>(jobs.size()) < kOutlierMinMembers) {
      continue;
    }
    check_population(jobs, model, out);
    for (const Job& job : jobs) {
      for (const RunFigure& r : job.repeats) {
        judged[r.log_index].insert(r.run_index);
      }
    }
  }
  return judged;
}

}  // namespace railsim::calibrate::check
