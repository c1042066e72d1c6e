// File: models/collective/p2p_lowering.hpp
// A P2pPlan lowered onto a System: one task per network connection (or message inside a node),
// none waiting for another, as a group of sends and receives runs. With PXN, NCCL multiplexes
// the messages a node's GPUs relay through one GPU to one remote rank onto that GPU's own
// connection to it (NCCL_NET_SHARED_COMMS=1, the default; nccl:src/transport/net.cc): one set of
// queue pairs, so one set of ECMP draws, for up to G messages. Each relayed message's copy over
// NVLink into the relay is a flow of its own; the connection carries their bytes together.
//
// A message inside a node is one flow over its NVLink (or PCIe) route; a connection between
// nodes is split evenly over the p2p channels NCCL opens per network peer and each channel's
// queue pairs, each a flow on its own ECMP draw (or its share of every adaptive-routing lane);
// those that draw the same path are one flow weighted by their count, which max-min sharing
// gives the same rate as the flows apart. The chunks pipeline through the connection's
// NCCL_STEPS slots, so at the level of flows it is one transfer: the executed time is the links'
// fair share of every connection plus the hop latency of each, held after its last byte as for a
// ring step over the same hop.
//
// Traced, each connection is one span on its posting rank's track.
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/p2p_plan.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/system/system.hpp"

namespace railsim::models {

// `traced`: name each task's sender.
TransferDag p2p_dag(const System& system,
                    const Communicator& comm,
                    const P2pPlan& plan,
                    const CollectiveTiming& timing,
                    bool traced);

}  // namespace railsim::models
