// File: models/collective/nvls_executor.hpp
// NvlsExecutor: runs an NvlsPlan on the NVSwitch ports of node 0 of a System (the link from each
// GPU up to the switch and the one down from it, as System::route_in_node crosses them).
//
// Chunk-accurate: each NVSwitch operation is a task of a TransferDag whose flows, one per port
// load (nvls_plan.hpp), form a flow group: the switch reduces and multicasts at the pace of its
// slowest port. A head's operations on a channel follow one another; each is held NCCL's NVLS
// latency after it lands (25 us on NVLink: the only latency NCCL's model gives NVLS).
// Pipelined: each channel is one flow group whose members are the 2n ports, each carrying the
// sum of its operations' loads; the channel is done one hold and one port latency after it
// drains, which is what the chunk run's last operations add, every head's operations having one
// size in each loop.
//
// Multimem traffic moves at nvls_efficiency of the NVLink rate rings get: its flows carry
// 1 / efficiency wire bytes per payload byte (NvlsTiming::wire_factor).
#pragma once

#include "models/collective/nvls_plan.hpp"
#include "models/collective/ring_executor.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "sim/time.hpp"

#include <functional>
#include <memory>

namespace railsim::models {

struct NvlsTiming {
  sim::Duration hold{};      // per operation, from its delivery (NCCL's NVLS NVLink latency)
  double wire_factor = 1.0;  // 1 / nvls_efficiency
};

class NvlsExecutor {
 public:
  // Throws sim::InputError if the system's GPUs do not share an NVSwitch.
  NvlsExecutor(const System& system,
               sim::FlowNetwork& network,
               sim::Simulator& simulator,
               NvlsPlan plan,
               NvlsTiming timing);
  ~NvlsExecutor();

  NvlsExecutor(const NvlsExecutor&) = delete;
  NvlsExecutor& operator=(const NvlsExecutor&) = delete;

  void start(Execution execution, std::function<void(sim::SimTime)> done);

  bool finished() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace railsim::models
