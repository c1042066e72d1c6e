// File: calibrate/fit/faulted_design.cpp
#include "calibrate/fit/faulted_design.hpp"

#include "models/fault/fault_injection.hpp"

#include <utility>

namespace railsim::calibrate::fit {

FaultedDesign with_faults(const CalibratedModel& design,
                          const std::vector<models::ElementFault>& faults) {
  models::FaultedSystem faulty = models::with_faults(design.system, faults);
  return {{std::move(faulty.system), design.collective}, std::move(faulty.prepare)};
}

}  // namespace railsim::calibrate::fit
