// File: models/hardware/topo_matrix.cpp
// Every cell from topo_label(); affinity from the NUMA node above each GPU.
#include "models/hardware/topo_matrix.hpp"

#include "models/hardware/path_class.hpp"

#include <cstddef>

namespace railsim::models {

TopoMatrix topo_matrix(const NodeSpec& node) {
  TopoMatrix matrix;
  std::vector<DeviceRef> devices;
  for (std::size_t g = 0; g < node.gpus.size(); ++g) {
    matrix.columns.push_back("GPU" + std::to_string(g));
    devices.push_back({DeviceRef::Kind::kGpu, static_cast<int>(g)});
  }
  for (std::size_t n = 0; n < node.nics.size(); ++n) {
    matrix.columns.push_back("NIC" + std::to_string(n));
    matrix.nic_legend.emplace_back(matrix.columns.back(), node.nics[n].name);
    devices.push_back({DeviceRef::Kind::kNic, static_cast<int>(n)});
  }
  for (std::size_t r = 0; r < devices.size(); ++r) {
    TopoMatrix::Row row;
    row.name = matrix.columns[r];
    for (const DeviceRef& column : devices) {
      row.cells.push_back(topo_label(node, devices[r], column));
    }
    if (devices[r].kind == DeviceRef::Kind::kGpu) {
      const NumaNode& numa =
          node.numa_nodes.at(static_cast<std::size_t>(numa_of(node, devices[r])));
      row.cpu_affinity = numa.cpus;
      row.numa_affinity = std::to_string(numa.id);
    }
    matrix.rows.push_back(std::move(row));
  }
  return matrix;
}

}  // namespace railsim::models
