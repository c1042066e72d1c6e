// File: models/collective/nvls_lowering.hpp
// An NvlsPlan lowered onto the NVSwitch ports of a communicator's one node of a System (the link
// from each of its GPUs up to the switch and the one down from it, as System::route_in_node
// crosses them): the task DAG or the flow groups that the executors run (execution.hpp).
//
// Chunk-accurate (nvls_dag): each NVSwitch operation is a task whose flows, one per port load
// (nvls_plan.hpp), form a flow group: the switch reduces and multicasts at the pace of its
// slowest port. A head's operations on a channel follow one another; each is held NCCL's NVLS
// latency after it lands (25 us on NVLink: the only latency NCCL's model gives NVLS).
// Pipelined (nvls_pipeline): each channel is one flow group whose members are the 2n ports, each
// carrying the sum of its operations' loads; the channel is done one hold and one port latency
// after it drains, which is what the chunk run's last operations add, every head's operations
// having one size in each loop.
//
// Multimem traffic moves at nvls_efficiency of the NVLink rate rings get: its flows carry
// 1 / efficiency wire bytes per payload byte (NvlsTiming::wire_factor). Both start at once:
// NCCL's NVLS latency is all in the hold.
#pragma once

#include "models/collective/communicator.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/nvls_plan.hpp"
#include "models/collective/path_table.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <string_view>

namespace railsim::models {

// The NVSwitch ports of every node of `comm`, each a path of one link: node m's local GPU g up
// to the switch is path nvswitch_port(G, m, g, true) = 2 (m G + g), the switch down to it the
// next. Throws sim::InputError, naming `algorithm`, if the system's GPUs share no NVSwitch.
PathTable nvswitch_ports(const System& system,
                         const Communicator& comm,
                         std::string_view algorithm);
std::uint32_t nvswitch_port(int gpus, int node, int gpu, bool to_switch);

struct NvlsTiming {
  sim::Duration hold{};      // per operation, from its delivery (NCCL's NVLS NVLink latency)
  double wire_factor = 1.0;  // 1 / nvls_efficiency
};

// Both throw sim::InputError if the system's GPUs do not share an NVSwitch. `comm` is one node,
// a rank per GPU of the plan. `traced`: name each operation's sender (its head; "reduce",
// "store" or "reduce+store" by the operation).
TransferDag nvls_dag(const System& system,
                     const Communicator& comm,
                     const NvlsPlan& plan,
                     const NvlsTiming& timing,
                     bool traced);

GroupPipeline nvls_pipeline(const System& system,
                            const Communicator& comm,
                            const sim::FlowNetwork& network,
                            const NvlsPlan& plan,
                            const NvlsTiming& timing,
                            bool traced);

}  // namespace railsim::models
