// File: calibrate/fit/cabling_fit.hpp
// Which cabling of the rails the measurements say the cluster has. A cabling is not a rate to
// scale but a choice (a node's NICs on their rails' leaves, on one leaf of its rack, or over the
// rails in some other order), and a cluster cabled otherwise than its design moves traffic off
// its rail: onto the spines, where it collides and queues. So calibration fits the parameters
// under the design's cabling and under each other one the rows could tell from it, and keeps the
// design's unless another explains the rows better by more than its price: n ln(SSE / n) + 2k,
// SSE the sum of the squared relative errors of the n rows and k the parameters the rows
// inform, as Akaike's criterion, plus 2 ln c (at least 2) for a cabling other than the design's,
// c the cablings tried: what the best of c alternatives gains by chance (Foster and George's risk
// inflation, as railsim diagnose prices a fault).
#pragma once

#include "calibrate/fit/calibration.hpp"
#include "calibrate/fit/measurements.hpp"
#include "calibrate/fit/model_parameters.hpp"
#include "models/fabric/fabric_spec.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace railsim::calibrate::fit {

// The design's rail mapping first, then those the rows could tell from it: aligned, misaligned
// (per node, a permutation of its NICs over the rails drawn from the design's rail seed) and
// top-of-rack (where whole nodes fit a leaf and the rows' nodes fill more than one rack), each
// where it runs every row and predicts one 0.1% apart from the design, at the design's start or
// with the cables between switches at half their rate. None but the design's for an explicit
// cabling table, or where no row spans two nodes. Throws sim::InputError (naming the row) when
// the design cannot run a row.
std::vector<models::RailMapping> cablings_to_try(const CalibratedModel& design,
                                                 const MeasurementSet& set);

// The parameters to fit under a start model (its cabling decides which cables the rows cross).
using ParameterChoice =
    std::function<std::vector<const ModelParameter*>(const CalibratedModel& start)>;

// Told as each cabling's fit starts: which, and its place among the `count` tried.
using CablingProgress =
    std::function<void(models::RailMapping rails, std::size_t index, std::size_t count)>;

// calibrate() under each of cablings_to_try, the best by the criterion (header) returned with
// every cabling's fit in Calibration::cablings; throws as calibrate() does.
Calibration calibrate_cabling(const CalibratedModel& design,
                              const MeasurementSet& set,
                              const ParameterChoice& parameters_for,
                              const FitProgress& progress = {},
                              const CablingProgress& trying = {});

}  // namespace railsim::calibrate::fit
