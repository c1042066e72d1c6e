// File: calibrate/fit/calibration.cpp
#include "calibrate/fit/calibration.hpp"

#include "sim/input_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace railsim::calibrate::fit {
namespace {

void apply(CalibratedModel& model,
           const std::vector<const ModelParameter*>& parameters,
           const std::vector<double>& values) {
  for (std::size_t j = 0; j < parameters.size(); ++j) {
    parameters[j]->set(model, values[j]);
  }
}

double predict_row(const CalibratedModel& model,
                   const Measurement& m,
                   std::vector<std::string>* crossed = nullptr) {
  try {
    return predict(model, m, {}, crossed);
  } catch (const sim::InputError& e) {
    throw sim::InputError(m.source + ": " + e.what());
  }
}

void add_once(std::vector<const ModelParameter*>& list, std::string_view name) {
  const ModelParameter* p = find_model_parameter(name);
  if (std::find(list.begin(), list.end(), p) == list.end()) {
    list.push_back(p);
  }
}

// The highest tier of switches a row's traffic reaches: 0 within a node, 1 a leaf, 2 a spine, 3 a
// core (from the cables between switches it crosses under `model`).
int highest_tier(const CalibratedModel& model, const Measurement& m) {
  const bool within_node = m.kind == MeasurementKind::kCollectiveTime && m.nodes < 2;
  if (within_node) {
    return 0;
  }
  std::vector<std::string> crossed;
  (void)predict_row(model, m, &crossed);
  const auto reaches = [&crossed](std::string_view from) {
    return std::any_of(crossed.begin(), crossed.end(),
                       [from](const std::string& cable) { return cable.starts_with(from); });
  };
  return reaches("spine") ? 3 : reaches("leaf") ? 2 : 1;
}

// The fabric parameters the rows can inform: the cables of a tier only where some row crosses
// them, and the switches' latency only where rows reach different tiers (over one switch and
// over three, say): rows that all cross the same switches cannot tell their latency from the
// NICs'.
void add_fabric(const CalibratedModel& model,
                const MeasurementSet& set,
                std::vector<const ModelParameter*>& list) {
  std::vector<bool> reached(4, false);
  for (const Measurement& m : set.rows) {
    reached[static_cast<std::size_t>(highest_tier(model, m))] = true;
  }
  if (reached[2] || reached[3]) {
    add_once(list, "leaf_uplink_efficiency");
  }
  if (reached[3]) {
    add_once(list, "core_uplink_efficiency");
  }
  if (std::count(reached.begin() + 1, reached.end(), true) > 1) {
    add_once(list, "switch_latency_us");
  }
}

}  // namespace

std::vector<const ModelParameter*> default_parameters(const CalibratedModel& start,
                                                      const MeasurementSet& set) {
  std::vector<const ModelParameter*> list;
  add_fabric(start, set, list);
  for (const Measurement& m : set.rows) {
    switch (m.kind) {
      case MeasurementKind::kRdmaBandwidth:
        for (const char* name : {"nic_efficiency", "pcie_efficiency", "nic_message_rate_Mps"}) {
          add_once(list, name);
        }
        break;
      case MeasurementKind::kRdmaLatency:
        add_once(list, "nic_processing_latency_us");
        add_once(list, "nic_dma_read_latency_us");
        break;
      case MeasurementKind::kCollectiveTime:
        for (const char* name :
             {"nvlink_efficiency", "pcie_efficiency", "nic_efficiency", "nvls_efficiency",
              "collective_base_latency_us", "simple_step_latency_us", "ll128_step_latency_us",
              "ll_step_latency_us"}) {
          add_once(list, name);
        }
        if (models::is_point_to_point(m.op)) {
          add_once(list, "p2p_channel_GBps");
          add_once(list, "p2p_net_efficiency");
        }
        break;
    }
  }
  // In the table's order, whatever order the rows came in.
  std::vector<const ModelParameter*> ordered;
  for (const ModelParameter& p : model_parameters()) {
    if (std::find(list.begin(), list.end(), &p) != list.end()) {
      ordered.push_back(&p);
    }
  }
  return ordered;
}

std::vector<RowCheck> check_rows(const CalibratedModel& model, const MeasurementSet& set) {
  std::vector<RowCheck> rows;
  rows.reserve(set.rows.size());
  for (const Measurement& m : set.rows) {
    const double predicted = predict_row(model, m);
    rows.push_back({m, predicted, predicted / m.measured - 1.0});
  }
  return rows;
}

Calibration calibrate(const CalibratedModel& start,
                      const MeasurementSet& set,
                      const std::vector<const ModelParameter*>& parameters,
                      const FitProgress& progress) {
  if (set.rows.empty()) {
    throw sim::InputError("no measurement the model can predict: nothing to calibrate on");
  }
  // Fails here, naming the row, if the model cannot run one of them.
  (void)check_rows(start, set);

  std::vector<FitVariable> variables;
  variables.reserve(parameters.size());
  for (const ModelParameter* p : parameters) {
    const double initial = std::clamp(p->get(start), p->lower, p->upper);
    variables.push_back({std::string(p->name), initial, p->lower, p->upper, p->scale, p->linear});
  }
  int evaluations = 0;
  double start_rms = 0.0;
  double best_rms = std::numeric_limits<double>::infinity();
  const ResidualFunction residuals = [&](const std::vector<double>& values) {
    CalibratedModel model = start;
    apply(model, parameters, values);
    std::vector<double> r;
    r.reserve(set.rows.size());
    double squares = 0.0;
    for (const Measurement& m : set.rows) {
      r.push_back(predict(model, m) / m.measured - 1.0);
      squares += r.back() * r.back();
    }
    if (progress) {
      const double rms = std::sqrt(squares / static_cast<double>(r.size()));
      start_rms = ++evaluations == 1 ? rms : start_rms;
      best_rms = std::min(best_rms, rms);
      progress(evaluations, start_rms, best_rms);
    }
    return r;
  };
  const FitResult fit = fit_least_squares(variables, residuals);

  Calibration result;
  result.model = start;
  apply(result.model, parameters, fit.values);
  for (std::size_t j = 0; j < parameters.size(); ++j) {
    result.parameters.push_back({parameters[j], variables[j].initial, fit.values[j],
                                 fit.standard_errors[j], fit.status[j]});
  }
  result.covariance = fit.covariance;
  result.confounded = fit.confounded;
  result.linear = fit.linear;
  result.converged = fit.converged;
  result.message = fit.message;
  result.evaluations = fit.evaluations;
  result.rows = check_rows(result.model, set);
  return result;
}

}  // namespace railsim::calibrate::fit
