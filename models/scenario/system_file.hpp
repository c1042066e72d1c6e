// File: models/scenario/system_file.hpp
// Systems described in JSON (docs/scenarios.md): a node preset, a node count, the fabric, the
// rail mapping, GPUDirect RDMA settings and faults. Every error names the file and the JSON
// pointer of the offending value.
#pragma once

#include "models/scenario/json_reader.hpp"
#include "models/system/system.hpp"

#include <string>

namespace railsim::models::scenario {

// A link fault, applied once the System's links exist: the named link's rate scaled or set.
struct LinkFault {
  std::string link;          // a link name as `railsim topo --links` lists them
  double rate_scale = 1.0;   // applied when rate is not set
  sim::Bandwidth rate;       // bytes/s; zero means "scale instead"
  bool down = false;         // taken out of service instead (fabric links only)
  std::string json_pointer;  // where the fault was written, for errors found when applied
};

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

// Applies the faults to the links `system` built in `network`: rates changed, fabric links
// taken down. Throws ScenarioError at the fault's pointer for a link name that does not exist
// or a link that cannot go down.
void apply_faults(const SystemFile& file, System& system, sim::FlowNetwork& network);

}  // namespace railsim::models::scenario
