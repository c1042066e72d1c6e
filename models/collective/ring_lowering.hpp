// File: models/collective/ring_lowering.hpp
// A RingPlan lowered onto a System: the task DAG or the flow groups that the executors run
// (execution.hpp).
//
// Chunk-accurate (ring_dag, for DagExecutor): every slice transfer of the plan is a task: flows
// on its hop's route, split evenly over the paths it offers (adaptive-routing lanes), the
// messages of a connection round-robin over its queue pairs. A transfer starts when its
// connection has sent the previous one (drained) and the data it forwards has arrived
// (delivered) plus the step's hop latency: NCCL's per-hop software latency, which the links do
// not carry. Exact for small messages and short rings; the flow count grows with size x ranks.
//
// Pipelined (ring_pipeline, for GroupPipelineExecutor): each channel's pipeline is flow groups
// (one per path of its routes: queue pairs or adaptive lanes, each carrying an equal share),
// whose members are the connections, each moving everything it carries in the plan at the
// group's common rate, the pace of the slowest hop. Once every channel has drained, the
// channels' times come from the timing of channel_timing.hpp: slice sharing of every slice of
// every channel, position p forwarding at step s what position p - 1 sent at step s - 1, so that
// the fill and the stalls follow the slices as they meet on the links (channels that drift out
// of step find their ports shared by fewer, channels that cross a node in step queue behind
// each other); or, where that cannot matter, the per-connection recurrence (pipeline_time.hpp),
// in closed form for rings of more than kSliceSharingLimit slice transfers. Cost: one flow per
// connection and path, whatever the size, plus the recurrence (one step per slice transfer, or
// per connection in closed form) and, where it runs, slice sharing (an event per slice start and
// drain, about a microsecond each).
//
// Both start NCCL's base latency (CollectiveTiming::base_latency) after the executor starts.
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/execution.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/recurrence_memo.hpp"
#include "models/collective/ring_layout.hpp"
#include "models/collective/ring_plan.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"

namespace railsim::models {

// `traced`: name each task's sender (step s is "step s") for a CollectiveTrace.
TransferDag ring_dag(const System& system,
                     const Communicator& comm,
                     const RingPlan& plan,
                     const RingLayout& layout,
                     const CollectiveTiming& timing,
                     bool traced);

// The timing reads the links' latencies and capacities from `network` now; `memo`, where given,
// keeps the channels' recurrences for later calls and answers from what it kept.
GroupPipeline ring_pipeline(const System& system,
                            const sim::FlowNetwork& network,
                            const Communicator& comm,
                            RingPlan plan,
                            const RingLayout& layout,
                            const CollectiveTiming& timing,
                            RecurrenceMemo* memo,
                            bool traced);

}  // namespace railsim::models
