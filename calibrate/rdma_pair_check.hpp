// File: calibrate/rdma_pair_check.hpp
// The point-to-point RDMA layer: every perftest pair judged against the model's baseline for its
// test, and against the population of pairs that ran the same test at the same size.
//
// Each pair gives one figure: a bandwidth test its BW average at its largest size, a latency test
// its t_typical at its smallest. The population test is robust, so that the faulty pairs cannot
// hide themselves by moving the mean: the median m and the median absolute deviation MAD, and a
// pair is an outlier when it is worse than m by more than
//     max(kOutlierZ * 1.4826 * MAD, kOutlierFloor * m)
// (1.4826 MAD estimates a normal population's sigma; 3.5 is Iglewicz and Hoaglin's cut on the
// modified z-score; the floor keeps a population of near-identical pairs from flagging the
// noise of a healthy one). Outliers are then blamed on as few ends as explain them: a node's
// NIC whose pairs are all outliers, when it is in at least two, is named once; an outlier pair
// whose ends are fine elsewhere is named as a pair (its cables, or the switch path between them).
#pragma once

#include "calibrate/check_finding.hpp"
#include "calibrate/cluster_evidence.hpp"
#include "calibrate/model_parameters.hpp"

#include <vector>

namespace railsim::calibrate {

inline constexpr double kOutlierZ = 3.5;
inline constexpr double kOutlierFloor = 0.05;
// The smallest population the outlier test is run on.
inline constexpr int kOutlierMinPairs = 4;
// How far below the model's ib_write_bw a pair (or, with enough pairs, their median) may be: the
// uncalibrated model is within 0.5% of both bandwidth fixtures at 8 MiB (docs/hardware.md), so
// 10% is a real shortfall, not the model's error.
inline constexpr double kRdmaBandwidthTolerance = 0.10;

void check_rdma_pairs(const std::vector<PairEvidence>& pairs,
                      const CalibratedModel& model,
                      std::vector<Finding>& out);

}  // namespace railsim::calibrate
