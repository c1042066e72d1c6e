// File: calibrate/check/population_outliers.hpp
// Which measurements of a population are worse than the rest, and which element explains them.
//
// The test is robust, so that the faulty members cannot hide themselves by moving the mean: with
// the median m and the median absolute deviation MAD of the figures, a member is an outlier when
// it is worse than m by more than
//     max(kOutlierZ * 1.4826 * MAD, kOutlierFloor * m)
// (1.4826 MAD estimates a normal population's sigma; 3.5 is Iglewicz and Hoaglin's cut on the
// modified z-score; the floor keeps a population of near-identical members from flagging the
// noise of a healthy one).
//
// Each member runs between ends (a perftest pair's two NICs, an nccl-tests job's nodes). An end
// all of whose members, two or more, are outliers is blamed for them; outliers no blamed end
// explains are left on their own (the combination is slow, not an end).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace railsim::calibrate::check {

inline constexpr double kOutlierZ = 3.5;
inline constexpr double kOutlierFloor = 0.05;
// The smallest population the outlier test is run on.
inline constexpr int kOutlierMinMembers = 4;

struct PopulationMember {
  std::vector<std::string> ends;
  double figure = 0.0;
};

struct BlamedEnd {
  std::string end;
  std::vector<std::size_t> members;  // indices into the population, in its order
};

struct PopulationVerdict {
  double median = 0.0;
  double allowed = 0.0;  // how much worse than the median a member may be
  std::vector<bool> outlier;
  std::vector<BlamedEnd> blamed;         // in the order of the ends' first appearance
  std::vector<std::size_t> unexplained;  // outliers no blamed end explains
};

// `higher_is_better`: bandwidths; else latencies and times. Needs kOutlierMinMembers members.
PopulationVerdict find_outliers(const std::vector<PopulationMember>& members,
                                bool higher_is_better);

}  // namespace railsim::calibrate::check
