// File: models/workload/dp_generator.hpp
// The data-parallel step as PyTorch DDP runs it: a forward pass, then the backward pass in
// buckets of gradients, each bucket AllReduced over every rank as soon as its gradients exist
// (or, without overlap, all of them after the backward pass), then the optimizer.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/workload/step_workload.hpp"
#include "sim/bytes.hpp"
#include "sim/time.hpp"

#include <vector>

namespace railsim::models {

struct DpShape {
  std::vector<int> nodes;  // the system's nodes of the job
  int gpus_per_node = 8;
  sim::Bytes gradient_bytes;         // one model replica's gradients
  sim::Bytes bucket = sim::mib(25);  // DDP's bucket_cap_mb default, 25 MiB
  sim::Duration forward{};
  sim::Duration backward{};
  sim::Duration optimizer{};
  bool overlap = true;     // AllReduce each bucket during the rest of the backward pass
  CollectiveRequest nccl;  // NCCL's settings for the AllReduces (op and size are set here)
};

// Phases "forward", "backward.K" and "allreduce.K" for each bucket K (the last one holds what is
// left), and "optimizer" when it takes any time; one communicator "dp" of every rank. Each
// bucket's backward time is the backward pass's share in proportion to its bytes.
StepWorkload make_dp_step(const DpShape& shape);

}  // namespace railsim::models
