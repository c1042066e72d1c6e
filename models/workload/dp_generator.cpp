// File: models/workload/dp_generator.cpp
#include "models/workload/dp_generator.hpp"

#include "sim/ceil_div.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace railsim::models {

StepWorkload make_dp_step(const DpShape& shape) {
  if (shape.gradient_bytes.count < 1 || shape.bucket.count < 1) {
    throw sim::InputError("a data-parallel step needs gradients and a bucket of at least 1 byte");
  }
  StepWorkload step;
  step.nodes = shape.nodes;
  step.gpus_per_node = shape.gpus_per_node;
  std::vector<int> gpus(static_cast<std::size_t>(shape.gpus_per_node));
  std::iota(gpus.begin(), gpus.end(), 0);
  step.communicators.push_back({"dp", {communicator_on(shape.nodes, gpus)}});

  const std::int64_t total = shape.gradient_bytes.count;
  const std::int64_t buckets = sim::ceil_div(total, shape.bucket.count);
  step.phases.push_back({"forward", ComputeTask{shape.forward}, {}});
  std::vector<int> backward;
  backward.reserve(static_cast<std::size_t>(buckets));
  for (std::int64_t k = 0; k < buckets; ++k) {
    const std::int64_t bytes = std::min(shape.bucket.count, total - k * shape.bucket.count);
    // The share of the backward pass that produces this bucket, in proportion to its bytes.
    const auto share =
        static_cast<sim::Duration::rep>(static_cast<double>(shape.backward.count()) *
                                        static_cast<double>(bytes) / static_cast<double>(total));
    backward.push_back(static_cast<int>(step.phases.size()));
    step.phases.push_back({fmt::format("backward.{}", k), ComputeTask{sim::Duration{share}}, {}});
  }
  int last_allreduce = -1;
  for (std::int64_t k = 0; k < buckets; ++k) {
    CollectiveTask task;
    task.request = shape.nccl;
    task.request.op = CollectiveOp::kAllReduce;
    task.request.size = sim::Bytes{std::min(shape.bucket.count, total - k * shape.bucket.count)};
    const int waits_for = shape.overlap ? backward[static_cast<std::size_t>(k)] : backward.back();
    last_allreduce = static_cast<int>(step.phases.size());
    step.phases.push_back({fmt::format("allreduce.{}", k), task, {waits_for}});
  }
  if (shape.optimizer > sim::Duration{}) {
    step.phases.push_back({"optimizer", ComputeTask{shape.optimizer}, {last_allreduce}});
  }
  return step;
}

}  // namespace railsim::models
