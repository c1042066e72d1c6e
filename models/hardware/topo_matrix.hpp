// File: models/hardware/topo_matrix.hpp
// The matrix `nvidia-smi topo -m` prints, computed from a NodeSpec: GPUs then NICs as rows and
// columns, the distance label in each cell, and each GPU's CPU and NUMA affinity. NICs are
// numbered NIC0.. in the node's order, with a legend naming their verbs devices.
#pragma once

#include "models/hardware/node_spec.hpp"

#include <string>
#include <utility>
#include <vector>

namespace railsim::models {

struct TopoMatrix {
  struct Row {
    std::string name;                // "GPU3", "NIC0"
    std::vector<std::string> cells;  // one per column: "X", "NV18", "PIX", ...
    std::string cpu_affinity;        // GPUs only
    std::string numa_affinity;       // GPUs only
  };

  std::vector<std::string> columns;
  std::vector<Row> rows;
  std::vector<std::pair<std::string, std::string>> nic_legend;  // "NIC0" -> "mlx5_0"
};

TopoMatrix topo_matrix(const NodeSpec& node);

}  // namespace railsim::models
