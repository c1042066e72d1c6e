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
//
// With `moe`, the layers after the first `dense_layers` are mixture-of-experts layers
// (Megatron-Core's MoE with expert parallelism inside a stage, sequence parallel so that each rank
// routes b s / tp tokens): in each, attention and the router ((8 b s h^2 + 4 b s^2 h + 2 b s h E) /
// tp FLOPs forward), one tensor-parallel AllReduce, then the dispatch all-to-all(v) of each
// token's activations to its top_k experts over the rank's expert-parallel group ("ep.s": ep
// consecutive ranks of the stage, each holding E / ep experts), the experts (SwiGLU, 6 h f FLOPs
// per token each, so the rank whose experts drew most tokens computes longest), and the combine
// all-to-all back. The backward pass runs the same in reverse at twice the FLOPs, its all-to-alls
// the forward's mirrors. The router's load per layer is expert_load.hpp's; every expert-parallel
// group draws the same, since they run one model. Dense gradients (attention, router, dense
// layers) are AllReduced over data-parallel groups, each rank's experts' over the ranks holding
// the same experts in the other expert-parallel groups ("edp.s"), both after the last backward.
#pragma once

#include "models/collective/collective_run.hpp"
#include "models/workload/step_workload.hpp"
#include "sim/input_error.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railsim::models {

struct MoeShape {
  int experts = 1;        // routed experts per MoE layer, E
  int top_k = 1;          // experts each token goes to
  int ep = 1;             // expert-parallel size: ranks sharing a layer's experts
  int expert_hidden = 1;  // an expert's FFN width, f
  int dense_layers = 0;   // the first layers, whose MLP stays dense (DeepSeek's first_k_dense)
  double skew = 0.0;      // the router's imbalance: expert_load.hpp
  std::uint64_t seed = 0;
};

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
  // The model's parameters; unset: 12 x layers x hidden^2, the transformer layers' own. Not with
  // `moe`, which counts them from its shape.
  std::optional<double> parameters;
  double achieved_tflops = 1.0;  // per GPU
  sim::Duration optimizer{};
  CollectiveRequest nccl;  // NCCL's settings for every collective (op and size are set here)
  std::optional<MoeShape> moe;
};

// A shape that does not fit, naming the field it is about as a step file writes it ("tp",
// "moe/ep"), so that a reader can point at it.
class ShapeError : public sim::InputError {
 public:
  ShapeError(std::string field, const std::string& message)
      : sim::InputError(message), field_(std::move(field)) {}

  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The data-parallel size: ranks / (tp x pp).
int megatron_dp(const MegatronShape& shape);

// Phases per stage s and micro-batch i: "fwd.s.i", "fwd_tp.s.i", "send_fwd.s.i", "bwd.s.i",
// "bwd_tp.s.i", "send_bwd.s.i" (fwd and bwd for the stage's dense layers); then "dp_allreduce.s"
// and "optimizer.s". Per MoE layer l: "fwd_attn.s.i.l", "fwd_attn_tp.s.i.l", "dispatch.s.i.l",
// "fwd_experts.s.i.l", "combine.s.i.l" and "bwd_combine.s.i.l", "bwd_experts.s.i.l",
// "bwd_dispatch.s.i.l", "bwd_attn.s.i.l", "bwd_attn_tp.s.i.l"; "edp_allreduce.s". Communicators
// "tp.s", "dp.s", "ep.s", "edp.s", "pp_fwd.s" (pairs from stage s to s + 1) and "pp_bwd.s" (from
// s + 1 to s), those that have groups. Throws ShapeError for a shape that does not fit: tp not
// dividing gpus_per_node, tp x pp not dividing the ranks, a stage not on whole nodes, layers not
// divisible by pp, a size below 1; with moe, ep not dividing a stage's ranks or not laid on a
// node's GPUs or whole nodes, experts not divisible by ep, top_k above the experts, a negative
// skew, dense_layers above the layers, `parameters` given.
StepWorkload make_megatron_step(const MegatronShape& shape);

}  // namespace railsim::models
