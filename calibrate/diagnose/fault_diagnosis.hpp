// File: calibrate/diagnose/fault_diagnosis.hpp
// railsim diagnose: which faults make the model reproduce a cluster's measurements. Every
// candidate fault (fault_space.hpp) is put into the design in turn, each measurement it can
// change is predicted again (explanation.hpp), and the candidates are ranked by how well the
// predictions match what was measured. A fault changes only the few measurements that run
// through it, so the sweep costs the faults times those, not the faults times all measurements.
#pragma once

#include "calibrate/diagnose/explanation.hpp"
#include "calibrate/fit/measurements.hpp"
#include "calibrate/fit/model_parameters.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace railsim::calibrate::diagnose {

// Runs work(i) for every i in [0, count), in any order and on any threads; each i writes only
// its own results. Empty: one after another.
using IndexLoop =
    std::function<void(std::size_t count, const std::function<void(std::size_t)>& work)>;

struct DiagnosisOptions {
  // The rate scales every port, PCIe and cable candidate is tried at before the best are fitted.
  std::vector<double> scales = {0.75, 0.5, 0.25};
  int fitted = 6;      // the single faults whose scales are fitted, and paired with each other
  int listed = 5;      // the groups of explanations the caller lists (railsim diagnose --top)
  IndexLoop for_each;  // how the model runs are spread (railsim diagnose: its parallel loop)
  // Asked after the screen and between batches of model runs: true ends the search there, with
  // what it has (railsim diagnose --time-budget). Empty: the search runs to its end.
  std::function<bool()> out_of_time;
};

struct Diagnosis {
  std::vector<fit::Measurement> measurements;  // those the model could run
  std::vector<std::string> notes;              // those it could not, and why
  std::vector<double> design;                  // the design's prediction of each measurement
  int candidates = 0;                          // explanations evaluated
  int screened = 0;     // single faults screened on screen_rows (explanation.hpp)
  int screen_rows = 0;  // how many rows the screen predicts
  int completed = 0;    // of those screened, how many were then predicted in full
  int stopped = 0;      // and how many in part, their SSE past the bound on the way
  // What it all cost: runs of the model, one per measurement predicted (the design's prediction
  // of each measurement among them), whatever the threads.
  std::int64_t model_runs = 0;
  std::vector<Explanation> ranked;  // best first, one per fault set; none the bound ruled out

  // How many groups `ranked` falls into: the explanations predicted in full that the
  // measurements can tell apart (Explanation::group). The design is always ranked.
  int distinct() const { return ranked.back().group + 1; }

  // Where options.out_of_time ended the search early: how many screened single faults it left
  // unpredicted that their bounds did not rule out, and the least of those bounds (an SSE none
  // of them can beat); the scales of the best were then not fitted, nor pairs tried.
  bool cut_short = false;
  int left_unpredicted = 0;
  double left_bound_sse = kImpossible;
};

// A rate fault is swept over a grid of scales, then the best candidates' scales are fitted
// (Brent's method), and pairs of them are tried together. The fit of each explanation is
// its sum of squared log errors SSE over the n measurements; explanations of k faults are ranked
// by n ln(SSE / n) + 2k ln p, p the number of candidate faults (at least e, so never below
// Akaike's 2k): Foster and George's risk inflation criterion. With hundreds of candidates, the
// best of them fits some measurement's noise by chance (a cable that only one collective crosses
// can be scaled to match that run's 1% exactly); a fault must beat what the best of p pure-noise
// candidates would gain, about 2 ln p, to count. So a second fault must pay for itself, and the
// design without any fault is a candidate like the others. Explanations the measurements cannot
// tell apart are grouped, and the group is what a diagnosis names.
//
// The single faults are screened first: each predicts only the largest size of every collective
// run (and every RDMA row), which bounds its SSE from below, and they are predicted in full in
// the order of their bounds (each stopping part-way, largest sizes first, once the SSE of its
// rows known passes the bound below) until the next bound is above the SSE of the first of those
// done by which `fitted + listed` groups and as many elements are seen (the fitted ones, and the
// groups listed even if fitting merges some): no candidate left out can be fitted or head a listed
// group. After the fits, the elements with a scale left out that could be equivalent to an
// explanation kept (grid or fitted: within 1% on every screened row, its bound within what
// equivalence allows over all rows) and better than the element's entry have every such scale
// predicted in full. So the groups listed, their members and errors are those of a diagnosis
// that predicts every candidate in full; the others are dropped from the ranking.
//
// With options.out_of_time, the search stops where it says so: after the screen or a batch of
// completions, then neither fits nor pairs; the ranking is of what was predicted in full, and
// Diagnosis says how many candidates were left and the least SSE they could have.
//
// `model.system.nodes` is the cluster's node count; the measurements are placed on it
// (calibrate/fit/cluster_measurements.hpp). Throws sim::InputError when no measurement can be
// predicted. The result is the same whatever options.for_each's order and threads.
Diagnosis diagnose(const fit::CalibratedModel& model,
                   const fit::MeasurementSet& measurements,
                   const DiagnosisOptions& options = {});

}  // namespace railsim::calibrate::diagnose
