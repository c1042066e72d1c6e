// File: tools/profile_option.hpp
// `--profile PROFILE.json` on the prediction commands (collective, run, compare, p2p): the
// profile's fitted parameters set on the system, a one-sigma band on each predicted time from
// the fit's covariance, and a warning for every way a request leaves what the fit saw.
//
// The band is the linear propagation of the covariance C: the prediction is rerun once per
// fitted parameter j moved by its own sigma (towards the inside of its bounds), giving the
// slope g_j = (t_j - t) / step_j, and the band is sqrt(g^T C g). It is infinite when a fitted
// parameter's sigma is (the data could not pin it).
#pragma once

#include "calibrate/fit/profile.hpp"
#include "models/collective/collective_calibration.hpp"
#include "models/system/system.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {

struct LoadedProfile {
  std::string path;
  calibrate::fit::Profile profile;
};

// nullopt for an empty path; ScenarioError (file, JSON pointer) for a bad profile.
std::optional<LoadedProfile> load_profile(const std::string& path);

// Sets the profile's fitted parameters on the system and the collectives' software costs, and the
// cabling its fit found, with a warning where that is not the system's. Throws sim::InputError
// (naming the profile) where the system's fabric cannot be cabled so.
void apply_profile(const LoadedProfile& loaded,
                   models::SystemSpec& system,
                   models::CollectiveCalibration& calibration);

// Predicted figures of one run of the model (times in us, one per row) under given parameters.
using Prediction = std::function<std::vector<double>(const models::SystemSpec&,
                                                     const models::CollectiveCalibration&)>;

// The one-sigma band of each figure `predict` gives under the profile (applied already to
// `system` and `calibration`); `at_profile` is its result there.
std::vector<double> one_sigma_band(const LoadedProfile& loaded,
                                   const models::SystemSpec& system,
                                   const models::CollectiveCalibration& calibration,
                                   const std::vector<double>& at_profile,
                                   const Prediction& predict);

// "railsim: warning: PROFILE: outside the calibrated range: ..." on stderr, one line per way a
// collective of `op` on nodes x gpus_per_node at `sizes` leaves what the fit saw.
void warn_outside_range(const LoadedProfile& loaded,
                        const std::string& op,
                        int nodes,
                        int gpus_per_node,
                        const std::vector<std::int64_t>& sizes);

// The same for an RDMA test at each of `sizes`.
void warn_outside_rdma_range(const LoadedProfile& loaded, const std::vector<std::int64_t>& sizes);

}  // namespace railsim::tools
