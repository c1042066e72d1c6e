// File: calibrate/fit/profile.hpp
// A calibration profile: the fitted parameters with their uncertainty, what they were fitted
// from (each input's name and content hash, the rows' residuals) and the range the fit saw, as
// the JSON file `railsim calibrate -o` writes and `--profile` reads (docs/calibration.md,
// "Profiles").
#pragma once

#include "calibrate/fit/calibration.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "models/fabric/fabric_spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate::fit {

struct ProfileInput {
  std::string file;    // as given on the command line
  std::string format;  // "perftest", "nccl-tests"
  std::string hash;    // FNV-1a 64 of the content, 16 hex digits
};

struct ProfileParameter {
  const ModelParameter* parameter = nullptr;
  double value = 0.0;
  double sigma = 0.0;
  double initial = 0.0;
  VariableStatus status = VariableStatus::kNotInformed;
};

// What the fit saw: a prediction outside it is an extrapolation.
struct CalibratedRange {
  std::vector<std::string> ops;  // collective ops, "all_reduce", ...
  std::vector<int> nodes;        // node counts of collective rows
  std::vector<int> gpus_per_node;
  std::int64_t min_size_bytes = 0;  // over collective rows
  std::int64_t max_size_bytes = 0;
  bool rdma = false;                     // any perftest row
  std::int64_t min_rdma_size_bytes = 0;  // over perftest rows
  std::int64_t max_rdma_size_bytes = 0;
};

struct Profile {
  std::string system;  // the --system it was fitted on
  std::string node;    // that system's node model ("dgx-a100"); empty in older profiles
  std::vector<ProfileParameter> parameters;
  // Covariance between the kFitted parameters, in the order they appear in `parameters`.
  std::vector<std::vector<double>> covariance;
  std::string method;  // "linear least squares" or "Levenberg-Marquardt"
  bool converged = false;
  std::string message;
  int evaluations = 0;
  std::vector<ProfileInput> inputs;
  CalibratedRange range;
  std::vector<RowCheck> rows;  // the fit's residuals
  // The cabling the fit found where it is not the design's (cabling_fit.hpp): what the profile
  // then lays on any system it is applied to.
  std::optional<models::RailMapping> rails;
};

// FNV-1a 64 of `content`, as 16 lower-case hex digits.
std::string content_hash(std::string_view content);

Profile make_profile(const Calibration& calibration,
                     std::string system,
                     std::string node,
                     std::vector<ProfileInput> inputs);

// The profile as JSON text (two-space indented, stable key order).
std::string profile_json(const Profile& profile);

// Reads a profile file; throws models::scenario::ScenarioError (file and JSON pointer) for a
// malformed one, an unknown parameter or status included.
Profile read_profile(const std::string& path);

// Sets the fitted (and bound-limited) parameters of `profile` on `model`, and its cabling where it
// found one; the others keep the model's own values. Throws sim::InputError where the model's
// fabric cannot be cabled so.
void apply_profile(const Profile& profile, CalibratedModel& model);

// The fitted parameters, in profile order (the rows and columns of Profile::covariance).
std::vector<const ProfileParameter*> fitted_parameters(const Profile& profile);

// Ways a collective request leaves the calibrated range, one sentence each ("16 nodes: the
// profile saw 10"); the sizes outside the fitted ones make one sentence.
std::vector<std::string> outside_range(const Profile& profile,
                                       const std::string& op,
                                       int nodes,
                                       int gpus_per_node,
                                       const std::vector<std::int64_t>& sizes);

// The same for RDMA tests at `sizes`.
std::vector<std::string> outside_rdma_range(const Profile& profile,
                                            const std::vector<std::int64_t>& sizes);

}  // namespace railsim::calibrate::fit
