// File: calibrate/parse/topo_groups.hpp
// A dump's devices (topo_cells.hpp) grouped level by level, PIX to NODE: the groups the imported
// PCIe tree, NUMA nodes and sockets are built from (topo_tree.hpp).
#pragma once

#include "calibrate/parse/topo_cells.hpp"

#include <vector>

namespace railsim::calibrate::parse {

// The dump's PCIe classes form an ultrametric (PIX < PXB < PHB < NODE < SYS: two devices that are
// each that close to a third are that close to each other, since a device has one chain of
// switches above it), so each level's groups are the connected components of the pairs known to
// be that close. A known pair that lands in a group its own cell says it is not in is a matrix no
// tree can give. Taking the components of the known pairs only is the least-joined choice, so it
// finds a tree whenever one exists.
class TopoGroups {
 public:
  // Level L joins every pair known to be at most L apart; NODE also joins GPUs that print the
  // same NUMA node. Throws ParseError at a known pair inside a group its class excludes, and at
  // GPUs of one NUMA node that print different NUMA ids or CPU lists.
  explicit TopoGroups(const TopoCells& cells);

  // Each device's group of level `level` (kPixLevel to kNodeLevel), the groups numbered 0.. in
  // the order of their first device.
  const std::vector<int>& of_level(int level) const;

 private:
  std::vector<std::vector<int>> group_of_;  // [level - 1][device]
};

}  // namespace railsim::calibrate::parse
