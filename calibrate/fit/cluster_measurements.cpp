// File: calibrate/fit/cluster_measurements.cpp
#include "calibrate/fit/cluster_measurements.hpp"

#include "calibrate/parse/text_input.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace railsim::calibrate::fit {

using parse::ClusterEvidence;
using parse::NcclEvidence;
using parse::PairEvidence;

namespace {

// Moves `part`'s rows into `set` with the placement `place_row` gives them.
template <typename Place>
void add_placed(MeasurementSet& part, MeasurementSet& set, Place place_row) {
  for (Measurement& m : part.rows) {
    place_row(m);
    set.rows.push_back(std::move(m));
  }
  set.notes.insert(set.notes.end(), part.notes.begin(), part.notes.end());
}

}  // namespace

MeasurementSet cluster_measurements(const ClusterEvidence& evidence,
                                    const models::SystemSpec& design) {
  MeasurementSet set;
  for (const PairEvidence& pair : evidence.pairs) {
    const std::optional<int> a = evidence.node_index(pair.node_a);
    const std::optional<int> b = evidence.node_index(pair.node_b);
    const std::optional<int> nic = models::compute_nic_named(design.node, pair.device);
    if (!a || !b || !nic) {
      set.notes.push_back(
          fmt::format("{}: not used: {}", parse::place(pair.log.file, 1),
                      !nic ? fmt::format("the design has no compute NIC '{}'", pair.device)
                           : std::string("a node not among the cluster's")));
      continue;
    }
    MeasurementSet part;
    add_perftest(pair.log.output, pair.log.file, part);
    add_placed(part, set, [&](Measurement& m) {
      m.node_ids = {*a, *b};
      m.nic = *nic;
    });
  }
  for (const NcclEvidence& log : evidence.nccl) {
    std::vector<int> nodes;
    nodes.reserve(log.nodes.size());
    for (const std::string& name : log.nodes) {
      if (const std::optional<int> i = evidence.node_index(name)) {
        nodes.push_back(*i);
      }
    }
    if (nodes.empty() || nodes.size() != log.nodes.size() || log.gpus.empty()) {
      set.notes.push_back(fmt::format("{}: not used: its nodes and GPUs are not known",
                                      parse::place(log.log.file, 1)));
      continue;
    }
    MeasurementSet part;
    add_nccl_tests(log.log.output, log.log.file, design, part, log.env);
    add_placed(part, set, [&](Measurement& m) { place_collective(m, nodes, log.gpus); });
  }
  return set;
}

}  // namespace railsim::calibrate::fit
