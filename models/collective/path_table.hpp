// File: models/collective/path_table.hpp
// PathTable: the paths a collective's executors index (TransferDag, GroupPipeline), kept as one
// list of links with an end offset per path, and the latency of one.
//
// A 16,384-node NVLS Tree AllReduce routes 4.2 million tree edges of about a dozen links each.
// As a vector per path each cost its 24 bytes and a heap block of 64; here a path costs its
// links and 4 bytes, and building the table is a few allocations rather than millions.
#pragma once

#include "sim/assert.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace railsim::models {

class PathTable {
 public:
  std::size_t size() const { return ends_.size(); }

  bool empty() const { return ends_.empty(); }

  std::span<const sim::LinkId> operator[](std::size_t path) const {
    const std::uint32_t begin = path == 0 ? 0 : ends_[path - 1];
    return std::span<const sim::LinkId>(links_).subspan(begin, ends_[path] - begin);
  }

  // Adds `links` as the last path; returns its index.
  std::uint32_t add(std::span<const sim::LinkId> links) {
    RAILSIM_ASSERT(links_.size() + links.size() <= std::numeric_limits<std::uint32_t>::max(),
                   "a path table holds at most 2^32 - 1 links");
    links_.insert(links_.end(), links.begin(), links.end());
    ends_.push_back(static_cast<std::uint32_t>(links_.size()));
    return static_cast<std::uint32_t>(ends_.size() - 1);
  }

 private:
  std::vector<sim::LinkId> links_;
  std::vector<std::uint32_t> ends_;  // path p is links_[ends_[p - 1] .. ends_[p])
};

// The latency of `path`, summed over its links.
inline sim::Duration path_latency(const sim::FlowNetwork& network,
                                  std::span<const sim::LinkId> path) {
  sim::Duration sum{};
  for (const sim::LinkId link : path) {
    sum += network.link(link).latency;
  }
  return sum;
}

}  // namespace railsim::models
