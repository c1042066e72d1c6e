// File: calibrate/fit/measurements.hpp
// What calibration fits to: the figures of real tool outputs that the model can predict, each
// with the place it was read from. nccl-tests rows give a collective's out-of-place time;
// perftest rows give an RDMA stream's average bandwidth or a ping-pong's typical latency.
// Anything the model does not run (ib_read_lat's full round trip, bidirectional streams, an
// nccl-tests program without a model) is set aside with a note rather than misread.
#pragma once

#include "calibrate/fit/model_parameters.hpp"
#include "calibrate/parse/nccl_tests.hpp"
#include "calibrate/parse/perftest.hpp"
#include "models/collective/collective_types.hpp"
#include "models/collective/nccl_variables.hpp"
#include "models/collective/recurrence_memo.hpp"
#include "models/system/rdma_bench.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate::fit {

enum class MeasurementKind {
  kCollectiveTime,  // nccl-tests time, us
  kRdmaBandwidth,   // perftest BW average, bytes/s
  kRdmaLatency,     // perftest t_typical, us (half the round trip)
};

struct Measurement {
  MeasurementKind kind = MeasurementKind::kCollectiveTime;
  std::string source;  // "FILE:LINE" of the row
  models::CollectiveOp op = models::CollectiveOp::kAllReduce;
  int nodes = 2;          // collectives: hosts in the run; RDMA: 2
  int gpus_per_node = 1;  // collectives only
  std::int64_t size_bytes = 0;
  std::int64_t iterations = 1;      // RDMA streams: messages per size
  std::int64_t inline_bytes = 220;  // RDMA ping-pongs: perftest's "Max inline data"
  double measured = 0.0;            // in the kind's unit
  // Where on the cluster it ran, as system indices; empty: nodes 0 .. nodes - 1 and GPUs
  // 0 .. gpus_per_node - 1. RDMA: the two ends, node_ids[0] the sender.
  std::vector<int> node_ids;
  std::vector<int> gpu_ids;  // collectives only
  int nic = 0;               // RDMA: the compute NIC at both ends
  // Collectives: the NCCL variables the run was made with (its log's, then its manifest's),
  // applied to the prediction (nccl_variables.hpp); none: NCCL's defaults.
  std::vector<models::NcclVariable> nccl_environment;
};

struct MeasurementSet {
  std::vector<Measurement> rows;
  std::vector<std::string> notes;  // "FILE:LINE: ... not used: why"
};

// Places a collective measurement on system nodes `node_ids`, on each the GPUs `gpu_ids`.
void place_collective(Measurement& measurement,
                      std::vector<int> node_ids,
                      std::vector<int> gpu_ids);

// The collective an nccl-tests op names ("all_reduce", "alltoall"), when the model runs it.
std::optional<models::CollectiveOp> modelled_op(const std::string& nccl_tests_op);

// The unit of a kind's figures, for tables: "us" or "GB/s".
const char* measured_unit(MeasurementKind kind);

// Adds every usable row of a parsed output; what is left out goes to `notes`, and so does each
// NCCL variable of a run that its predictions on `design` cannot apply. `environment` (a
// manifest's) comes under each run's own (NcclTestsRun::environment), which overrides it name by
// name.
void add_nccl_tests(const parse::NcclTestsOutput& output,
                    const std::string& file,
                    const models::SystemSpec& design,
                    MeasurementSet& set,
                    const std::vector<models::NcclVariable>& environment = {});

// The variables a run was made with: `environment` (a manifest's), then the run's own.
std::vector<models::NcclVariable> run_environment(
    const parse::NcclTestsRun& run, const std::vector<models::NcclVariable>& environment);
void add_perftest(const parse::PerftestOutput& output,
                  const std::string& file,
                  MeasurementSet& set);

// The model's figure for a measurement, in the same unit: the collective run on `model`'s
// system, or perftest's test between its two nodes over its compute NIC in host memory
// (perftest without --use_cuda), on a system of `measurement.nodes` nodes when it gives no
// node_ids and of the model's own otherwise, of which only the measurement's nodes are built
// (SystemSpec::built_nodes). `prepare` applies faults to the system built: on the nodes it has.
// Collective rows of 32 MiB or more run pipelined. With `crossed`, adds the cables between
// switches (leaf-spine, spine-core) that its traffic crosses, each by its upward link's name
// ("leaf4>spine1.5"), once each and sorted. `memo`, where given, keeps the collective's channel
// recurrences for later predictions and answers from them (CollectiveRequest::recurrence_memo).
// Throws sim::InputError when the system cannot run it (more GPUs per node than it has, ...).
double predict(const CalibratedModel& model,
               const Measurement& measurement,
               const models::SystemPreparation& prepare = {},
               std::vector<std::string>* crossed = nullptr,
               models::RecurrenceMemo* memo = nullptr);

}  // namespace railsim::calibrate::fit
