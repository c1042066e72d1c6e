// File: calibrate/check/population_outliers.cpp
#include "calibrate/check/population_outliers.hpp"

#include "sim/assert.hpp"
#include "sim/median.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace railsim::calibrate::check {

PopulationVerdict find_outliers(const std::vector<PopulationMember>& members,
                                bool higher_is_better) {
  RAILSIM_ASSERT(static_cast<int>(members.size()) >= kOutlierMinMembers,
                 "the outlier test needs a population");
  PopulationVerdict v;
  std::vector<double> figures;
  figures.reserve(members.size());
  for (const PopulationMember& m : members) {
    figures.push_back(m.figure);
  }
  v.median = sim::median(figures);
  std::vector<double> deviations;
  deviations.reserve(figures.size());
  for (const double f : figures) {
    deviations.push_back(std::abs(f - v.median));
  }
  v.allowed = std::max(kOutlierZ * 1.4826 * sim::median(deviations), kOutlierFloor * v.median);
  for (const double f : figures) {
    const double worse = higher_is_better ? v.median - f : f - v.median;
    v.outlier.push_back(worse > v.allowed);
  }
  // Ends in the order they first appear, with their members.
  std::vector<BlamedEnd> ends;
  for (std::size_t i = 0; i < members.size(); ++i) {
    for (const std::string& end : members[i].ends) {
      auto it =
          std::find_if(ends.begin(), ends.end(), [&](const BlamedEnd& e) { return e.end == end; });
      if (it == ends.end()) {
        ends.push_back({end, {}});
        it = ends.end() - 1;
      }
      it->members.push_back(i);
    }
  }
  std::set<std::size_t> explained;
  for (BlamedEnd& e : ends) {
    const bool all = std::all_of(e.members.begin(), e.members.end(),
                                 [&](std::size_t i) { return v.outlier[i]; });
    if (e.members.size() >= 2 && all) {
      explained.insert(e.members.begin(), e.members.end());
      v.blamed.push_back(std::move(e));
    }
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (v.outlier[i] && explained.count(i) == 0) {
      v.unexplained.push_back(i);
    }
  }
  return v;
}

}  // namespace railsim::calibrate::check
