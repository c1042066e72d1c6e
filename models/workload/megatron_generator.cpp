// File: models/workload/megatron_generator.cpp
// The phases are drafted pass by pass, each stage's passes then chained in its 1F1B order, and
// all written out in a topological order (the smallest draft first among those ready): every
// phase after what it waits for, so each stage's compute stream runs in 1F1B order.
#include "models/workload/megatron_generator.hpp"

#include "sim/assert.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

void require(bool ok, const std::string& message) {
  if (!ok) {
    throw sim::InputError(message);
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
    const int layers = shape_.layers / shape_.pp;
    const double forward_flops = layers * (24.0 * b * s * h * h + 4.0 * b * s * s * h) / shape_.tp;
    forward_ = sim::seconds(forward_flops / (shape_.achieved_tflops * 1e12));
    activation_ = sim::Bytes{static_cast<std::int64_t>(shape_.micro_batch) * shape_.sequence *
                             shape_.hidden * shape_.precision_bytes};
    tp_calls_ = 2 * layers;
    const double parameters =
        shape_.parameters.value_or(12.0 * shape_.layers * h * h) / (shape_.tp * shape_.pp);
    gradients_ =
        sim::Bytes{static_cast<std::int64_t>(parameters) * shape_.gradient_precision_bytes};
    fwd_.assign(at(shape_.pp), std::vector<int>(at(shape_.microbatches), -1));
    bwd_ = fwd_;
    send_fwd_ = fwd_;
    send_bwd_ = fwd_;
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

  std::vector<int> nodes_of(int stage) const {
    const auto first = shape_.nodes.begin() + static_cast<std::ptrdiff_t>(stage) * stage_nodes_;
    return {first, first + stage_nodes_};
  }

  void make_communicators(StepWorkload& step) {
    const int g = shape_.gpus_per_node;
    const int per_node = g / shape_.tp;  // tensor-parallel groups (and dp replicas) per node
    tp_comm_.assign(at(shape_.pp), -1);
    dp_comm_ = tp_comm_;
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

  static int add(StepWorkload& step, StepCommunicator comm) {
    step.communicators.push_back(std::move(comm));
    return static_cast<int>(step.communicators.size()) - 1;
  }

  int add(std::string name,
          std::variant<ComputeTask, CollectiveTask, SendTask> task,
          std::vector<int> after) {
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

  // The compute of one pass on one stage, then its tensor-parallel AllReduces: returns the
  // phase that ends the pass, which the next compute on the stage waits for.
  int draft_pass(const char* kind, int stage, int i, sim::Duration time, std::vector<int> after) {
    const int compute =
        add(fmt::format("{}.{}.{}", kind, stage, i), ComputeTask{time}, std::move(after));
    drafts_[at(compute)].phase.ranks = ranks_of(stage);
    if (tp_comm_[at(stage)] < 0) {
      return compute;
    }
    return add(fmt::format("{}_tp.{}.{}", kind, stage, i),
               collective(CollectiveOp::kAllReduce, activation_, tp_comm_[at(stage)], tp_calls_),
               {compute});
  }

  void draft_forward(int stage, int i) {
    std::vector<int> after;
    if (stage > 0) {
      after.push_back(send_fwd_[at(stage - 1)][at(i)]);
    }
    const int done = draft_pass("fwd", stage, i, forward_, std::move(after));
    fwd_[at(stage)][at(i)] = done;
    if (stage + 1 < shape_.pp) {
      send_fwd_[at(stage)][at(i)] = add(fmt::format("send_fwd.{}.{}", stage, i),
                                        SendTask{activation_, pp_fwd_comm_[at(stage)]}, {done});
    }
  }

  void draft_backward(int stage, int i) {
    std::vector<int> after = {fwd_[at(stage)][at(i)]};
    if (stage + 1 < shape_.pp) {
      after.push_back(send_bwd_[at(stage + 1)][at(i)]);
    }
    const int done = draft_pass("bwd", stage, i, forward_ * 2, std::move(after));
    bwd_[at(stage)][at(i)] = done;
    if (stage > 0) {
      send_bwd_[at(stage)][at(i)] = add(fmt::format("send_bwd.{}.{}", stage, i),
                                        SendTask{activation_, pp_bwd_comm_[at(stage - 1)]}, {done});
    }
  }

  void draft_optimizer(int stage) {
    int last = bwd_[at(stage)].back();
    if (dp_comm_[at(stage)] >= 0) {
      last = add(fmt::format("dp_allreduce.{}", stage),
                 collective(CollectiveOp::kAllReduce, gradients_, dp_comm_[at(stage)], 1), {last});
    }
    if (shape_.optimizer > sim::Duration{}) {
      const int optimizer =
          add(fmt::format("optimizer.{}", stage), ComputeTask{shape_.optimizer}, {last});
      drafts_[at(optimizer)].phase.ranks = ranks_of(stage);
    }
  }

  // Each stage's compute in 1F1B order, each pass also waiting for the one before it (its
  // tensor-parallel calls included: Megatron's compute stream waits for them).
  void order_stages() {
    for (int stage = 0; stage < shape_.pp; ++stage) {
      const int m = shape_.microbatches;
      const int warmup = std::min(shape_.pp - stage - 1, m);
      std::vector<int> order;
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
        // The pass's compute phase: the draft that `order[k]` ends, or it itself.
        int compute = order[k];
        while (!std::holds_alternative<ComputeTask>(drafts_[at(compute)].phase.task)) {
          compute = drafts_[at(compute)].after.front();
        }
        drafts_[at(compute)].after.push_back(order[k - 1]);
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
  sim::Duration forward_{};
  sim::Bytes activation_;
  sim::Bytes gradients_;
  int tp_calls_ = 0;
  std::vector<int> tp_comm_, dp_comm_, pp_fwd_comm_, pp_bwd_comm_;  // per stage, -1: none
  std::vector<std::vector<int>> fwd_, bwd_, send_fwd_, send_bwd_;   // [stage][micro-batch]
  std::vector<Draft> drafts_;
};

}  // namespace

int megatron_dp(const MegatronShape& shape) {
  const int ranks = static_cast<int>(shape.nodes.size()) * shape.gpus_per_node;
  return shape.tp > 0 && shape.pp > 0 ? ranks / (shape.tp * shape.pp) : 0;
}

StepWorkload make_megatron_step(const MegatronShape& shape) {
  const int ranks = static_cast<int>(shape.nodes.size()) * shape.gpus_per_node;
  require(shape.tp >= 1 && shape.gpus_per_node % shape.tp == 0,
          fmt::format("tp {} must divide gpus_per_node {}: a tensor-parallel group stays in one "
                      "node's NVLink domain",
                      shape.tp, shape.gpus_per_node));
  require(shape.pp >= 1 && ranks % (shape.tp * shape.pp) == 0,
          fmt::format("tp x pp = {} must divide the job's {} ranks", shape.tp * shape.pp, ranks));
  require(shape.tp * megatron_dp(shape) % shape.gpus_per_node == 0,
          fmt::format("a pipeline stage's tp x dp = {} ranks must fill whole nodes of {} GPUs",
                      shape.tp * megatron_dp(shape), shape.gpus_per_node));
  require(shape.layers >= 1 && shape.layers % shape.pp == 0,
          fmt::format("layers {} must be a positive multiple of pp {}", shape.layers, shape.pp));
  require(shape.hidden >= 1 && shape.sequence >= 1 && shape.micro_batch >= 1 &&
              shape.microbatches >= 1 && shape.precision_bytes >= 1 &&
              shape.gradient_precision_bytes >= 1,
          "hidden, sequence, micro_batch, microbatches and the precisions must be at least 1");
  require(shape.achieved_tflops > 0.0, "achieved_tflops must be above zero");
  return StepDrafter(shape).draft();
}

}  // namespace railsim::models
