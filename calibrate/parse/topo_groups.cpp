// File: calibrate/parse/topo_groups.cpp
#include "calibrate/parse/topo_groups.hpp"

#include "sim/assert.hpp"
#include "sim/index.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <map>
#include <numeric>
#include <queue>
#include <string>

namespace railsim::calibrate::parse {
namespace {

using sim::at;

constexpr const char* kLevelNames[] = {"", "PIX", "PXB", "PHB", "NODE", "SYS"};

constexpr const char* kGroupMeaning[] = {"", "directly below one PCIe switch",
                                         "below one PCIe switch", "below one host bridge",
                                         "on one NUMA node"};

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }

  int find(int i) {
    while (parent_[at(i)] != i) {
      parent_[at(i)] = parent_[at(parent_[at(i)])];
      i = parent_[at(i)];
    }
    return i;
  }

  void join(int a, int b) { parent_[at(find(a))] = find(b); }

 private:
  std::vector<int> parent_;
};

// The groups of one level as indices 0.. in the order of their first device.
std::vector<int> group_numbers(UnionFind& groups, int devices) {
  std::map<int, int> number_of_root;
  std::vector<int> numbers;
  for (int d = 0; d < devices; ++d) {
    const auto [it, added] =
        number_of_root.emplace(groups.find(d), static_cast<int>(number_of_root.size()));
    numbers.push_back(it->second);
  }
  return numbers;
}

// Whether GPUs d and e print one NUMA node, which puts them in one NODE group.
bool same_numa(const TopoCells& cells, int d, int e) {
  return cells.numa_id(d) && cells.numa_id(d) == cells.numa_id(e);
}

// "GPU0 PIX NIC0 PXB NIC3": the known pairs that put a and b in one level-l group.
std::string chain(const TopoCells& cells, int l, int a, int b) {
  std::vector<int> previous(at(cells.devices()), -1);
  std::queue<int> next;
  next.push(a);
  previous[at(a)] = a;
  while (!next.empty() && previous[at(b)] < 0) {
    const int d = next.front();
    next.pop();
    for (int e = 0; e < cells.devices(); ++e) {
      const int known = cells.level(d, e);
      const bool joined_by_numa =
          l == kNodeLevel && cells.is_gpu(d) && cells.is_gpu(e) && d != e && same_numa(cells, d, e);
      if (previous[at(e)] < 0 && ((known > 0 && known <= l) || joined_by_numa)) {
        previous[at(e)] = d;
        next.push(e);
      }
    }
  }
  RAILSIM_ASSERT(previous[at(b)] >= 0, "devices of one group are linked by known pairs");
  std::string text = cells.name(b);
  for (int d = b; d != a; d = previous[at(d)]) {
    const int p = previous[at(d)];
    const int known = cells.level(p, d);
    const std::string link = known > 0 && known <= l
                                 ? kLevelNames[known]
                                 : fmt::format("(both NUMA Affinity {})", *cells.numa_id(d));
    text = fmt::format("{} {} {}", cells.name(p), link, text);
  }
  return text;
}

void check_same_numa(const TopoCells& cells, int a, int b) {
  if (!cells.has_row(a) || !cells.has_row(b)) {
    return;
  }
  const int line = cells.row_line(b);
  if (cells.numa_id(a) && cells.numa_id(b) && cells.numa_id(a) != cells.numa_id(b)) {
    throw ParseError(
        cells.file(), line,
        fmt::format("{}, NUMA Affinity: expected {}, as {} puts {} and {} {}, got "
                    "{}",
                    cells.name(b), *cells.numa_id(a), chain(cells, kNodeLevel, a, b), cells.name(a),
                    cells.name(b), kGroupMeaning[kNodeLevel], *cells.numa_id(b)));
  }
  if (cells.cpus(a) != cells.cpus(b)) {
    throw ParseError(cells.file(), line,
                     fmt::format("{}, CPU Affinity: expected {}, as {} of the same NUMA node "
                                 "(railsim keeps one CPU list per NUMA node), got {}",
                                 cells.name(b), cells.cpus(a), cells.name(a), cells.cpus(b)));
  }
}

// A known pair inside a group its class excludes; GPUs of one NUMA node printing different
// NUMA ids or CPU lists.
void check_groups(const TopoCells& cells, const std::vector<std::vector<int>>& group_of) {
  for (int l = 1; l <= kLevels; ++l) {
    const std::vector<int>& group = group_of[at(l - 1)];
    for (int a = 0; a < cells.devices(); ++a) {
      for (int b = a + 1; b < cells.devices(); ++b) {
        if (group[at(a)] != group[at(b)]) {
          continue;
        }
        if (cells.level(a, b) > l) {
          cells.fail_at_cell(a, b,
                             fmt::format("expected {} or closer, as {} puts them {}, got {}; no "
                                         "PCIe tree gives these classes",
                                         kLevelNames[l], chain(cells, l, a, b), kGroupMeaning[l],
                                         kLevelNames[cells.level(a, b)]));
        }
        if (l == kNodeLevel && cells.is_gpu(b)) {
          check_same_numa(cells, a, b);
        }
      }
    }
  }
}

}  // namespace

TopoGroups::TopoGroups(const TopoCells& cells) {
  const int devices = cells.devices();
  std::vector<UnionFind> groups(kLevels, UnionFind(at(devices)));
  for (int l = 1; l <= kLevels; ++l) {
    UnionFind& level = groups[at(l - 1)];
    for (int a = 0; a < devices; ++a) {
      for (int b = a + 1; b < devices; ++b) {
        const int known = cells.level(a, b);
        if (known > 0 && known <= l) {
          level.join(a, b);
        }
        if (l == kNodeLevel && cells.is_gpu(b) && same_numa(cells, a, b)) {
          level.join(a, b);
        }
      }
    }
  }
  for (UnionFind& level : groups) {
    group_of_.push_back(group_numbers(level, devices));
  }
  check_groups(cells, group_of_);
}

const std::vector<int>& TopoGroups::of_level(int level) const { return group_of_[at(level - 1)]; }

}  // namespace railsim::calibrate::parse
