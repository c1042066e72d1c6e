// File: calibrate/parse/topo_import.hpp
// A NodeSpec inferred from a real `nvidia-smi topo -m` dump (and, optionally, `ibdev2netdev`):
// the PCIe tree, NUMA nodes, sockets, NVLink domain and NIC roles whose derived matrix equals
// the dump's, with the models and rates the dump does not show taken from a preset and listed
// as assumed. docs/topology-import.md gives the rules.
#pragma once

#include "calibrate/parse/ibdev2netdev.hpp"
#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "models/hardware/node_spec.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace railsim::calibrate::parse {

struct TopoImport {
  models::NodeSpec node;
  // Fields the dump does not show, given defaults: what the user should check ("GPU model
  // H100-SXM5-80GB, PCIe Gen5 x16 (as the dgx-h100 preset, NV18 on every GPU pair)").
  std::vector<std::string> assumed;
  // Choices made where the dump allows several (NIC roles, made-up NUMA ids, missing rows).
  std::vector<std::string> notes;
};

// `file` names the dump in errors. The tree is the simplest one with the dump's classes: one
// NUMA node per group of devices closer than SYS, one host bridge per group closer than NODE,
// one switch per PIX group (below a common one when the groups are PXB apart). Cells NV# hides
// (GPU pairs) and rows a truncated dump lacks are left to that tree. Throws ParseError at the row
// of a cell no tree can give (contradictory classes, an asymmetric matrix, NVLink counts the
// model cannot hold), naming the row and column. `like`, when not empty, names the preset whose
// GPU, CPU, NIC and NVLink figures the node takes (a B200 dump shows NV18 as an H100 one
// does); sim::InputError for a preset that does not exist.
TopoImport import_nvidia_smi_topo(const NvidiaSmiTopo& topo,
                                  const std::string& file,
                                  const Ibdev2netdevOutput* ibdev2netdev = nullptr,
                                  std::string_view like = {});

}  // namespace railsim::calibrate::parse
