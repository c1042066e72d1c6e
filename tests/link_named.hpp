// File: tests/link_named.hpp
// The link of a given name in a test's network, failing the test where there is none.
#pragma once

#include "sim/flow_network.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string_view>

namespace railsim::test {

inline sim::LinkId link_named(const sim::FlowNetwork& network, std::string_view name) {
  const std::optional<sim::LinkId> link = network.find_link(name);
  if (!link) {
    ADD_FAILURE() << "no link " << name;
  }
  return link.value_or(sim::LinkId{});
}

}  // namespace railsim::test
