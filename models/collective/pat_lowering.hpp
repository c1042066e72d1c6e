// File: models/collective/pat_lowering.hpp
// A PatPlan lowered onto a System: the task DAG or the flow groups that the executors run
// (execution.hpp), as trees are (tree_lowering.hpp).
//
// A channel's connections are every rank's D peers, one per step. Chunk-accurate (pat_dag):
// every step's message of every loop is a task on its connection's route, started once that
// connection has sent the previous loop's message and the sender holds what it passes on.
// Pipelined (pat_pipeline): each channel is flow groups whose members are its connections, each
// carrying its steps' portions of every loop; once every channel has drained, the channels' times
// come from channel_timing.hpp: slice sharing of every message, or the recurrence, with tau the
// message's bytes at the connection's pace and d its delay,
//   sent(r, s) = max(sent'(r, s), max over the earlier steps e that feed s of held(sender, e))
//                + tau(r, s),   held(r, s) = sent(r, s) + d(r, s)
// (the prime: the connection's previous loop), and the channel is done when its last message
// is held.
//
// What a message costs beyond its bytes: the step's latency (NCCL's PAT model charges the network
// hop latency / 3.5 per dimension) and the receiver's handling of each portion it carries (2.8 us
// a portion: NCCL's model charges 2.8 us per rank, nccl:src/graph/tuning.cc), so a small call
// takes D step latencies plus n - 1 portions' handling along its longest chain, as NCCL's
// estimate has it.
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/pat_plan.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/time.hpp"

namespace railsim::models {

struct PatTiming {
  CollectiveTiming network;     // base latency, per-step (hop) latencies, caps, queue pairs
  sim::Duration per_portion{};  // the receiver's handling of each portion of a message
};

// `traced`: name each task's sender.
TransferDag pat_dag(const System& system,
                    const PatPlan& plan,
                    const PatTiming& timing,
                    bool traced);

// The timing reads the links' latencies and capacities from `network` now.
GroupPipeline pat_pipeline(const System& system,
                           const sim::FlowNetwork& network,
                           PatPlan plan,
                           const PatTiming& timing,
                           bool traced);

}  // namespace railsim::models
