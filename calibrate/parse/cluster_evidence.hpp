// File: calibrate/parse/cluster_evidence.hpp
// What `railsim check` reads: a cluster's measurements, parsed, each with the file it came from.
// They arrive as a manifest JSON naming every file, or as a directory laid out by convention
// (docs/acceptance.md):
//   topo/<node>.txt           nvidia-smi topo -m
//   ibstat/<node>.txt         ibstat
//   ibdev2netdev/<node>.txt   ibdev2netdev (-v or not)
//   lspci/<node>.txt          lspci -vv, as root
//   perftest/<a>__<b>__<test>[__<device>].txt   one perftest run between two nodes (write_bw,
//                             write_lat, ...), over the NIC the log names (Device)
//   nccl/<label>.txt          one nccl-tests log (any number of runs in it)
// Every problem with the inputs themselves is an error naming the file (and, in a manifest, the
// JSON pointer): a file that is missing or of another tool, a node the manifest lists with no
// logs, two logs for one pair, test and NIC.
#pragma once

#include "calibrate/parse/ibdev2netdev.hpp"
#include "calibrate/parse/ibstat.hpp"
#include "calibrate/parse/lspci.hpp"
#include "calibrate/parse/nccl_tests.hpp"
#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "calibrate/parse/perftest.hpp"
#include "models/collective/nccl_variables.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railsim::calibrate::parse {

// A parsed output and the path it was read from (what evidence lines cite).
template <class Output>
struct Evidence {
  std::string file;
  Output output;
};

struct NodeEvidence {
  std::string name;  // the host name, as the cluster calls it
  std::optional<Evidence<NvidiaSmiTopo>> topo;
  std::optional<Evidence<IbstatOutput>> ibstat;
  std::optional<Evidence<Ibdev2netdevOutput>> ibdev2netdev;
  std::optional<Evidence<LspciOutput>> lspci;
};

// One perftest log between two nodes; `test` is the program's name without "ib_" ("write_bw").
struct PairEvidence {
  std::string node_a;  // the server side, as the file or manifest names it first
  std::string node_b;
  std::string test;
  std::string device;  // the NIC the log's Device setting names ("mlx5_0")
  Evidence<PerftestOutput> log;
};

// One nccl-tests log. Its shape comes from the log's "Using devices" lines where it has them,
// else from the manifest ("nodes", "gpus"); `env` is what the job set (NCCL_IB_HCA, NCCL_ALGO).
struct NcclEvidence {
  std::string label;
  Evidence<NcclTestsOutput> log;
  std::vector<std::string> nodes;  // empty when neither the log nor the manifest says
  std::vector<int> gpus;           // GPU indices used on each node; empty when unknown
  std::vector<models::NcclVariable> env;

  // The value the job gave an NCCL variable: as its log's first run shows it
  // (NcclTestsRun::environment), else as `env` gives it; or nothing.
  std::optional<std::string> env_value(const std::string& name) const;
};

struct ClusterEvidence {
  std::string source;               // the manifest or directory
  std::vector<NodeEvidence> nodes;  // in the manifest's order, or by name for a directory
  std::vector<PairEvidence> pairs;
  std::vector<NcclEvidence> nccl;
  // What could be read but not as written: "FILE:LINE: bytes that are not UTF-8 read as U+FFFD".
  std::vector<std::string> warnings;

  // The node of that name, or nullptr.
  const NodeEvidence* node(const std::string& name) const;

  // Its index in `nodes` (the system node it stands for), or nothing.
  std::optional<int> node_index(const std::string& name) const;

  // Every file read: the source (a manifest, or a directory) and each log.
  std::vector<std::string> files() const;
};

// A path ending in ".json" is a manifest, anything else a directory. Throws sim::InputError
// (ScenarioError at a manifest's JSON pointer, ParseError inside a log) for bad input.
// Implausible readings (plausibility.hpp) are taken out with a warning, or under `strict` are
// an error.
ClusterEvidence read_cluster_evidence(const std::string& path, bool strict = false);

}  // namespace railsim::calibrate::parse
