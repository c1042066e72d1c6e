// File: calibrate/fit/model_parameters.hpp
// The model's calibrated parameters, by the names profiles and `railsim calibrate --fit` use:
// where each lives in the model, its unit, its physical bounds, and whether measured times are
// affine in it (so the fit can be linear). docs/calibration.md tabulates them with the sources
// of their defaults, which are the model's uncalibrated values.
#pragma once

#include "models/collective/collective_calibration.hpp"
#include "models/system/system.hpp"

#include <span>
#include <string_view>

namespace railsim::calibrate::fit {

// The model as calibration sees it: the system and the collectives' software costs.
struct CalibratedModel {
  models::SystemSpec system;
  models::CollectiveCalibration collective;
};

struct ModelParameter {
  std::string_view name;     // "nvlink_efficiency"
  std::string_view unit;     // "fraction", "us", "M messages/s"
  std::string_view meaning;  // one line for --help and the docs
  double lower = 0.0;        // physical bounds, in `unit`
  double upper = 1.0;
  double scale = 0.01;  // a change that matters, in `unit`: finite-difference steps are
                        // kStepFraction of it, well above the engine's 1 ps resolution
  bool linear = false;  // measured times are affine in it
  double (*get)(const CalibratedModel&) = nullptr;
  void (*set)(CalibratedModel&, double) = nullptr;
};

// Every calibrated parameter, in a fixed order (profiles list them in it).
std::span<const ModelParameter> model_parameters();

// nullptr for a name that is none of them.
const ModelParameter* find_model_parameter(std::string_view name);

}  // namespace railsim::calibrate::fit
