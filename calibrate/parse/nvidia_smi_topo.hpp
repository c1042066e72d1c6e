// File: calibrate/parse/nvidia_smi_topo.hpp
// What `nvidia-smi topo -m` prints: the square matrix of distances between GPUs and NICs
// (X, NV#, PIX, PXB, PHB, NODE, SYS; models/hardware/path_class.hpp says what each means), the
// CPU Affinity / NUMA Affinity / GPU NUMA ID columns of the GPU rows, the legend and the NIC
// legend (NIC0 -> mlx5_0).
#pragma once

#include "calibrate/parse/text_input.hpp"
#include "models/hardware/path_class.hpp"
#include "models/hardware/topo_matrix.hpp"

#include <string>
#include <utility>
#include <vector>

namespace railsim::calibrate::parse {

// One cell of the matrix.
struct TopoLink {
  models::PathClass path_class = models::PathClass::kSelf;
  int nvlinks = 0;  // the # of NV#; 0 for the other classes

  bool operator==(const TopoLink&) const = default;
};

// "X", "NV12", "PIX", ...: the cell as nvidia-smi prints it.
std::string to_string(const TopoLink& link);

struct TopoRow {
  std::string device;           // "GPU0", "NIC3", or a verbs name ("mlx5_0") in older releases
  std::vector<TopoLink> links;  // one per column, in the columns' order
  // The affinity values as printed ("0-31,64-95", "0", "N/A"), one per affinity column; empty
  // for rows that print none (NICs).
  std::vector<std::string> affinity;
  int line = 0;
};

struct NvidiaSmiTopo {
  std::vector<std::string> devices;           // the column names, GPUs first
  std::vector<std::string> affinity_columns;  // those of "CPU Affinity", "NUMA Affinity",
                                              // "GPU NUMA ID" the header has, in its order
  std::vector<TopoRow> rows;                  // in the columns' order
  std::vector<std::pair<std::string, std::string>> legend;      // "X" -> "Self"
  std::vector<std::pair<std::string, std::string>> nic_legend;  // "NIC0" -> "mlx5_0"
  // The file (or an excerpt of it) ends before every device's row: the rows present are
  // complete, the others missing.
  bool truncated = false;
};

// Fails (ParseError, file:line) on a damaged or unknown matrix: a row of the wrong device or
// width, an unknown cell, no X on the diagonal, an affinity that is not a CPU list.
NvidiaSmiTopo parse_nvidia_smi_topo(const TextInput& input);

bool looks_like_nvidia_smi_topo(const TextInput& input);

// The matrix as `nvidia-smi topo -m` prints it (tab-separated; the legend and the NIC legend
// after it), which parse_nvidia_smi_topo reads back.
std::string nvidia_smi_topo_text(const models::TopoMatrix& matrix);

}  // namespace railsim::calibrate::parse
