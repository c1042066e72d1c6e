// File: tests/models/did_you_mean_test.cpp
#include "models/did_you_mean.hpp"

#include <gtest/gtest.h>

namespace railsim::models {
namespace {

TEST(DidYouMean, SuggestsTheClosestNameWithinReach) {
  const std::vector<std::string> names = {"dgx-a100", "dgx-h100", "hgx-h200"};
  EXPECT_EQ(did_you_mean("dgx-h10", names), " (did you mean 'dgx-h100'?)");
  EXPECT_EQ(did_you_mean("dgx_a100", names), " (did you mean 'dgx-a100'?)");
  EXPECT_EQ(did_you_mean("mi300x", names), "");
}

}  // namespace
}  // namespace railsim::models
