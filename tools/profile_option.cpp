// File: tools/profile_option.cpp
#include "tools/profile_option.hpp"

#include "models/fabric/cabling.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <limits>

namespace railsim::tools {
namespace {

void warn(const LoadedProfile& loaded, const std::vector<std::string>& sentences) {
  for (const std::string& s : sentences) {
    fmt::print(stderr, "railsim: warning: {}: outside the calibrated range: {}\n", loaded.path, s);
  }
}

}  // namespace

std::optional<LoadedProfile> load_profile(const std::string& path) {
  if (path.empty()) {
    return std::nullopt;
  }
  return LoadedProfile{path, calibrate::fit::read_profile(path)};
}

void apply_profile(const LoadedProfile& loaded,
                   models::SystemSpec& system,
                   models::CollectiveCalibration& calibration) {
  const calibrate::fit::Profile& profile = loaded.profile;
  if (!profile.node.empty() && profile.node != system.node.name) {
    fmt::print(stderr,
               "railsim: warning: {}: fitted on {} nodes (--system {}), applied to {} nodes: its "
               "parameters describe other hardware\n",
               loaded.path, profile.node, profile.system, system.node.name);
  }
  calibrate::fit::CalibratedModel model{system, calibration};
  try {
    calibrate::fit::apply_profile(loaded.profile, model);
  } catch (const sim::InputError& e) {
    throw sim::InputError(fmt::format("{}: {}", loaded.path, e.what()));
  }
  if (model.system.fabric.rails != system.fabric.rails) {
    fmt::print(stderr,
               "railsim: warning: {}: its fit found the rails cabled {}, not {} as this system "
               "says: predicting with the cabling it found\n",
               loaded.path, models::rail_mapping_key(model.system.fabric.rails),
               models::rail_mapping_key(system.fabric.rails));
  }
  system = model.system;
  calibration = model.collective;
}

std::vector<double> one_sigma_band(const LoadedProfile& loaded,
                                   const models::SystemSpec& system,
                                   const models::CollectiveCalibration& calibration,
                                   const std::vector<double>& at_profile,
                                   const Prediction& predict) {
  const std::vector<const calibrate::fit::ProfileParameter*> fitted =
      calibrate::fit::fitted_parameters(loaded.profile);
  const std::size_t rows = at_profile.size();
  std::vector<double> band(rows, 0.0);
  std::vector<std::vector<double>> slopes;  // [parameter][row]
  for (const calibrate::fit::ProfileParameter* q : fitted) {
    if (!std::isfinite(q->sigma)) {
      band.assign(rows, std::numeric_limits<double>::infinity());
      return band;
    }
    const calibrate::fit::ModelParameter& p = *q->parameter;
    const double up = std::min(q->sigma, p.upper - q->value);
    const double down = std::min(q->sigma, q->value - p.lower);
    const double step = up >= down ? up : -down;
    std::vector<double> slope(rows, 0.0);
    if (step != 0.0) {
      calibrate::fit::CalibratedModel moved{system, calibration};
      p.set(moved, q->value + step);
      const std::vector<double> figures = predict(moved.system, moved.collective);
      for (std::size_t r = 0; r < rows; ++r) {
        slope[r] = (figures[r] - at_profile[r]) / step;
      }
    }
    slopes.push_back(std::move(slope));
  }
  const std::vector<std::vector<double>>& cov = loaded.profile.covariance;
  for (std::size_t r = 0; r < rows; ++r) {
    double variance = 0.0;
    for (std::size_t a = 0; a < slopes.size(); ++a) {
      for (std::size_t b = 0; b < slopes.size(); ++b) {
        variance += slopes[a][r] * cov[a][b] * slopes[b][r];
      }
    }
    band[r] = std::sqrt(std::max(variance, 0.0));
  }
  return band;
}

void warn_outside_range(const LoadedProfile& loaded,
                        const std::string& op,
                        int nodes,
                        int gpus_per_node,
                        const std::vector<std::int64_t>& sizes) {
  warn(loaded, calibrate::fit::outside_range(loaded.profile, op, nodes, gpus_per_node, sizes));
}

void warn_outside_rdma_range(const LoadedProfile& loaded, const std::vector<std::int64_t>& sizes) {
  warn(loaded, calibrate::fit::outside_rdma_range(loaded.profile, sizes));
}

}  // namespace railsim::tools
