// File: calibrate/check/rdma_ceiling_check.cpp
#include "calibrate/check/rdma_ceiling_check.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "calibrate/check/rdma_pair_check.hpp"
#include "calibrate/fit/faulted_design.hpp"
#include "calibrate/fit/measurements.hpp"
#include "calibrate/parse/text_input.hpp"
#include "models/fault/element_fault.hpp"
#include "sim/bytes.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace railsim::calibrate::check {

using fit::CalibratedModel;
using fit::FaultedDesign;
using fit::Measurement;
using models::ElementFault;
using models::FaultKind;
using parse::ClusterEvidence;
using parse::NcclEvidence;
using parse::NcclTestsRow;
using parse::NcclTestsRun;
using parse::PairEvidence;

namespace {

// A NIC within 2% of the model is at the design's rate: perftest's run-to-run spread is ~0.5%.
constexpr double kRateNoise = 0.02;

// {node index in the evidence, compute NIC} -> its rate as a fraction of the design's.
using NicRates = std::map<std::pair<int, int>, double>;

NicRates measured_rates(const ClusterEvidence& evidence, const CalibratedModel& model) {
  NicRates rates;
  for (const PairEvidence& pair : evidence.pairs) {
    const std::optional<PairFigure> f = pair_figure(pair);
    if (!f || !f->bandwidth) {
      continue;
    }
    const std::optional<double> modelled = model_pair_figure(*f, model);
    const std::optional<int> nic = models::compute_nic_named(model.system.node, f->device);
    if (!modelled || !nic) {
      continue;
    }
    const double ratio = std::min(1.0, f->value / *modelled);
    for (const std::string& name : {pair.node_a, pair.node_b}) {
      if (const std::optional<int> node = evidence.node_index(name)) {
        const auto [it, added] = rates.try_emplace({*node, *nic}, ratio);
        it->second = std::max(it->second, ratio);
      }
    }
  }
  return rates;
}

void check_run(const ClusterEvidence& evidence,
               const NcclEvidence& log,
               const NcclTestsRun& run,
               const CalibratedModel& model,
               const NicRates& rates,
               std::vector<Finding>& out) {
  const NcclTestsRow* row = judged_row(run);
  const std::optional<models::CollectiveOp> op = fit::modelled_op(run.op);
  if (row == nullptr || !op || log.nodes.empty() || log.gpus.empty()) {
    return;  // check_nccl_results says why the model cannot judge it
  }
  Finding f{CheckLayer::kNccl,
            "busbw vs RDMA ceiling",
            log.label,
            parse::place(log.log.file, row->line),
            "",
            "",
            Verdict::kSkipped,
            Severity::kNone,
            ""};
  std::vector<int> nodes;
  std::vector<ElementFault> slow;
  int measured = 0;
  for (const std::string& name : log.nodes) {
    const std::optional<int> node = evidence.node_index(name);
    if (!node) {
      f.next = fmt::format("{} is not among the cluster's nodes", name);
      out.push_back(std::move(f));
      return;
    }
    nodes.push_back(*node);
    for (auto it = rates.lower_bound({*node, 0}); it != rates.end() && it->first.first == *node;
         ++it) {
      ++measured;
      if (it->second < 1.0 - kRateNoise) {
        slow.push_back({FaultKind::kNicPort, *node, it->first.second, it->second});
      }
    }
  }
  if (measured == 0) {
    f.next = "no ib_write_bw pairs on its nodes";
    out.push_back(std::move(f));
    return;
  }
  Measurement m;
  m.op = *op;
  m.size_bytes = row->size_bytes;
  fit::place_collective(m, std::move(nodes), log.gpus);
  const FaultedDesign ceiling = fit::with_faults(model, slow);
  double ceiling_busbw = 0.0;
  try {
    CalibratedModel placed = ceiling.model;
    placed.system.nodes = std::max(placed.system.nodes, static_cast<int>(evidence.nodes.size()));
    ceiling_busbw = busbw_at(*row, fit::predict(placed, m, ceiling.prepare));
  } catch (const sim::InputError& e) {
    f.next = e.what();
    out.push_back(std::move(f));
    return;
  }
  const int nics = static_cast<int>(models::compute_nic_indices(model.system.node).size()) *
                   static_cast<int>(log.nodes.size());
  f.expected = fmt::format(
      ">= {:.0f}% of {:.2f} GB/s: the model with its NICs at their measured RDMA rates ({} of "
      "{} NICs measured, {} below the design)",
      100.0 * (1.0 - kNcclTolerance), ceiling_busbw, measured, nics, slow.size());
  f.measured = fmt::format("{:.2f} GB/s at {}", row->out_of_place.busbw_GBps,
                           sim::size_text(sim::Bytes{row->size_bytes}));
  if (row->out_of_place.busbw_GBps >= (1.0 - kNcclTolerance) * ceiling_busbw) {
    f.verdict = Verdict::kPass;
  } else {
    f.fail(Severity::kMajor,
           "RDMA fine, NCCL slow: its RDMA pairs do not explain it; look at what NCCL chose "
           "(NCCL_DEBUG=INFO: the NICs per GPU, channels, GDRDMA or not, PXN), at the affinity "
           "layer and at NCCL_IB_HCA");
  }
  out.push_back(std::move(f));
}

}  // namespace

void check_rdma_ceiling(const ClusterEvidence& evidence,
                        const CalibratedModel& model,
                        std::vector<Finding>& out) {
  const NicRates rates = measured_rates(evidence, model);
  if (rates.empty()) {
    return;  // no RDMA layer to compare with
  }
  for (const NcclEvidence& log : evidence.nccl) {
    for (const NcclTestsRun& run : log.log.output.runs) {
      check_run(evidence, log, run, model, rates, out);
    }
  }
}

}  // namespace railsim::calibrate::check
