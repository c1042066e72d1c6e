// File: calibrate/check/nccl_run_check.hpp
// The checks of one nccl-tests log:
//   affinity  every NIC the job lets NCCL use (NCCL_IB_HCA, else the design's compute NICs) is
//             within the GDR level (NCCL_NET_GDR_LEVEL, else the design's) of one of the job's
//             GPUs. A NIC beyond it is reached through host memory across the PCIe root or the
//             socket link, so the job's ceiling is its near NICs' rate, not all of its NICs'.
//   nccl      each run's results are correct (#wrong 0, no out-of-bounds values), and its busbw
//             at the large sizes reaches the model's prediction on the design, within
//             kNcclTolerance (unless it belongs to a population, multi_node_check.hpp, whose
//             median is judged instead).
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "calibrate/parse/cluster_evidence.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::calibrate::check {

// How far below the model a run's busbw may fall before it fails: the model's median error
// against real nccl-tests logs with uncalibrated defaults is held to 15% (docs/validation.md).
inline constexpr double kNcclTolerance = 0.15;

// Rows of at least this size are the bandwidth-bound ones a run is judged on; a log with none
// (an excerpt) is judged on its largest row.
inline constexpr std::int64_t kNcclLargeBytes = std::int64_t{64} << 20;

// The farthest GPU-NIC distance at which the job uses GPUDirect RDMA: NCCL_NET_GDR_LEVEL as the
// job set it, else the design's.
models::PathClass job_gdr_level(const parse::NcclEvidence& run, const models::SystemSpec& design);

void check_nccl_affinity(const parse::NcclEvidence& run,
                         const models::SystemSpec& design,
                         std::vector<Finding>& out);

// Why a log's rows cannot be judged when neither its INFO lines nor the manifest give the job's
// nodes and GPUs.
inline constexpr std::string_view kUnknownJobShape =
    "the log has no 'Using devices' lines and the manifest gives no nodes and gpus";

// The model's out-of-place time in us for the run's operation and shape at `size_bytes`, or why
// it cannot be predicted.
struct NcclPrediction {
  std::optional<double> time_us;
  std::string why_not;
};

NcclPrediction predict_nccl(const parse::NcclEvidence& log,
                            const parse::NcclTestsRun& run,
                            const fit::CalibratedModel& model,
                            std::int64_t size_bytes);

// The busbw nccl-tests would print on `row` had it taken `time_us`: at one size and operation
// busbw is proportional to 1 / time, so the row's own figures convert it.
double busbw_at(const parse::NcclTestsRow& row, double time_us);

// The run's largest row at or above kNcclLargeBytes, else its largest; nullptr for no rows.
const parse::NcclTestsRow* judged_row(const parse::NcclTestsRun& run);

// `judged_together`: the runs of this log (by index) a population judged against the model.
void check_nccl_results(const parse::NcclEvidence& log,
                        const fit::CalibratedModel& model,
                        const std::set<std::size_t>& judged_together,
                        std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
