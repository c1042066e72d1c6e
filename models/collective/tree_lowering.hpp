// File: models/collective/tree_lowering.hpp
// A TreePlan lowered onto a System: the task DAG or the flow groups that the executors run
// (execution.hpp), as rings are (ring_lowering.hpp).
//
// Chunk-accurate (tree_dag, for DagExecutor): every chunk transfer of the plan is a task: flows
// on the edge's route (split over its adaptive-routing lanes; consecutive chunks of an edge
// round-robin over its queue pairs), started once the edge has sent its previous chunk and the
// sender holds the data, NCCL's Tree hop latency after it landed.
//
// Pipelined (tree_pipeline, for GroupPipelineExecutor): each channel is flow groups whose members
// are its 2(n-1) edges, each carrying the channel's bytes, so they all move at rho, the pace of
// the slowest. Once every channel has drained, the channels' times come from the timing of
// channel_timing.hpp: slice sharing of every chunk of every channel's edges, each edge
// forwarding up what all its children sent up and down what its parent sent down (the root's
// children what the root reduced), never below rho. A channel of few chunks sends in waves, up
// the tree level by level and down again, and its chunks meet the other channels' only where
// those waves overlap; where a port stays busy, sharing keeps it busy, so the fill overlaps the
// other channels' drain. Where sharing cannot matter, or for trees of more than
// kSliceSharingLimit chunk transfers, the recurrence times the channels, each edge at rho or,
// where faster, at an even share of its links among all edges (a long pipeline's view): chunk by
// chunk, each edge starts a chunk once it sent the previous one and its inputs hold this one
// (tree_time.hpp, solved there in closed form). With one pace tau per chunk everywhere this is
// L tau + (H - 1) tau + the sum of delays along the longest leaf-root-leaf path of H edges: the
// drain time plus the pipeline's fill.
//
// Cost: one flow per edge and path, whatever the size, plus the recurrence's closed form (two
// passes over the edges) and, where it runs, slice sharing (an event per chunk start and drain).
//
// Edges: inside a node over NVLink (or PCIe), between nodes head to head over the head GPU's
// NIC at both ends (trees are symmetric: the same NIC to enter and leave).
#pragma once

#include "models/collective/collective_timing.hpp"
#include "models/collective/group_pipeline.hpp"
#include "models/collective/transfer_dag.hpp"
#include "models/collective/tree_plan.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"

namespace railsim::models {

// `timing` as for rings: base and per-hop latencies (NCCL's Tree ones), wire factor,
// per-connection cap, queue pairs. `traced`: name each task's sender ("up" or "down").
TransferDag tree_dag(const System& system,
                     const TreePlan& plan,
                     const CollectiveTiming& timing,
                     bool traced);

// The timing reads the links' latencies and capacities from `network` now.
GroupPipeline tree_pipeline(const System& system,
                            const sim::FlowNetwork& network,
                            TreePlan plan,
                            const CollectiveTiming& timing,
                            bool traced);

}  // namespace railsim::models
