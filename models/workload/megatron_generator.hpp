// File: models/workload/megatron_generator.hpp
// The step of a Megatron-LM style transformer trained with dp x tp x pp parallelism and the 1F1B
// pipeline schedule (Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
// Clusters Using Megatron-LM", SC'21), each collective's and send's bytes derived from the
// model's shape:
//
// - ranks in Megatron's order, tensor-parallel fastest, then data-parallel, then pipeline: stage
//   s holds ranks [s x tp x dp, (s + 1) x tp x dp), on whole nodes of the job in order;
// - a stage's share of a micro-batch's forward pass is (layers / pp) x (24 b s h^2 + 4 b s^2 h)
//   / tp FLOPs per GPU (the paper's per-layer count, without recomputation), its backward pass
//   twice that, both at `achieved_tflops`;
// - with tp > 1, two AllReduces of b s h x precision bytes per layer in each direction, on the
//   stage's tensor-parallel groups, run after the stage's compute for that micro-batch (Megatron
//   blocks on them; the calls of one pass are one phase of 2 x layers / pp calls);
// - between stages, each rank sends its b s h x precision activation forward and the gradient
//   of as much back to the rank of the same (dp, tp) position in the next / previous stage;
// - 1F1B on stage s: min(pp - s - 1, m) warm-up forwards, then a forward and a backward in
//   turn, then the remaining backwards;
// - after its last backward each stage AllReduces its gradients over its data-parallel groups:
//   parameters / (tp x pp) x gradient precision bytes per rank, in one call (Megatron's default,
//   no overlap of the gradient reduction), then the optimizer step.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/workload/step_workload.hpp"
#include "sim/time.hpp"

#include <optional>
#include <vector>

namespace railsim::models {

struct MegatronShape {
  std::vector<int> nodes;  // the system's nodes of the job
  int gpus_per_node = 8;
  int tp = 1;  // tensor-parallel size, dividing gpus_per_node
  int pp = 1;  // pipeline stages, dividing layers; dp is what the ranks leave
  int layers = 1;
  int hidden = 1;
  int sequence = 1;
  int micro_batch = 1;               // b, sequences per micro-batch
  int microbatches = 1;              // m, per step and pipeline
  int precision_bytes = 2;           // activations (bf16)
  int gradient_precision_bytes = 2;  // gradients as reduced
  // The model's parameters; unset: 12 x layers x hidden^2, the transformer layers' own.
  std::optional<double> parameters;
  double achieved_tflops = 1.0;  // per GPU
  sim::Duration optimizer{};
  CollectiveRequest nccl;  // NCCL's settings for every collective (op and size are set here)
};

// The data-parallel size: ranks / (tp x pp).
int megatron_dp(const MegatronShape& shape);

// Phases per stage s and micro-batch i: "fwd.s.i", "fwd_tp.s.i", "send_fwd.s.i", "bwd.s.i",
// "bwd_tp.s.i", "send_bwd.s.i"; then "dp_allreduce.s" and "optimizer.s". Communicators "tp.s",
// "dp.s", "pp_fwd.s" (pairs from stage s to s + 1) and "pp_bwd.s" (from s + 1 to s), those that
// have groups. Throws sim::InputError, naming the field, for a shape that does not fit: tp not
// dividing gpus_per_node, tp x pp not dividing the ranks, a stage not on whole nodes, layers not
// divisible by pp, a size below 1.
StepWorkload make_megatron_step(const MegatronShape& shape);

}  // namespace railsim::models
