// File: calibrate/measurements.hpp
// What calibration fits to: the figures of real tool outputs that the model can predict, each
// with the place it was read from. nccl-tests rows give a collective's out-of-place time;
// perftest rows give an RDMA stream's average bandwidth or a ping-pong's typical latency.
// Anything the model does not run (alltoall, sendrecv, ib_read_lat's full round trip,
// bidirectional streams) is set aside with a note rather than misread.
#pragma once

#include "calibrate/model_parameters.hpp"
#include "calibrate/nccl_tests.hpp"
#include "calibrate/perftest.hpp"
#include "models/collective/collective_types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate {

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
};

struct MeasurementSet {
  std::vector<Measurement> rows;
  std::vector<std::string> notes;  // "FILE:LINE: ... not used: why"
};

// The collective an nccl-tests op names ("all_reduce"), when the model runs it.
std::optional<models::CollectiveOp> modelled_op(const std::string& nccl_tests_op);

// The unit of a kind's figures, for tables: "us" or "GB/s".
const char* measured_unit(MeasurementKind kind);

// Adds every usable row of a parsed output; what is left out goes to `notes`.
void add_nccl_tests(const NcclTestsOutput& output, const std::string& file, MeasurementSet& set);
void add_perftest(const PerftestOutput& output, const std::string& file, MeasurementSet& set);

// The model's figure for a measurement, in the same unit: the collective run on `model`'s
// system with that many nodes, or perftest's test between node 0 and node 1 over compute NIC 0
// in host memory (perftest without --use_cuda). Collective rows of 32 MiB or more run pipelined.
// Throws sim::InputError when the system cannot run it (more GPUs per node than it has, ...).
double predict(const CalibratedModel& model, const Measurement& measurement);

}  // namespace railsim::calibrate
