// File: calibrate/fit/cabling_fit.cpp
#include "calibrate/fit/cabling_fit.hpp"

#include "models/fabric/cabling.hpp"
#include "models/hardware/node_spec.hpp"
#include "sim/input_error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace railsim::calibrate::fit {
namespace {

using models::RailMapping;

// A cabling whose every row is predicted within this of the design's cannot be told from it by
// the rows (one GPU a node, one flow a NIC, whatever leaf it reaches): not fitted.
constexpr double kTold = 1e-3;

// Fits whose every prediction is within this of the chosen one's cannot be told from it by
// measurements whose run-to-run spread is of that order (nccl-tests' is about 1%).
constexpr double kAlike = 0.01;

// The system nodes a row runs on.
std::vector<int> nodes_of(const Measurement& m) {
  if (!m.node_ids.empty()) {
    return m.node_ids;
  }
  std::vector<int> nodes(
      static_cast<std::size_t>(m.kind == MeasurementKind::kCollectiveTime ? m.nodes : 2));
  std::iota(nodes.begin(), nodes.end(), 0);
  return nodes;
}

// Whether some row runs on nodes of different racks of `rack_nodes` nodes each (of 1: on two
// nodes).
bool spans_racks(const MeasurementSet& set, int rack_nodes) {
  return std::any_of(set.rows.begin(), set.rows.end(), [rack_nodes](const Measurement& m) {
    const std::vector<int> nodes = nodes_of(m);
    const auto [low, high] = std::minmax_element(nodes.begin(), nodes.end());
    return low != nodes.end() && *low / rack_nodes != *high / rack_nodes;
  });
}

// The rows are compared at the design's start and with the cables between switches at half
// their rate: a cabling moves traffic onto those cables or off them, and where they have room to
// spare, as on a non-blocking fabric, only a fit that slows them shows it.
constexpr std::array<double, 2> kUplinkShares = {1.0, 0.5};

// The rows' predictions under `model` with its cables between switches at `share` of their rate.
std::vector<RowCheck> at_uplinks(CalibratedModel model, double share, const MeasurementSet& set) {
  model.system.fabric.uplink_efficiency *= share;
  model.system.fabric.core_uplink_efficiency *= share;
  return check_rows(model, set);
}

// Whether the rows could tell cabling `other` from the design's: some row predicted more than
// kTold apart at one of kUplinkShares. False where `other` cannot run a row. `designed`: the
// design's predictions at the first shares, added to as they are needed.
bool told_apart(const CalibratedModel& design,
                RailMapping other,
                const MeasurementSet& set,
                std::vector<std::vector<RowCheck>>& designed) {
  CalibratedModel cabled = design;
  cabled.system.fabric.rails = other;
  for (std::size_t k = 0; k < kUplinkShares.size(); ++k) {
    std::vector<RowCheck> predicted;
    try {
      predicted = at_uplinks(cabled, kUplinkShares[k], set);
    } catch (const sim::InputError&) {
      return false;  // a row this cabling cannot run: not the cluster's
    }
    if (designed.size() == k) {
      designed.push_back(at_uplinks(design, kUplinkShares[k], set));
    }
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      if (std::abs(predicted[i].predicted / designed[k][i].predicted - 1.0) > kTold) {
        return true;
      }
    }
  }
  return false;
}

// The sum of the rows' squared relative errors.
double squared_errors(const Calibration& c) {
  double sse = 0.0;
  for (const RowCheck& r : c.rows) {
    sse += r.error * r.error;
  }
  return sse;
}

double criterion(const Calibration& c, bool designed, double price) {
  const double sse = squared_errors(c);
  const auto n = static_cast<double>(c.rows.size());
  const auto informed = std::count_if(
      c.parameters.begin(), c.parameters.end(),
      [](const FittedParameter& p) { return p.status != VariableStatus::kNotInformed; });
  // A floor on SSE / n well below any real measurement's noise keeps the log finite.
  return n * std::log(std::max(sse / n, 1e-12)) + 2.0 * static_cast<double>(informed) +
         (designed ? 0.0 : price);
}

}  // namespace

std::vector<RailMapping> cablings_to_try(const CalibratedModel& design, const MeasurementSet& set) {
  const models::FabricSpec& fabric = design.system.fabric;
  std::vector<RailMapping> tried = {fabric.rails};
  const int rails = static_cast<int>(models::compute_nic_indices(design.system.node).size());
  const int rack_nodes = std::max(1, fabric.nodes_per_leaf / std::max(1, rails));
  if (fabric.rails == RailMapping::kExplicit || !spans_racks(set, 1)) {
    return tried;  // no row between two nodes: cabling moves nothing
  }
  std::vector<std::vector<RowCheck>> designed;
  for (const RailMapping other :
       {RailMapping::kAligned, RailMapping::kMisaligned, RailMapping::kTopOfRack}) {
    const bool possible =
        other == RailMapping::kTopOfRack
            ? !models::top_of_rack_problem(fabric.nodes_per_leaf, fabric.planes, rails) &&
                  spans_racks(set, rack_nodes)
            : rails > 1;
    if (other != fabric.rails && possible && told_apart(design, other, set, designed)) {
      tried.push_back(other);
    }
  }
  return tried;
}

Calibration calibrate_cabling(const CalibratedModel& design,
                              const MeasurementSet& set,
                              const ParameterChoice& parameters_for,
                              const FitProgress& progress,
                              const CablingProgress& trying) {
  const std::vector<RailMapping> cablings = cablings_to_try(design, set);
  const double price = 2.0 * std::max(1.0, std::log(static_cast<double>(cablings.size())));
  std::vector<Calibration> fitted;
  std::vector<CablingFit> fits;
  std::size_t best = 0;
  for (std::size_t i = 0; i < cablings.size(); ++i) {
    if (trying) {
      trying(cablings[i], i, cablings.size());
    }
    CalibratedModel start = design;
    start.system.fabric.rails = cablings[i];
    const Calibration& c =
        fitted.emplace_back(calibrate(start, set, parameters_for(start), progress));
    fits.push_back({cablings[i], std::sqrt(squared_errors(c) / static_cast<double>(c.rows.size())),
                    criterion(c, i == 0, price)});
    best = fits.back().criterion < fits[best].criterion ? i : best;
  }
  const auto alike = [&](std::size_t i, std::size_t j) {
    const std::vector<RowCheck>& a = fitted[i].rows;
    const std::vector<RowCheck>& b = fitted[j].rows;
    return std::equal(a.begin(), a.end(), b.begin(), [](const RowCheck& x, const RowCheck& y) {
      return std::abs(x.predicted / y.predicted - 1.0) <= kAlike;
    });
  };
  // Where the design's fit predicts every row as the winner's does, the rows cannot tell the two
  // cablings apart, however much lower the winner's criterion (differences under 1% decide it
  // when the noise is smaller): the design stands.
  if (best != 0 && alike(0, best)) {
    best = 0;
  }
  for (std::size_t i = 0; i < fits.size(); ++i) {
    fits[i].alike = i != best && alike(i, best);
  }
  Calibration chosen = std::move(fitted[best]);
  chosen.cablings = cablings.size() > 1 ? fits : std::vector<CablingFit>{};
  return chosen;
}

}  // namespace railsim::calibrate::fit
