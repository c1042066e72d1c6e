// File: calibrate/parse/topo_cells.hpp
// A `nvidia-smi topo -m` dump as the import (topo_import.hpp) reads it: its devices, GPUs first,
// the symmetric matrix of their PCIe closeness levels (both halves checked against each other
// where the dump has both rows), and each GPU's NUMA and CPU affinity.
#pragma once

#include "calibrate/parse/nvidia_smi_topo.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::calibrate::parse {

// Closeness levels; the groups of level L hold the devices at most that far apart.
inline constexpr int kPixLevel = 1;   // directly below one switch
inline constexpr int kPxbLevel = 2;   // below one switch
inline constexpr int kPhbLevel = 3;   // below one host bridge
inline constexpr int kNodeLevel = 4;  // on one NUMA node
inline constexpr int kSysLevel = 5;   // on different NUMA nodes
inline constexpr int kLevels = 4;     // the levels that make groups: PIX to NODE

class TopoCells {
 public:
  // `file` names the dump in errors. Throws ParseError at the row of a cell that contradicts
  // its mirror or puts NVLink beside a NIC, of GPUs out of order, of a NUMA node out of range.
  // Adds to `notes` what the dump leaves unsaid (missing rows, GPUs without a NUMA Affinity).
  TopoCells(const NvidiaSmiTopo& topo, const std::string& file, std::vector<std::string>& notes);

  const NvidiaSmiTopo& topo() const { return topo_; }

  const std::string& file() const { return file_; }

  int devices() const { return devices_; }

  int gpus() const { return gpus_; }

  bool is_gpu(int d) const { return d < gpus_; }

  bool has_row(int d) const;

  const std::string& name(int d) const;

  // The cell between two devices: nothing on the diagonal or where neither row is in the dump.
  const std::optional<TopoLink>& cell(int a, int b) const;

  // The cell's level; 0 for an unknown cell, X and NV#, which say nothing of the PCIe tree.
  int level(int a, int b) const;

  // GPU g's NUMA Affinity where it names one node.
  const std::optional<int>& numa_id(int g) const;

  // GPU g's CPU Affinity as printed; "N/A" where the dump has none.
  const std::string& cpus(int g) const;

  // The line of device d's row (has_row(d)).
  int row_line(int d) const;

  // A ParseError at the row the cell was read from, naming its row and column.
  [[noreturn]] void fail_at_cell(int a, int b, const std::string& what) const;

 private:
  const NvidiaSmiTopo& topo_;
  const std::string& file_;
  int devices_ = 0;
  int gpus_ = 0;
  std::vector<std::vector<std::optional<TopoLink>>> cells_;  // [row][column], both halves
  std::vector<std::optional<int>> numa_ids_;                 // per GPU, from NUMA Affinity
  std::vector<std::string> cpus_;                            // per GPU, CPU Affinity as printed

  // The line of the row a cell was read from: row a when the dump has it, else row b.
  int line_of(int a, int b) const;

  std::optional<std::size_t> affinity_column(std::string_view column) const;

  void read_devices();
  void read_cells(std::vector<std::string>& notes);
  void read_affinity(std::vector<std::string>& notes);
};

}  // namespace railsim::calibrate::parse
