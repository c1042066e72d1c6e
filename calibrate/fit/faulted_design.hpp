// File: calibrate/fit/faulted_design.hpp
// A calibrated model with element faults in (models/fault/fault_injection.hpp), in the form
// predict takes: what railsim check prices slow NICs with and railsim diagnose predicts each
// candidate fault's measurements with.
#pragma once

#include "calibrate/fit/model_parameters.hpp"
#include "models/fault/element_fault.hpp"
#include "models/system/rdma_bench.hpp"

#include <vector>

namespace railsim::calibrate::fit {

// The design with faults in: GPUDirect RDMA, the cabling, a node's server or the fabric changed in
// the model's spec, link faults applied by `prepare` to each system built (predict's third
// argument).
struct FaultedDesign {
  CalibratedModel model;
  models::SystemPreparation prepare;
};

FaultedDesign with_faults(const CalibratedModel& design,
                          const std::vector<models::ElementFault>& faults);

}  // namespace railsim::calibrate::fit
