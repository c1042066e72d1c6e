// File: calibrate/fit/cluster_measurements.hpp
// A cluster's logs as measurements placed on the design's system: node i is the evidence's i-th
// node, a perftest pair runs between its two nodes over the compute NIC its log's device names,
// and an nccl-tests run on its hosts' nodes and its GPUs. What the model does not run, or cannot
// place, is set aside with a note, as calibration does (measurements.hpp). An nccl-tests run
// carries the variables its manifest entry sets ("env") under those its log shows.
#pragma once

#include "calibrate/fit/measurements.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "models/system/system.hpp"

namespace railsim::calibrate::fit {

MeasurementSet cluster_measurements(const parse::ClusterEvidence& evidence,
                                    const models::SystemSpec& design);

}  // namespace railsim::calibrate::fit
