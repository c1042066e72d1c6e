// File: models/collective/collective_run.hpp
// One collective call, end to end: NCCL's decisions (algorithm, protocol, channels, from its
// own tuning model unless the caller forces them, as NCCL_ALGO / NCCL_PROTO /
// NCCL_MIN_NCHANNELS do), the plan, the ring layout over the system, and its execution on the
// system's links; the result in nccl-tests' terms.
//
// Ring, Tree (AllReduce), NVLS (one NVSwitch node), NVLS Tree (AllReduce over NVSwitch nodes) and
// PAT (AllGather and ReduceScatter, one GPU per node) are executed; the tuner chooses among those
// it is allowed and NCCL enables, as NCCL's own does, so `auto` means NCCL's choice among them.
// The point-to-point ops (AllToAll, SendRecv, Gather, Scatter) run outside the tuner, on NCCL's
// p2p channels (p2p_plan.hpp).
//
// A call either runs to its end (run_collective) or is started and left in flight
// (start_collective), so that several calls share one network at once, as the collectives of a
// training step do; both take the one path.
#pragma once

#include "models/collective/collective_calibration.hpp"
#include "models/collective/collective_trace.hpp"
#include "models/collective/collective_types.hpp"
#include "models/collective/communicator.hpp"
#include "models/collective/execution.hpp"
#include "models/collective/nccl_tuning.hpp"
#include "models/collective/recurrence_memo.hpp"
#include "models/system/system.hpp"
#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

namespace railsim::models {

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::kAllReduce;
  sim::Bytes size;  // nccl-tests' size (AllGather: the output, ReduceScatter: the input)
  Communicator comm;
  AlgorithmSet algorithm;            // NCCL_ALGO; empty: the tuner's choice among all
  std::optional<Protocol> protocol;  // NCCL_PROTO; unset: the tuner's choice
  std::optional<int> channels;       // NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS
  int cross_nic = 2;                 // NCCL_CROSS_NIC
  bool pxn = true;                   // PXN enabled (NCCL_PXN_DISABLE=0)
  int qps_per_connection = 1;        // NCCL_IB_QPS_PER_CONNECTION
  // NCCL_NCHANNELS_PER_NET_PEER: the p2p channels to a peer on another node; unset: NCCL's count
  // (p2p_plan.hpp).
  std::optional<int> channels_per_net_peer;
  std::optional<Execution> execution;  // unset: chunk-accurate while that stays small
  CollectiveCalibration calibration;   // a profile's software costs above NCCL's tables
  // AllToAll only: uneven bytes per peer (all-to-all-v), shared by the calls that send them;
  // `size` is then what reports divide by (nccl-tests' algbw). Unset: size / n to each peer.
  std::shared_ptr<const PeerBytes> peer_bytes;
  // Not owned, outlives the call: keeps the channels' recurrences for later calls that time the
  // same channels at the same paces (a diagnosis's explanations, recurrence_memo.hpp), and
  // answers from them. None: every call times its own.
  RecurrenceMemo* recurrence_memo = nullptr;
};

struct CollectiveResult {
  std::optional<Algorithm> algorithm;  // none for the point-to-point ops (NCCL's p2p channels)
  Protocol protocol = Protocol::kSimple;
  int channels = 1;
  Execution execution = Execution::kPipelined;
  sim::Duration time{};
  double algbw_GBps = 0.0;  // size / time, GB = 1e9 B (nccl-tests)
  double busbw_GBps = 0.0;  // algbw x nccl-tests' factor for the operation
};

// The algorithm a result ran, as reports name it: "p2p" for the point-to-point operations.
std::string_view algorithm_label(const CollectiveResult& result);

// nccl-tests' bus bandwidth factor: 2(n-1)/n AllReduce, (n-1)/n AllGather, ReduceScatter,
// AllToAll, Gather and Scatter, 1 Broadcast, Reduce and SendRecv.
double busbw_factor(CollectiveOp op, int ranks);

// What NCCL's topology detection would report for this system and communicator.
TuningTopology tuning_topology(const System& system, const Communicator& comm);

// Plans with more transfers than this run pipelined unless chunk execution is forced.
inline constexpr std::size_t kChunkTransferLimit = 10'000;

// A collective in flight. It owns its executor, and the executor everything it reads while it
// runs (its task DAG or flow groups, their paths, the pipeline's recurrence), so calls started
// together on one network share nothing but the network's links: each creates its own flows
// and groups, and its callbacks reach only its own state. Keep it alive until `done` has run,
// and do not destroy it from inside `done` (the event that completes it is still running).
class CollectiveCall {
 public:
  virtual ~CollectiveCall();

  CollectiveCall(const CollectiveCall&) = delete;
  CollectiveCall& operator=(const CollectiveCall&) = delete;

  // True from the moment `done` is called.
  bool finished() const { return finished_; }

  // The result once finished(); before that, NCCL's choices only (algorithm, protocol,
  // channels, execution), with no time.
  const CollectiveResult& result() const { return result_; }

 protected:
  explicit CollectiveCall(const CollectiveResult& chosen) : result_(chosen) {}

  void complete(const CollectiveResult& result) {
    result_ = result;
    finished_ = true;
  }

 private:
  CollectiveResult result_;
  bool finished_ = false;
};

// Starts the call at simulator.now() on `network` (other calls and traffic may be in flight on
// it) and returns at once; `done` (may be empty) runs inside the event that completes it, with
// the result (time = end - start, algbw, busbw, algorithm, protocol, channels, execution as
// run_collective gives them). Throws sim::InputError, before anything starts, exactly where
// run_collective does. A `trace` must outlive the call.
std::unique_ptr<CollectiveCall> start_collective(const System& system,
                                                 sim::FlowNetwork& network,
                                                 sim::Simulator& simulator,
                                                 const CollectiveRequest& request,
                                                 std::function<void(const CollectiveResult&)> done,
                                                 CollectiveTrace* trace = nullptr);

// Runs the call from the simulator's current time until it completes (other traffic on the
// network keeps flowing meanwhile): start_collective, then the simulator stepped until the call
// has finished. Throws sim::InputError for a request the system cannot run: too many nodes or
// GPUs, node or GPU ids out of range or repeated, an algorithm or protocol NCCL would not run
// there, ... With a `trace` (made for request.comm), the call adds one span for itself, named
// like "all_reduce 1048576 B ring simple", and its executor one per transfer (chunk-accurate) or
// per connection and channel (pipelined); without one, nothing is recorded.
CollectiveResult run_collective(const System& system,
                                sim::FlowNetwork& network,
                                sim::Simulator& simulator,
                                const CollectiveRequest& request,
                                CollectiveTrace* trace = nullptr);

}  // namespace railsim::models
