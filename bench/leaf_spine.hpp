// File: bench/leaf_spine.hpp
// The fabric shape every benchmark uses: endpoints under leaves, leaves under spines, one link
// per direction for every endpoint-leaf and leaf-spine pair, numbered densely so a bare max-min
// problem and a FlowNetwork built in the same order share link indices. Also the random draws
// the workloads share (endpoint pairs, log-uniform sizes) and the process's peak memory.
#pragma once

#include "sim/bandwidth.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace railsim::bench {

// Link numbering, E endpoints, L leaves, S spines:
//   [0, E)                 endpoint e -> its leaf (uplink)
//   [E, 2E)                leaf -> endpoint e (downlink)
//   [2E, 2E + LS)          leaf l -> spine s, at 2E + l S + s
//   [2E + LS, 2E + 2LS)    spine s -> leaf l, at 2E + LS + l S + s
struct LeafSpineShape {
  std::uint32_t leaves = 128;
  std::uint32_t endpoints_per_leaf = 32;
  std::uint32_t spines = 32;

  std::uint32_t endpoints() const { return leaves * endpoints_per_leaf; }

  std::uint32_t link_count() const { return 2 * endpoints() + 2 * leaves * spines; }

  std::uint32_t leaf_of(std::uint32_t endpoint) const { return endpoint / endpoints_per_leaf; }

  std::uint32_t uplink(std::uint32_t endpoint) const { return endpoint; }

  std::uint32_t downlink(std::uint32_t endpoint) const { return endpoints() + endpoint; }

  std::uint32_t leaf_to_spine(std::uint32_t leaf, std::uint32_t spine) const {
    return 2 * endpoints() + leaf * spines + spine;
  }

  std::uint32_t spine_to_leaf(std::uint32_t spine, std::uint32_t leaf) const {
    return 2 * endpoints() + leaves * spines + leaf * spines + spine;
  }

  bool is_endpoint_link(std::uint32_t link) const { return link < 2 * endpoints(); }

  // Appends the links from `src` to `dst` (src != dst) to `path`: up and down through the leaf
  // alone when they share one, else up, through `spine`, and down (four links).
  template <typename Link, typename MakeLink>
  void append_path(std::uint32_t src,
                   std::uint32_t dst,
                   std::uint32_t spine,
                   std::vector<Link>& path,
                   MakeLink make_link) const {
    path.push_back(make_link(uplink(src)));
    if (leaf_of(src) != leaf_of(dst)) {
      path.push_back(make_link(leaf_to_spine(leaf_of(src), spine)));
      path.push_back(make_link(spine_to_leaf(spine, leaf_of(dst))));
    }
    path.push_back(make_link(downlink(dst)));
  }
};

struct EndpointPair {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint32_t spine = 0;  // the spine a cross-leaf path takes
};

// Two distinct endpoints and a spine, uniformly at random.
inline EndpointPair random_pair(const LeafSpineShape& shape, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::uint32_t> endpoint(0, shape.endpoints() - 1);
  std::uniform_int_distribution<std::uint32_t> other(0, shape.endpoints() - 2);
  std::uniform_int_distribution<std::uint32_t> spine(0, shape.spines - 1);
  EndpointPair pair;
  pair.src = endpoint(rng);
  pair.dst = other(rng);
  if (pair.dst >= pair.src) {
    ++pair.dst;  // Uniform over the endpoints other than src.
  }
  pair.spine = spine(rng);
  return pair;
}

// "up17", "down17", "leaf3>spine5", "spine5>leaf3": names for messages and reports.
inline std::string link_name(const LeafSpineShape& shape, std::uint32_t link) {
  const std::uint32_t e = shape.endpoints();
  const std::uint32_t ls = shape.leaves * shape.spines;
  std::string name;
  if (link < e) {
    name += "up";
    name += std::to_string(link);
  } else if (link < 2 * e) {
    name += "down";
    name += std::to_string(link - e);
  } else if (link < 2 * e + ls) {
    name += "leaf";
    name += std::to_string((link - 2 * e) / shape.spines);
    name += ">spine";
    name += std::to_string((link - 2 * e) % shape.spines);
  } else {
    name += "spine";
    name += std::to_string((link - 2 * e - ls) % shape.spines);
    name += ">leaf";
    name += std::to_string((link - 2 * e - ls) / shape.spines);
  }
  return name;
}

// Adds the fabric's links to `network` in LeafSpineShape's order, so that shape indices are
// LinkId indices: all of `rate`, endpoint links with a latency of 100-200 ns and leaf-spine links
// 400-600 ns (cable plus switch forwarding), drawn from `rng`.
inline void add_leaf_spine_links(sim::FlowNetwork& network,
                                 const LeafSpineShape& shape,
                                 sim::Bandwidth rate,
                                 std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> edge_ns(100, 200);
  std::uniform_int_distribution<std::int64_t> core_ns(400, 600);
  for (std::uint32_t link = 0; link < shape.link_count(); ++link) {
    const std::int64_t latency_ns = shape.is_endpoint_link(link) ? edge_ns(rng) : core_ns(rng);
    network.add_link({rate, sim::ps(latency_ns * 1000), link_name(shape, link)});
  }
}

// Sizes whose logarithm is uniform between log(lo) and log(hi): as many flows of 64-128 KiB as
// of 8-16 MiB. The mean is (hi - lo) / ln(hi / lo).
class LogUniformSize {
 public:
  LogUniformSize(sim::Bytes lo, sim::Bytes hi)
      : lo_(lo),
        hi_(hi),
        log_(std::log(static_cast<double>(lo.count)), std::log(static_cast<double>(hi.count))) {}

  sim::Bytes operator()(std::mt19937_64& rng) {
    return sim::Bytes{std::llround(std::exp(log_(rng)))};
  }

  double mean() const {
    const auto lo = static_cast<double>(lo_.count);
    const auto hi = static_cast<double>(hi_.count);
    return (hi - lo) / std::log(hi / lo);
  }

 private:
  sim::Bytes lo_;
  sim::Bytes hi_;
  std::uniform_real_distribution<double> log_;
};

// A field of /proc/self/status in MiB ("VmHWM:" the peak resident set, "VmRSS:" the current
// one), or -1 where /proc is not there. VmHWM is a high-water mark of the whole process: compare
// sizes only across separate runs.
inline double proc_status_mib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == field) {
      double kib = 0.0;
      status >> kib;
      return kib / 1024.0;
    }
    std::getline(status, key);
  }
  return -1.0;
}

}  // namespace railsim::bench
