// File: models/workload/megatron_generator.cpp
// The phases are drafted pass by pass, each pass a chain of phases (its layers' compute and
// collectives in order), each stage's passes then chained in its 1F1B order, and all written out
// in a topological order (the smallest draft first among those ready): every phase after what it
// waits for, so each stage's compute stream runs in 1F1B order.
#include "models/workload/megatron_generator.hpp"

#include "models/workload/expert_load.hpp"
#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <string>
#include <utility>
#include <variant>

namespace railsim::models {
namespace {

using sim::at;

void require(bool ok, const char* field, const std::string& message) {
  if (!ok) {
    throw ShapeError(field, message);
  }
}

std::vector<int> range(int first, int count) {
  std::vector<int> out(at(count));
  std::iota(out.begin(), out.end(), first);
  return out;
}

// A phase before it is written out, `after` naming drafts.
struct Draft {
  Phase phase;
  std::vector<int> after;
};

// One stage's pass over one micro-batch, as drafts: its first phase, which waits for the stage's
// previous pass, and its last, which sends and the next pass wait for.
struct Pass {
  int first = -1;
  int last = -1;
};

// One MoE layer's routing, the same in every expert-parallel group: the dispatch's bytes per
// peer, the combine's (its transpose), and each expert-parallel rank's forward expert compute.
struct MoeLayer {
  std::shared_ptr<const PeerBytes> dispatch;
  std::shared_ptr<const PeerBytes> combine;
  std::vector<sim::Duration> experts;  // per expert-parallel index
};

using Task = std::variant<ComputeTask, CollectiveTask, SendTask>;

class StepDrafter {
 public:
  explicit StepDrafter(const MegatronShape& shape)
      : shape_(shape),
        dp_(megatron_dp(shape)),
        stage_nodes_(shape.tp * dp_ / shape.gpus_per_node),
        stage_ranks_(shape.tp * dp_) {}

  StepWorkload draft() {
    StepWorkload step;
    step.nodes = shape_.nodes;
    step.gpus_per_node = shape_.gpus_per_node;
    make_communicators(step);
    const auto b = static_cast<double>(shape_.micro_batch);
    const auto s = static_cast<double>(shape_.sequence);
    const auto h = static_cast<double>(shape_.hidden);
    dense_flops_ = (24.0 * b * s * h * h + 4.0 * b * s * s * h) / shape_.tp;
    activation_ = sim::Bytes{static_cast<std::int64_t>(shape_.micro_batch) * shape_.sequence *
                             shape_.hidden * shape_.precision_bytes};
    if (shape_.moe) {
      draft_routing();
    }
    fwd_.assign(at(shape_.pp), std::vector<Pass>(at(shape_.microbatches)));
    bwd_ = fwd_;
    send_fwd_.assign(at(shape_.pp), std::vector<int>(at(shape_.microbatches), -1));
    send_bwd_ = send_fwd_;
    // Forwards first, stage by stage, so that each send exists before what waits for it.
    for (int stage = 0; stage < shape_.pp; ++stage) {
      for (int i = 0; i < shape_.microbatches; ++i) {
        draft_forward(stage, i);
      }
    }
    for (int stage = shape_.pp - 1; stage >= 0; --stage) {
      for (int i = 0; i < shape_.microbatches; ++i) {
        draft_backward(stage, i);
      }
      draft_optimizer(stage);
    }
    order_stages();
    write(step);
    return step;
  }

 private:
  std::vector<int> ranks_of(int stage) const { return range(stage * stage_ranks_, stage_ranks_); }

  // The global index of a stage's first layer; its layers before dense_layers keep a dense MLP.
  int first_layer(int stage) const { return stage * shape_.layers / shape_.pp; }

  int dense_layers(int stage) const {
    const int per_stage = shape_.layers / shape_.pp;
    const int dense = shape_.moe ? shape_.moe->dense_layers : shape_.layers;
    return std::clamp(dense - first_layer(stage), 0, per_stage);
  }

  int moe_layers(int stage) const { return shape_.layers / shape_.pp - dense_layers(stage); }

  sim::Duration compute_time(double flops) const {
    return sim::seconds(flops / (shape_.achieved_tflops * 1e12));
  }

  // Each MoE layer's routing: rank i of an expert-parallel group sends each of its tokens'
  // top_k activations to the ranks of the chosen experts, rank j drawing the share of its E / ep
  // experts (expert_load.hpp); tokens per rank b s / tp.
  void draft_routing() {
    const MoeShape& moe = *shape_.moe;
    const int ep = moe.ep;
    // Cell (i, j) of an ep x ep matrix; ep x ep can pass an int.
    const auto cell = [n = at(ep)](int i, int j) { return at(i) * n + at(j); };
    const double tokens = static_cast<double>(shape_.micro_batch) * shape_.sequence / shape_.tp;
    const double token_bytes = static_cast<double>(shape_.hidden) * shape_.precision_bytes;
    const double expert_flops = 6.0 * shape_.hidden * static_cast<double>(moe.expert_hidden);
    const int per_rank = moe.experts / ep;
    moe_.resize(at(shape_.layers));
    for (int l = moe.dense_layers; l < shape_.layers; ++l) {
      const std::vector<double> load = expert_load(moe.experts, moe.top_k, moe.skew, moe.seed, l);
      auto dispatch = std::make_shared<PeerBytes>(at(ep) * at(ep));
      auto combine = std::make_shared<PeerBytes>(at(ep) * at(ep));
      MoeLayer& layer = moe_[at(l)];
      for (int j = 0; j < ep; ++j) {
        const auto first = load.begin() + static_cast<std::ptrdiff_t>(j) * per_rank;
        // Token copies rank j receives from each rank of the group.
        const double received = tokens * moe.top_k * std::accumulate(first, first + per_rank, 0.0);
        const sim::Bytes bytes = sim::bytes(std::llround(received * token_bytes));
        for (int i = 0; i < ep; ++i) {
          (*dispatch)[cell(i, j)] = bytes;
          (*combine)[cell(j, i)] = bytes;
        }
        layer.experts.push_back(compute_time(received * ep * expert_flops));
      }
      layer.dispatch = std::move(dispatch);
      layer.combine = std::move(combine);
    }
  }

  std::vector<int> nodes_of(int stage) const {
    const auto first = shape_.nodes.begin() + static_cast<std::ptrdiff_t>(stage) * stage_nodes_;
    return {first, first + stage_nodes_};
  }

  void make_communicators(StepWorkload& step) {
    const int g = shape_.gpus_per_node;
    const int per_node = g / shape_.tp;  // tensor-parallel groups (and dp replicas) per node
    tp_comm_.assign(at(shape_.pp), -1);
    dp_comm_ = tp_comm_;
    ep_comm_ = tp_comm_;
    edp_comm_ = tp_comm_;
    pp_fwd_comm_ = tp_comm_;
    pp_bwd_comm_ = tp_comm_;
    for (int stage = 0; stage < shape_.pp; ++stage) {
      if (shape_.tp > 1) {
        StepCommunicator tp{fmt::format("tp.{}", stage), {}};
        for (const int node : nodes_of(stage)) {
          for (int k = 0; k < per_node; ++k) {
            tp.groups.push_back(communicator_on({node}, range(k * shape_.tp, shape_.tp)));
          }
        }
        tp_comm_[at(stage)] = add(step, std::move(tp));
      }
      if (dp_ > 1) {
        StepCommunicator dp{fmt::format("dp.{}", stage), {}};
        for (int t = 0; t < shape_.tp; ++t) {
          std::vector<int> gpus;
          gpus.reserve(at(per_node));
          for (int k = 0; k < per_node; ++k) {
            gpus.push_back(t + k * shape_.tp);
          }
          dp.groups.push_back(communicator_on(nodes_of(stage), std::move(gpus)));
        }
        dp_comm_[at(stage)] = add(step, std::move(dp));
      }
      if (shape_.moe && moe_layers(stage) > 0) {
        make_expert_communicators(step, stage);
      }
      if (stage + 1 < shape_.pp) {
        StepCommunicator forward{fmt::format("pp_fwd.{}", stage), {}};
        StepCommunicator backward{fmt::format("pp_bwd.{}", stage), {}};
        const std::vector<int> here = nodes_of(stage);
        const std::vector<int> next = nodes_of(stage + 1);
        for (std::size_t j = 0; j < here.size(); ++j) {
          for (int gpu = 0; gpu < g; ++gpu) {
            forward.groups.push_back(communicator_on({here[j], next[j]}, {gpu}));
            backward.groups.push_back(communicator_on({next[j], here[j]}, {gpu}));
          }
        }
        pp_fwd_comm_[at(stage)] = add(step, std::move(forward));
        pp_bwd_comm_[at(stage)] = add(step, std::move(backward));
      }
    }
  }

  // "ep.s": ep consecutive ranks of the stage, a node's GPUs or whole nodes; "edp.s": the ranks
  // of one expert-parallel index across the groups.
  void make_expert_communicators(StepWorkload& step, int stage) {
    const int g = shape_.gpus_per_node;
    const int ep = shape_.moe->ep;
    const std::vector<int> nodes = nodes_of(stage);
    StepCommunicator expert{fmt::format("ep.{}", stage), {}};
    StepCommunicator replicas{fmt::format("edp.{}", stage), {}};
    if (ep <= g) {
      for (const int node : nodes) {
        for (int k = 0; k < g / ep; ++k) {
          expert.groups.push_back(communicator_on({node}, range(k * ep, ep)));
        }
      }
      for (int j = 0; j < ep; ++j) {
        std::vector<int> gpus;
        for (int gpu = j; gpu < g; gpu += ep) {
          gpus.push_back(gpu);
        }
        replicas.groups.push_back(communicator_on(nodes, std::move(gpus)));
      }
    } else {
      const int span = ep / g;  // nodes per expert-parallel group
      for (std::size_t first = 0; first < nodes.size(); first += at(span)) {
        const auto from = nodes.begin() + static_cast<std::ptrdiff_t>(first);
        expert.groups.push_back(communicator_on({from, from + span}, range(0, g)));
      }
      for (int offset = 0; offset < span; ++offset) {
        std::vector<int> same;
        for (std::size_t first = 0; first < nodes.size(); first += at(span)) {
          same.push_back(nodes[first + at(offset)]);
        }
        for (int gpu = 0; gpu < g; ++gpu) {
          replicas.groups.push_back(communicator_on(same, {gpu}));
        }
      }
    }
    ep_comm_[at(stage)] = ep > 1 ? add(step, std::move(expert)) : -1;
    edp_comm_[at(stage)] = stage_ranks_ > ep ? add(step, std::move(replicas)) : -1;
  }

  static int add(StepWorkload& step, StepCommunicator comm) {
    step.communicators.push_back(std::move(comm));
    return static_cast<int>(step.communicators.size()) - 1;
  }

  int add(std::string name, Task task, std::vector<int> after) {
    Draft draft;
    draft.phase.name = std::move(name);
    draft.phase.task = std::move(task);
    draft.after = std::move(after);
    drafts_.push_back(std::move(draft));
    return static_cast<int>(drafts_.size()) - 1;
  }

  CollectiveTask collective(CollectiveOp op, sim::Bytes size, int communicator, int calls) const {
    CollectiveTask task;
    task.request = shape_.nccl;
    task.request.op = op;
    task.request.size = size;
    task.communicator = communicator;
    task.calls = calls;
    return task;
  }

  // An all-to-all(v) on the stage's expert-parallel groups; its size, for reports, what a rank
  // sends on average.
  CollectiveTask all_to_all(int stage, std::shared_ptr<const PeerBytes> bytes) const {
    std::int64_t total = 0;
    for (const sim::Bytes b : *bytes) {
      total += b.count;
    }
    CollectiveTask task = collective(CollectiveOp::kAllToAll, sim::bytes(total / shape_.moe->ep),
                                     ep_comm_[at(stage)], 1);
    task.request.peer_bytes = std::move(bytes);
    return task;
  }

  // Appends to `pass` a phase that waits for its last one (for `after` if it is the first);
  // a compute phase runs on the stage's ranks.
  int chain(Pass& pass, int stage, std::string name, Task task, std::vector<int> after = {}) {
    const bool compute = std::holds_alternative<ComputeTask>(task);
    const int draft = add(std::move(name), std::move(task),
                          pass.last < 0 ? std::move(after) : std::vector<int>{pass.last});
    if (compute) {
      drafts_[at(draft)].phase.ranks = ranks_of(stage);
    }
    pass.first = pass.first < 0 ? draft : pass.first;
    pass.last = draft;
    return draft;
  }

  // One pass of a stage over micro-batch i: its dense layers (one compute phase, then their
  // tensor-parallel AllReduces) and its MoE layers, in order forward and in reverse backward,
  // backward at twice the forward's FLOPs.
  Pass draft_pass(bool backward, int stage, int i, std::vector<int> after) {
    const char* kind = backward ? "bwd" : "fwd";
    const int times = backward ? 2 : 1;
    Pass pass;
    const auto dense = [&] {
      const int layers = dense_layers(stage);
      if (layers == 0) {
        return;
      }
      chain(pass, stage, fmt::format("{}.{}.{}", kind, stage, i),
            ComputeTask{compute_time(layers * dense_flops_) * times}, after);
      if (tp_comm_[at(stage)] >= 0) {
        chain(pass, stage, fmt::format("{}_tp.{}.{}", kind, stage, i),
              collective(CollectiveOp::kAllReduce, activation_, tp_comm_[at(stage)], 2 * layers));
      }
    };
    const int first = first_layer(stage) + dense_layers(stage);
    const int last = first + moe_layers(stage);
    if (!backward) {
      dense();
      for (int l = first; l < last; ++l) {
        draft_moe_layer(pass, false, stage, i, l, after);
      }
    } else {
      for (int l = last - 1; l >= first; --l) {
        draft_moe_layer(pass, true, stage, i, l, after);
      }
      dense();
    }
    return pass;
  }

  void draft_moe_layer(
      Pass& pass, bool backward, int stage, int i, int l, const std::vector<int>& after) {
    const MoeLayer& layer = moe_[at(l)];
    const int times = backward ? 2 : 1;
    const auto name = [&](const char* what) {
      return fmt::format("{}.{}.{}.{}", what, stage, i, l);
    };
    const auto attention = [&](const char* compute, const char* allreduce) {
      const auto b = static_cast<double>(shape_.micro_batch);
      const auto s = static_cast<double>(shape_.sequence);
      const auto h = static_cast<double>(shape_.hidden);
      const double flops =
          (8.0 * b * s * h * h + 4.0 * b * s * s * h + 2.0 * b * s * h * shape_.moe->experts) /
          shape_.tp;
      chain(pass, stage, name(compute), ComputeTask{compute_time(flops) * times}, after);
      if (tp_comm_[at(stage)] >= 0) {
        chain(pass, stage, name(allreduce),
              collective(CollectiveOp::kAllReduce, activation_, tp_comm_[at(stage)], 1));
      }
    };
    const auto exchange = [&](const char* what, const std::shared_ptr<const PeerBytes>& bytes) {
      if (ep_comm_[at(stage)] >= 0) {
        chain(pass, stage, name(what), all_to_all(stage, bytes));
      }
    };
    const auto experts = [&](const char* what) {
      ComputeTask task;
      task.per_rank.reserve(at(stage_ranks_));
      for (int r = 0; r < stage_ranks_; ++r) {
        task.per_rank.push_back(layer.experts[at(r % shape_.moe->ep)] * times);
      }
      chain(pass, stage, name(what), std::move(task), after);
    };
    if (!backward) {
      attention("fwd_attn", "fwd_attn_tp");
      exchange("dispatch", layer.dispatch);
      experts("fwd_experts");
      exchange("combine", layer.combine);
    } else {
      exchange("bwd_combine", layer.dispatch);
      experts("bwd_experts");
      exchange("bwd_dispatch", layer.combine);
      attention("bwd_attn", "bwd_attn_tp");
    }
  }

  void draft_forward(int stage, int i) {
    std::vector<int> after;
    if (stage > 0) {
      after.push_back(send_fwd_[at(stage - 1)][at(i)]);
    }
    fwd_[at(stage)][at(i)] = draft_pass(false, stage, i, std::move(after));
    const int done = fwd_[at(stage)][at(i)].last;
    if (stage + 1 < shape_.pp) {
      send_fwd_[at(stage)][at(i)] = add(fmt::format("send_fwd.{}.{}", stage, i),
                                        SendTask{activation_, pp_fwd_comm_[at(stage)]}, {done});
    }
  }

  void draft_backward(int stage, int i) {
    std::vector<int> after = {fwd_[at(stage)][at(i)].last};
    if (stage + 1 < shape_.pp) {
      after.push_back(send_bwd_[at(stage + 1)][at(i)]);
    }
    bwd_[at(stage)][at(i)] = draft_pass(true, stage, i, std::move(after));
    const int done = bwd_[at(stage)][at(i)].last;
    if (stage > 0) {
      send_bwd_[at(stage)][at(i)] = add(fmt::format("send_bwd.{}.{}", stage, i),
                                        SendTask{activation_, pp_bwd_comm_[at(stage - 1)]}, {done});
    }
  }

  // A rank's gradients: the dense ones (12 h^2 per dense layer, 4 h^2 + h E per MoE layer's
  // attention and router, over tp; or the given parameters over tp x pp) over the data-parallel
  // groups, its experts' (E / ep x 3 h f per MoE layer) over the expert data-parallel groups.
  void draft_optimizer(int stage) {
    const int backward = bwd_[at(stage)].back().last;
    const auto h = static_cast<double>(shape_.hidden);
    const double experts = shape_.moe ? shape_.moe->experts : 0.0;
    const double dense = shape_.parameters ? *shape_.parameters / (shape_.tp * shape_.pp)
                                           : (dense_layers(stage) * 12.0 * h * h +
                                              moe_layers(stage) * (4.0 * h * h + h * experts)) /
                                                 shape_.tp;
    const auto gradient_bytes = [this](double parameters) {
      return sim::Bytes{static_cast<std::int64_t>(parameters) * shape_.gradient_precision_bytes};
    };
    std::vector<int> reduced;
    if (dp_comm_[at(stage)] >= 0) {
      reduced.push_back(
          add(fmt::format("dp_allreduce.{}", stage),
              collective(CollectiveOp::kAllReduce, gradient_bytes(dense), dp_comm_[at(stage)], 1),
              {backward}));
    }
    if (edp_comm_[at(stage)] >= 0) {
      const double own =
          experts / shape_.moe->ep * 3.0 * h * shape_.moe->expert_hidden * moe_layers(stage);
      reduced.push_back(
          add(fmt::format("edp_allreduce.{}", stage),
              collective(CollectiveOp::kAllReduce, gradient_bytes(own), edp_comm_[at(stage)], 1),
              {backward}));
    }
    if (shape_.optimizer > sim::Duration{}) {
      const int optimizer = add(fmt::format("optimizer.{}", stage), ComputeTask{shape_.optimizer},
                                reduced.empty() ? std::vector<int>{backward} : std::move(reduced));
      drafts_[at(optimizer)].phase.ranks = ranks_of(stage);
    }
  }

  // Each stage's compute in 1F1B order, each pass also waiting for the one before it (its
  // tensor-parallel calls included: Megatron's compute stream waits for them).
  void order_stages() {
    for (int stage = 0; stage < shape_.pp; ++stage) {
      const int m = shape_.microbatches;
      const int warmup = std::min(shape_.pp - stage - 1, m);
      std::vector<Pass> order;
      order.reserve(at(2 * m));
      for (int i = 0; i < warmup; ++i) {
        order.push_back(fwd_[at(stage)][at(i)]);
      }
      for (int i = warmup; i < m; ++i) {
        order.push_back(fwd_[at(stage)][at(i)]);
        order.push_back(bwd_[at(stage)][at(i - warmup)]);
      }
      for (int i = m - warmup; i < m; ++i) {
        order.push_back(bwd_[at(stage)][at(i)]);
      }
      for (std::size_t k = 1; k < order.size(); ++k) {
        drafts_[at(order[k].first)].after.push_back(order[k - 1].last);
      }
    }
  }

  // Writes the drafts out in a topological order, smallest draft first among those ready.
  void write(StepWorkload& step) {
    const std::size_t n = drafts_.size();
    std::vector<int> waiting(n, 0);
    std::vector<std::vector<int>> next(n);
    for (std::size_t d = 0; d < n; ++d) {
      std::vector<int> preds = drafts_[d].after;
      std::sort(preds.begin(), preds.end());
      preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
      waiting[d] = static_cast<int>(preds.size());
      for (const int p : preds) {
        next[at(p)].push_back(static_cast<int>(d));
      }
    }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (std::size_t d = 0; d < n; ++d) {
      if (waiting[d] == 0) {
        ready.push(static_cast<int>(d));
      }
    }
    std::vector<int> written(n, -1);
    while (!ready.empty()) {
      const int d = ready.top();
      ready.pop();
      Phase phase = drafts_[at(d)].phase;
      for (const int p : drafts_[at(d)].after) {
        phase.after.push_back(written[at(p)]);
      }
      written[at(d)] = static_cast<int>(step.phases.size());
      step.phases.push_back(std::move(phase));
      for (const int s : next[at(d)]) {
        if (--waiting[at(s)] == 0) {
          ready.push(s);
        }
      }
    }
    RAILSIM_ASSERT(step.phases.size() == n, "1F1B's drafts form a DAG");
  }

  const MegatronShape& shape_;
  int dp_;
  int stage_nodes_;
  int stage_ranks_;
  double dense_flops_ = 0.0;  // one dense layer's forward per GPU
  sim::Bytes activation_;
  std::vector<MoeLayer> moe_;  // per layer, the MoE ones drawn
  // Per stage, -1: none.
  std::vector<int> tp_comm_, dp_comm_, ep_comm_, edp_comm_, pp_fwd_comm_, pp_bwd_comm_;
  std::vector<std::vector<Pass>> fwd_, bwd_;           // [stage][micro-batch]
  std::vector<std::vector<int>> send_fwd_, send_bwd_;  // [stage][micro-batch]
  std::vector<Draft> drafts_;
};

}  // namespace

int megatron_dp(const MegatronShape& shape) {
  const int ranks = static_cast<int>(shape.nodes.size()) * shape.gpus_per_node;
  return shape.tp > 0 && shape.pp > 0 ? ranks / (shape.tp * shape.pp) : 0;
}

StepWorkload make_megatron_step(const MegatronShape& shape) {
  const int ranks = static_cast<int>(shape.nodes.size()) * shape.gpus_per_node;
  require(shape.tp >= 1 && shape.gpus_per_node % shape.tp == 0, "tp",
          fmt::format("tp {} must divide gpus_per_node {}: a tensor-parallel group stays in one "
                      "node's NVLink domain",
                      shape.tp, shape.gpus_per_node));
  require(shape.pp >= 1 && ranks % (shape.tp * shape.pp) == 0, "pp",
          fmt::format("tp x pp = {} must divide the job's {} ranks", shape.tp * shape.pp, ranks));
  const int stage_ranks = shape.tp * megatron_dp(shape);
  require(stage_ranks % shape.gpus_per_node == 0, "pp",
          fmt::format("a pipeline stage's tp x dp = {} ranks must fill whole nodes of {} GPUs",
                      stage_ranks, shape.gpus_per_node));
  require(shape.layers >= 1 && shape.layers % shape.pp == 0, "layers",
          fmt::format("layers {} must be a positive multiple of pp {}", shape.layers, shape.pp));
  require(shape.hidden >= 1 && shape.sequence >= 1 && shape.micro_batch >= 1 &&
              shape.microbatches >= 1 && shape.precision_bytes >= 1 &&
              shape.gradient_precision_bytes >= 1,
          "", "hidden, sequence, micro_batch, microbatches and the precisions must be at least 1");
  require(shape.achieved_tflops > 0.0, "achieved_tflops", "achieved_tflops must be above zero");
  if (shape.moe) {
    const MoeShape& moe = *shape.moe;
    const int g = shape.gpus_per_node;
    require(!shape.parameters, "parameters",
            "an MoE model's parameters are counted from its shape: leave \"parameters\" out");
    require(moe.experts >= 1 && moe.expert_hidden >= 1, "moe/experts",
            "experts and expert_hidden must be at least 1");
    require(moe.top_k >= 1 && moe.top_k <= moe.experts, "moe/top_k",
            fmt::format("top_k {} must be 1 to the {} experts", moe.top_k, moe.experts));
    require(moe.ep >= 1 && stage_ranks % moe.ep == 0 && moe.experts % moe.ep == 0, "moe/ep",
            fmt::format("ep {} must divide a pipeline stage's {} ranks and the {} experts", moe.ep,
                        stage_ranks, moe.experts));
    require(moe.ep <= g ? g % moe.ep == 0 : moe.ep % g == 0, "moe/ep",
            fmt::format("ep {} must divide gpus_per_node {} or be a multiple of it: an "
                        "expert-parallel group is part of a node or whole nodes",
                        moe.ep, g));
    require(
        moe.dense_layers >= 0 && moe.dense_layers <= shape.layers, "moe/dense_layers",
        fmt::format("dense_layers {} must be 0 to the {} layers", moe.dense_layers, shape.layers));
    require(moe.skew >= 0.0 && std::isfinite(moe.skew), "moe/skew",
            fmt::format("skew {} must be at least 0 (0: a balanced router)", moe.skew));
  }
  return StepDrafter(shape).draft();
}

}  // namespace railsim::models
