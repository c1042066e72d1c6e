// File: models/collective/nccl_variables.hpp
// NCCL's environment variables applied to what the model runs, as NCCL reads them: the ones a
// job sets to force an algorithm, a protocol, channels, queue pairs, PXN, its NICs or its
// GPUDirect RDMA level (NCCL's environment documentation; ../shared/docs/fabric-facts.md §2).
// A log or a manifest says what a job set; applying it predicts the run that was measured rather
// than NCCL's defaults.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/system/system.hpp"

#include <string>
#include <vector>

namespace railsim::models {

// "NCCL_ALGO" = "Ring": a name and its value as the environment gave them.
struct NcclVariable {
  std::string name;
  std::string value;

  bool operator==(const NcclVariable&) const = default;
};

struct NcclVariablesApplied {
  std::vector<std::string> applied;      // "NCCL_ALGO=Ring", by name
  std::vector<std::string> not_applied;  // "NCCL_BUFFSIZE=8388608: why", by name
};

// Applies `variables` in order (a later one over an earlier of the same name) to `request`,
// whose op is set, and to `system` (NCCL_NET_GDR_LEVEL, NCCL_IB_HCA). Not applied: a variable
// that changes how NCCL runs which the model has no counterpart for (NCCL_BUFFSIZE,
// NCCL_P2P_DISABLE), or a value NCCL would not take. Neither: variables that change no time
// (NCCL_DEBUG, NCCL_SOCKET_IFNAME, NCCL_IB_GID_INDEX), and NCCL_ALGO and NCCL_PROTO on the
// point-to-point operations, which NCCL's tuner does not choose for.
NcclVariablesApplied apply_nccl_variables(const std::vector<NcclVariable>& variables,
                                          CollectiveRequest& request,
                                          SystemSpec& system);

// What apply_nccl_variables applies and not to a call of `op` on `design`, which it leaves as
// it is (for reports of a run's variables).
NcclVariablesApplied nccl_variables_effect(const std::vector<NcclVariable>& variables,
                                           CollectiveOp op,
                                           const SystemSpec& design);

}  // namespace railsim::models
