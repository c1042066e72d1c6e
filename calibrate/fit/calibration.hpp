// File: calibrate/fit/calibration.hpp
// Calibration: the named model parameters (model_parameters.hpp) fitted to measurements
// (measurements.hpp) by least squares on the relative error of each row, predicted / measured
// - 1, so a 1 us latency and a 16 GiB AllReduce weigh alike. The result holds the values with
// their uncertainty and each row's measured and predicted figure.
#pragma once

#include "calibrate/fit/least_squares.hpp"
#include "calibrate/fit/measurements.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "models/fabric/fabric_spec.hpp"

#include <functional>
#include <vector>

namespace railsim::calibrate::fit {

struct FittedParameter {
  const ModelParameter* parameter = nullptr;
  double initial = 0.0;  // the model's value before the fit
  double value = 0.0;
  double sigma = 0.0;  // 1 standard error (kFitted only)
  VariableStatus status = VariableStatus::kNotInformed;
};

struct RowCheck {
  Measurement measurement;
  double predicted = 0.0;
  double error = 0.0;  // predicted / measured - 1
};

// One cabling's fit (cabling_fit.hpp): the rms of its rows' relative errors and its criterion.
struct CablingFit {
  models::RailMapping rails = models::RailMapping::kAligned;
  double rms = 0.0;
  double criterion = 0.0;
  // Its fit predicts every row within 1% of the chosen cabling's: the rows cannot tell them
  // apart.
  bool alike = false;
};

struct Calibration {
  CalibratedModel model;  // the start with the fitted values applied
  std::vector<FittedParameter> parameters;
  std::vector<std::vector<double>> covariance;  // between `parameters`, in their units
  std::vector<Confounding> confounded;          // indices into `parameters`
  bool linear = false;
  bool converged = false;
  std::string message;
  int evaluations = 0;
  std::vector<RowCheck> rows;
  // Each cabling tried (cabling_fit.hpp), the design's first; empty where only the design's was.
  std::vector<CablingFit> cablings;
};

// The parameters the measurements' kinds can inform: NIC and PCIe rates and the message rate
// for RDMA streams, the NIC's processing and DMA-read latencies for ping-pongs, NVLink, PCIe, NIC
// and NVLS rates and the collectives' latencies for nccl-tests rows, the p2p channel rate and
// stream share for point-to-point rows. And the fabric's where `start`'s routes make the rows
// load it: a tier's uplink efficiency where some row crosses its cables, the switch latency
// where rows reach different tiers. Throws sim::InputError (naming the row) when the model cannot
// run a row.
std::vector<const ModelParameter*> default_parameters(const CalibratedModel& start,
                                                      const MeasurementSet& set);

// Told after each evaluation of the model over every row: the evaluations so far, and the rms of
// the rows' relative errors at the start and at the best evaluation yet.
using FitProgress = std::function<void(int evaluations, double start_rms, double best_rms)>;

// Throws sim::InputError (naming the row) when the model cannot run a measurement, and when the
// set is empty.
Calibration calibrate(const CalibratedModel& start,
                      const MeasurementSet& set,
                      const std::vector<const ModelParameter*>& parameters,
                      const FitProgress& progress = {});

// Each row's prediction under `model`, without fitting (for `calibrate --check`).
std::vector<RowCheck> check_rows(const CalibratedModel& model, const MeasurementSet& set);

}  // namespace railsim::calibrate::fit
