// File: calibrate/check/nccl_run_check.cpp
#include "calibrate/check/nccl_run_check.hpp"

#include "calibrate/fit/measurements.hpp"
#include "calibrate/parse/text_input.hpp"
#include "models/hardware/path_class.hpp"
#include "models/system/ib_hca.hpp"
#include "sim/bytes.hpp"
#include "sim/input_error.hpp"
#include "sim/median.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <string_view>

namespace railsim::calibrate::check {

using fit::CalibratedModel;
using fit::Measurement;
using parse::NcclEvidence;
using parse::NcclTestsOutput;
using parse::NcclTestsRow;
using parse::NcclTestsRun;
using sim::size_text;

namespace {

std::string gpu_list(const std::vector<int>& gpus) {
  std::vector<std::string> names;
  names.reserve(gpus.size());
  for (const int g : gpus) {
    names.push_back(fmt::format("GPU{}", g));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// NCCL_IB_HCA as the job gave it, or nothing.
std::optional<models::IbHcaFilter> job_ib_hca(const NcclEvidence& run) {
  const std::optional<std::string> value = run.env_value("NCCL_IB_HCA");
  if (!value) {
    return std::nullopt;
  }
  try {
    return models::parse_ib_hca(*value);
  } catch (const sim::InputError& error) {
    throw sim::InputError(
        fmt::format("{}: NCCL_IB_HCA={}: {}", run.log.file, *value, error.what()));
  }
}

// The best out-of-place busbw of the log, and the row it is on.
std::pair<double, const NcclTestsRow*> best_busbw(const NcclTestsOutput& log) {
  std::pair<double, const NcclTestsRow*> best{0.0, nullptr};
  for (const NcclTestsRun& r : log.runs) {
    for (const NcclTestsRow& row : r.rows) {
      if (row.out_of_place.busbw_GBps > best.first) {
        best = {row.out_of_place.busbw_GBps, &row};
      }
    }
  }
  return best;
}

void check_correctness(const NcclEvidence& run, const NcclTestsRun& r, std::vector<Finding>& out) {
  const auto wrong = std::find_if(r.rows.begin(), r.rows.end(), [](const NcclTestsRow& row) {
    return row.out_of_place.wrong.value_or(0) != 0 || row.in_place.wrong.value_or(0) != 0;
  });
  const bool bounds = r.out_of_bounds.value_or(0) != 0;
  if (wrong == r.rows.end() && !bounds) {
    out.push_back({CheckLayer::kNccl, "results correct", run.label,
                   parse::place(run.log.file, r.line), "#wrong 0", "#wrong 0", Verdict::kPass,
                   Severity::kNone, ""});
    return;
  }
  out.push_back({CheckLayer::kNccl, "results correct", run.label,
                 parse::place(run.log.file, wrong == r.rows.end() ? r.line : wrong->line),
                 "#wrong 0",
                 bounds ? fmt::format("{} values out of bounds", *r.out_of_bounds)
                        : fmt::format("#wrong {} at {}",
                                      std::max(wrong->out_of_place.wrong.value_or(0),
                                               wrong->in_place.wrong.value_or(0)),
                                      size_text(sim::Bytes{wrong->size_bytes})),
                 Verdict::kFail, Severity::kCritical,
                 "the collective returned wrong data: rerun with NCCL_DEBUG=WARN to find the rank, "
                 "then check that GPU's memory (dcgmi diag -r 3) and its NVLink and NIC error "
                 "counters"});
}

// The rows a run is judged on.
std::vector<const NcclTestsRow*> large_rows(const NcclTestsRun& r) {
  std::vector<const NcclTestsRow*> rows;
  for (const NcclTestsRow& row : r.rows) {
    if (row.size_bytes >= kNcclLargeBytes && row.out_of_place.time_us > 0.0) {
      rows.push_back(&row);
    }
  }
  if (rows.empty() && !r.rows.empty()) {
    rows.push_back(&r.rows.back());
  }
  return rows;
}

void check_prediction(const NcclEvidence& run,
                      const NcclTestsRun& r,
                      const CalibratedModel& model,
                      std::vector<Finding>& out) {
  Finding f{
      CheckLayer::kNccl, "busbw vs model", run.label, parse::place(run.log.file, r.line), "", "",
      Verdict::kSkipped, Severity::kNone,  ""};
  const std::vector<const NcclTestsRow*> rows = large_rows(r);
  if (rows.empty()) {
    f.next = "the run has no rows";
    out.push_back(std::move(f));
    return;
  }
  // Measured / predicted busbw of each row: the same size and formula, so the ratio of times.
  std::vector<double> ratios;
  double predicted_busbw = 0.0;
  for (const NcclTestsRow* row : rows) {
    const NcclPrediction p = predict_nccl(run, r, model, row->size_bytes);
    if (!p.time_us) {
      f.next = p.why_not;
      out.push_back(std::move(f));
      return;
    }
    ratios.push_back(*p.time_us / row->out_of_place.time_us);
    predicted_busbw = busbw_at(*row, *p.time_us);
  }
  const double median = sim::median(ratios);
  const NcclTestsRow& last = *rows.back();
  f.evidence = parse::place(run.log.file, rows.front()->line);
  f.expected = fmt::format("busbw >= {:.0f}% of the model's {:.2f} GB/s at {}",
                           100.0 * (1.0 - kNcclTolerance), predicted_busbw,
                           size_text(sim::Bytes{last.size_bytes}));
  f.measured = fmt::format("{:.2f} GB/s; the median of {} row{} is {:.0f}% of the model",
                           last.out_of_place.busbw_GBps, rows.size(), rows.size() == 1 ? "" : "s",
                           100.0 * median);
  // The job's variables (its log's over its manifest's) the predictions ran with, and those they
  // could not apply.
  const models::NcclVariablesApplied nccl = models::nccl_variables_effect(
      fit::run_environment(r, run.env), *fit::modelled_op(r.op), model.system);
  if (!nccl.applied.empty()) {
    f.expected += fmt::format(" (with the job's {})", fmt::join(nccl.applied, ", "));
  }
  if (!nccl.not_applied.empty()) {
    f.expected += fmt::format(" (NCCL's defaults for {})", fmt::join(nccl.not_applied, "; "));
  }
  if (median >= 1.0 - kNcclTolerance) {
    f.verdict = Verdict::kPass;
  } else {
    f.fail(Severity::kMajor,
           "slower than the design allows: if its RDMA pairs pass, look at NCCL's choices "
           "(NCCL_DEBUG=INFO: channels, NICs per GPU, GDR, PXN) and at the affinity layer");
  }
  out.push_back(std::move(f));
}

}  // namespace

models::PathClass job_gdr_level(const NcclEvidence& run, const models::SystemSpec& design) {
  const std::optional<std::string> value = run.env_value("NCCL_NET_GDR_LEVEL");
  if (!value) {
    return design.gdr_level;
  }
  if (const std::optional<models::PathClass> level = models::gdr_level_named(*value)) {
    return *level;
  }
  throw sim::InputError(fmt::format("{}: NCCL_NET_GDR_LEVEL={}: expected {}", run.log.file, *value,
                                    models::kGdrLevelValues));
}

void check_nccl_affinity(const NcclEvidence& run,
                         const models::SystemSpec& design,
                         std::vector<Finding>& out) {
  const models::NodeSpec& node = design.node;
  Finding f{CheckLayer::kAffinity,
            "NICs near the job's GPUs",
            run.label,
            run.log.file,
            "",
            "",
            Verdict::kSkipped,
            Severity::kNone,
            ""};
  if (!run.log.output.runs.empty()) {
    f.evidence = parse::place(run.log.file, run.log.output.runs.front().line);
  }
  const auto beyond = std::find_if(run.gpus.begin(), run.gpus.end(),
                                   [&](int g) { return g >= static_cast<int>(node.gpus.size()); });
  if (run.gpus.empty() || beyond != run.gpus.end()) {
    f.next = run.gpus.empty() ? "the log names no GPUs and the manifest gives no gpus"
                              : fmt::format("the design has no GPU{}", *beyond);
    out.push_back(std::move(f));
    return;
  }
  const std::optional<models::IbHcaFilter> hca = job_ib_hca(run);
  const models::PathClass level = job_gdr_level(run, design);
  if (level == models::PathClass::kSelf) {
    // Without GPUDirect RDMA every NIC reads and writes host memory: no NIC is near enough.
    f.next =
        "the job set NCCL_NET_GDR_LEVEL=LOC: GPUDirect RDMA is off whatever the NICs' "
        "distance, so there is no GDR level to be within";
    out.push_back(std::move(f));
    return;
  }
  std::vector<std::string> near;
  std::vector<std::string> far;
  std::vector<std::string> remedy;
  int used = 0;
  for (std::size_t n = 0; n < node.nics.size(); ++n) {
    const models::Nic& nic = node.nics[n];
    if (hca ? !models::ib_hca_allows(*hca, nic) : nic.role != models::NicRole::kCompute) {
      continue;
    }
    ++used;
    const models::DeviceRef ref{models::DeviceRef::Kind::kNic, static_cast<int>(n)};
    models::PathClass best = models::PathClass::kSys;
    for (const int g : run.gpus) {
      best = std::min(best, models::pcie_path_class(node, {models::DeviceRef::Kind::kGpu, g}, ref));
    }
    if (best <= level) {
      near.push_back(fmt::format("{} {}", nic.name, to_string(best)));
      continue;
    }
    far.push_back(fmt::format("{} {}", nic.name, to_string(best)));
    for (std::size_t g = 0; g < node.gpus.size(); ++g) {
      const models::DeviceRef gpu{models::DeviceRef::Kind::kGpu, static_cast<int>(g)};
      if (models::pcie_path_class(node, gpu, ref) <= level) {
        remedy.push_back(fmt::format("GPU{} for {}", g, nic.name));
        break;
      }
    }
  }
  const double rate = node.nics.empty() ? 0.0 : node.nics.front().port_rate.in_gbytes_per_s();
  f.expected = fmt::format("each of the job's {} NICs within {} of one of its GPUs ({})", used,
                           to_string(level), gpu_list(run.gpus));
  f.measured = far.empty()
                   ? "all within"
                   : fmt::format("near: {}; beyond {}: {}",
                                 near.empty() ? "none" : fmt::format("{}", fmt::join(near, ", ")),
                                 to_string(level), fmt::join(far, ", "));
  if (far.empty()) {
    f.verdict = Verdict::kPass;
    out.push_back(std::move(f));
    return;
  }
  const auto [best, row] = best_busbw(run.log.output);
  f.fail(
      Severity::kMajor,
      fmt::format(
          "the job's GPUs ({}) reach {} of its NICs only beyond {}: that traffic goes through host "
          "memory without GPUDirect RDMA, across the PCIe root or the socket link, so the job's "
          "ceiling is its {} near NIC{}: {:.0f} GB/s per node, not the {:.0f} GB/s its {} NICs "
          "add up to{}. Give each NIC a GPU beside it ({}), or list only the near NICs in "
          "NCCL_IB_HCA",
          gpu_list(run.gpus), far.size(), to_string(level), near.size(),
          near.size() == 1 ? "" : "s", rate * static_cast<double>(near.size()), rate * used, used,
          row == nullptr ? ""
                         : fmt::format(" (the best busbw measured is {:.2f} GB/s, at {})", best,
                                       size_text(sim::Bytes{row->size_bytes})),
          remedy.empty() ? "the design has none" : fmt::format("{}", fmt::join(remedy, ", "))));
  out.push_back(std::move(f));
}

NcclPrediction predict_nccl(const NcclEvidence& log,
                            const NcclTestsRun& run,
                            const CalibratedModel& model,
                            std::int64_t size_bytes) {
  const std::optional<models::CollectiveOp> op = fit::modelled_op(run.op);
  std::vector<int> first(log.gpus.size());
  std::iota(first.begin(), first.end(), 0);
  if (!op) {
    return {std::nullopt, run.op.empty()
                              ? "the log does not name its program (no 'Collective test starting' "
                                "line or command)"
                              : fmt::format("the model does not run {}",
                                            run.program.empty() ? run.op : run.program)};
  }
  if (log.nodes.empty() || log.gpus.empty()) {
    return {std::nullopt, std::string(kUnknownJobShape)};
  }
  if (log.gpus != first) {
    return {std::nullopt, fmt::format("the model runs GPUs 0 to {} of each node, the job used {}",
                                      log.gpus.size() - 1, gpu_list(log.gpus))};
  }
  Measurement m;
  m.op = *op;
  m.nodes = static_cast<int>(log.nodes.size());
  m.gpus_per_node = static_cast<int>(log.gpus.size());
  m.size_bytes = size_bytes;
  m.nccl_environment = fit::run_environment(run, log.env);
  return {fit::predict(model, m), ""};
}

double busbw_at(const NcclTestsRow& row, double time_us) {
  return row.out_of_place.busbw_GBps * row.out_of_place.time_us / time_us;
}

const NcclTestsRow* judged_row(const NcclTestsRun& run) {
  const std::vector<const NcclTestsRow*> rows = large_rows(run);
  return rows.empty() ? nullptr : rows.back();
}

void check_nccl_results(const NcclEvidence& log,
                        const CalibratedModel& model,
                        const std::set<std::size_t>& judged_together,
                        std::vector<Finding>& out) {
  for (std::size_t i = 0; i < log.log.output.runs.size(); ++i) {
    const NcclTestsRun& r = log.log.output.runs[i];
    check_correctness(log, r, out);
    if (judged_together.count(i) == 0) {
      check_prediction(log, r, model, out);
    }
  }
}

}  // namespace railsim::calibrate::check
