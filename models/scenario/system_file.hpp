// File: models/scenario/system_file.hpp
// Systems described in JSON (docs/scenarios.md): a node preset, a node count, the fabric, the
// rail mapping, GPUDirect RDMA settings and faults. Every error names the file and the JSON
// pointer of the offending value.
#pragma once

#include "models/fault/link_fault.hpp"
#include "models/scenario/json_reader.hpp"
#include "models/system/system.hpp"
#include "sim/simulator.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railsim::models::scenario {

struct SystemFile {
  std::string name;
  SystemSpec system;
  std::vector<LinkFault> faults;
  std::string file;
};

// Reads `/system` of a scenario document (or the document itself when it is a bare system).
SystemFile read_system(const JsonValue& root);

SystemFile load_system_file(const std::string& path);

// Either a preset name ("dgx-h100": a 2-node system of it on the default fabric) or a path
// to a JSON file (anything ending in ".json").
SystemFile system_from_argument(const std::string& preset_or_file);

// An element of a node written "nNODE.NAME" ("n3.gpu2", "n0.mlx5_0"): {NODE, NAME}, or an error
// at `where` when NODE is not below `nodes`.
std::pair<int, std::string> read_node_element(const JsonValue& where, int nodes);

// Reads one entry of a faults list (docs/scenarios.md) into `out`: a link fault, or a PCIe element
// trained down (two link faults). With `timed`, a link rate fault may also carry "from", "for",
// "every" and "times" (docs/workloads.md).
void read_fault(const JsonValue& fault,
                const SystemSpec& system,
                bool timed,
                std::vector<LinkFault>& out);

// The link a fault names; a ScenarioError at the fault's "link", with the nearest names, when
// `network` has none by that name. O(links).
sim::LinkId fault_link(const std::string& file,
                       const LinkFault& fault,
                       const sim::FlowNetwork& network);

// Applies the faults to the links `system` built in `network` (apply_link_faults), those with a
// schedule left out. Throws ScenarioError at the fault's pointer for a link name that does not
// exist or a link that cannot go down.
void apply_faults(const SystemFile& file, System& system, sim::FlowNetwork& network);

// Schedules the timed faults among `faults` on `simulator` (schedule_link_faults). `file` names
// the faults' file in errors.
void schedule_faults(const std::string& file,
                     const std::vector<LinkFault>& faults,
                     sim::FlowNetwork& network,
                     sim::Simulator& simulator);

}  // namespace railsim::models::scenario
