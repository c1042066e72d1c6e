// File: models/scenario/step_file.cpp
// `/step` and fault files, read as the rest of a scenario is: each value checked where it is
// written, so every error carries its JSON pointer.
#include "models/scenario/step_file.hpp"

#include "models/scenario/message_text.hpp"
#include "models/scenario/node_file.hpp"
#include "models/scenario/scenario_error.hpp"
#include "models/scenario/scenario_file.hpp"
#include "models/workload/dp_generator.hpp"
#include "models/workload/megatron_generator.hpp"
#include "models/workload/work_limit.hpp"
#include "sim/index.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

namespace railsim::models::scenario {
namespace {

using sim::at;

// The job's placement: `nodes` nodes from `first_node`, or the system nodes `nodes` lists; the
// first `gpus_per_node` GPUs of each.
void read_placement(const JsonValue& step, const SystemSpec& system, StepWorkload& out) {
  out.nodes.clear();
  const std::optional<JsonValue> listed = step.find("nodes");
  if (listed && listed->is_array()) {
    if (step.contains("first_node")) {
      throw step.at("first_node").error(R"(give "first_node" with a node count, not a list)");
    }
    for (const JsonValue& node : listed->elements()) {
      const int n = static_cast<int>(node.as_integer(0, system.nodes - 1));
      if (std::find(out.nodes.begin(), out.nodes.end(), n) != out.nodes.end()) {
        throw node.error(fmt::format("node {} is listed twice", n));
      }
      out.nodes.push_back(n);
    }
    if (out.nodes.empty()) {
      throw listed->error("expected at least one node");
    }
  } else {
    const int first = step.contains("first_node")
                          ? static_cast<int>(step.at("first_node").as_integer(0, system.nodes - 1))
                          : 0;
    const int nodes = listed ? static_cast<int>(listed->as_integer(1, system.nodes - first))
                             : system.nodes - first;
    for (int n = first; n < first + nodes; ++n) {
      out.nodes.push_back(n);
    }
  }
  const auto gpus = static_cast<std::int64_t>(system.node.gpus.size());
  out.gpus_per_node = step.contains("gpus_per_node")
                          ? static_cast<int>(step.at("gpus_per_node").as_integer(1, gpus))
                          : static_cast<int>(gpus);
}

// An achieved compute rate in TFLOP/s, above zero.
double read_tflops(const JsonValue& rate) {
  const double tflops = rate.as_number(0.0);
  if (!(tflops > 0.0)) {
    throw rate.error("expected an achieved rate above zero, in TFLOP/s");
  }
  return tflops;
}

// F FLOPs at R TFLOP/s: F / (R x 1e12) seconds.
sim::Duration compute_time(const JsonValue& flops, const JsonValue& rate) {
  return sim::seconds(flops.as_number(0.0) / (read_tflops(rate) * 1e12));
}

// A duration, or {"flops": F, "achieved_tflops": R}.
sim::Duration read_compute(const JsonValue& value) {
  if (!value.is_object()) {
    return value.as_duration();
  }
  value.expect_keys({"flops", "achieved_tflops"});
  return compute_time(value.at("flops"), value.at("achieved_tflops"));
}

// Bytes per gradient element of a precision name.
std::int64_t precision_bytes(const JsonValue& value) {
  return value.as_enum<std::int64_t>({{"fp32", 4}, {"bf16", 2}, {"fp16", 2}, {"fp8", 1}});
}

// Refuses, at `where`, a step whose `count` `things` would take more memory than `limit` allows.
void check_limit(const WorkLimit& limit,
                 const JsonValue& where,
                 double count,
                 std::string_view things,
                 double bytes) {
  if (const std::optional<std::string> refusal =
          beyond_limit(limit, "this step", count, things, bytes)) {
    throw where.error(*refusal);
  }
}

// Refuses, at the step's "nodes", a step whose system and collectives alone would take more
// memory than `limit` allows.
void check_ranks(const WorkLimit& limit,
                 const JsonValue& step,
                 const SystemSpec& system,
                 const StepWorkload& placement) {
  const double ranks = static_cast<double>(placement.nodes.size()) * placement.gpus_per_node;
  if (const std::optional<std::string> refusal =
          collective_beyond_limit(limit, "this step", system, ranks)) {
    throw(step.contains("nodes") ? step.at("nodes") : step).error(*refusal);
  }
}

// {"generator": "dp", ...}: models/workload/dp_generator.hpp.
StepWorkload read_dp(const JsonValue& step, const SystemSpec& system, const WorkLimit& limit) {
  step.expect_keys({"name", "generator", "nodes", "first_node", "gpus_per_node", "gradient_bytes",
                    "parameters", "gradient_precision", "bucket", "forward", "backward", "flops",
                    "achieved_tflops", "optimizer", "overlap", "nccl"});
  StepWorkload placement;
  read_placement(step, system, placement);
  check_ranks(limit, step, system, placement);
  DpShape shape;
  shape.nodes = placement.nodes;
  shape.gpus_per_node = placement.gpus_per_node;
  if (step.contains("gradient_bytes") == step.contains("parameters")) {
    throw step.error(R"(expected one of "gradient_bytes" (such as "14G") or "parameters")");
  }
  if (const auto v = step.find("gradient_bytes")) {
    shape.gradient_bytes = v->as_size();
  } else {
    const JsonValue parameters = step.at("parameters");
    const double count = parameters.as_number(1.0, 1e15);
    const std::int64_t bytes =
        step.contains("gradient_precision") ? precision_bytes(step.at("gradient_precision")) : 2;
    shape.gradient_bytes = sim::Bytes{static_cast<std::int64_t>(std::llround(count)) * bytes};
  }
  if (shape.gradient_bytes.count < 1) {
    throw step.at("gradient_bytes").error("expected at least 1 byte of gradients");
  }
  if (const auto v = step.find("bucket")) {
    shape.bucket = v->as_size();
    if (shape.bucket.count < 1) {
      throw v->error("expected a bucket of at least 1 byte");
    }
  }
  // Two phases per bucket (its backward slice and its AllReduce), each over every rank. A refusal
  // names the bucket when the gradients would fit in DDP's default buckets, the gradients
  // otherwise.
  const auto buckets_of = [&shape](sim::Bytes bucket) {
    return std::ceil(static_cast<double>(shape.gradient_bytes.count) /
                     static_cast<double>(bucket.count));
  };
  const double ranks = static_cast<double>(shape.nodes.size()) * shape.gpus_per_node;
  const double buckets = buckets_of(shape.bucket);
  const bool bucket_to_blame =
      step.contains("bucket") && step_phase_bytes(2.0 * buckets_of(DpShape{}.bucket), ranks) <=
                                     static_cast<double>(limit.max_memory_bytes);
  check_limit(limit,
              bucket_to_blame                   ? step.at("bucket")
              : step.contains("gradient_bytes") ? step.at("gradient_bytes")
                                                : step.at("parameters"),
              buckets, "gradient buckets", step_phase_bytes(2.0 * buckets, ranks));
  const bool timed = step.contains("forward") || step.contains("backward");
  const bool counted = step.contains("flops") || step.contains("achieved_tflops");
  if (timed == counted) {
    throw step.error(
        R"(expected "forward" and "backward" durations, or "flops" and "achieved_tflops")");
  }
  if (timed) {
    shape.forward = step.at("forward").as_duration();
    shape.backward = step.at("backward").as_duration();
  } else {
    // A step's FLOPs split 1:2 between the forward and backward passes (2N and 4N per token).
    const sim::Duration whole = compute_time(step.at("flops"), step.at("achieved_tflops"));
    shape.forward = whole / 3;
    shape.backward = whole - shape.forward;
  }
  if (const auto v = step.find("optimizer")) {
    shape.optimizer = v->as_duration();
  }
  if (const auto v = step.find("overlap")) {
    shape.overlap = v->as_bool();
  }
  if (const auto v = step.find("nccl")) {
    read_nccl(*v, shape.nccl);
  }
  StepWorkload out = make_dp_step(shape);
  if (const auto v = step.find("name")) {
    out.name = v->as_string();
  }
  return out;
}

// {"experts": E, "top_k": k, "ep": n, "expert_hidden": f, "dense_layers": d, "skew": z,
// "seed": s}: the MoE layers of a "moe" step.
MoeShape read_moe(const JsonValue& moe) {
  moe.expect_keys({"experts", "top_k", "ep", "expert_hidden", "dense_layers", "skew", "seed"});
  MoeShape out;
  out.experts = static_cast<int>(moe.at("experts").as_integer(1, 1'000'000));
  out.top_k = static_cast<int>(moe.at("top_k").as_integer(1, out.experts));
  out.ep = static_cast<int>(moe.at("ep").as_integer(1, 1'000'000));
  out.expert_hidden = static_cast<int>(moe.at("expert_hidden").as_integer(1, 1'000'000));
  if (const auto v = moe.find("dense_layers")) {
    out.dense_layers = static_cast<int>(v->as_integer(0, 1'000'000));
  }
  if (const auto v = moe.find("skew")) {
    out.skew = v->as_number(0.0);
  }
  if (const auto v = moe.find("seed")) {
    out.seed = static_cast<std::uint64_t>(v->as_integer(0));
  }
  return out;
}

// A generator's ShapeError at the key it names ("moe/ep"), or at the step.
ScenarioError shape_error(const JsonValue& step, const ShapeError& e) {
  JsonValue where = step;
  std::string_view rest = e.field();
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view key = rest.substr(0, slash);
    if (!where.contains(key)) {
      break;
    }
    where = where.at(key);
    rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
  }
  return where.error(e.what());
}

// {"generator": "3d" or "moe", ...}: models/workload/megatron_generator.hpp.
StepWorkload read_3d(const JsonValue& step, const SystemSpec& system, const WorkLimit& limit) {
  step.expect_keys({"name", "generator", "nodes", "first_node", "gpus_per_node", "tp", "pp",
                    "layers", "hidden", "sequence", "micro_batch", "microbatches", "precision",
                    "gradient_precision", "parameters", "achieved_tflops", "optimizer", "nccl",
                    "moe"});
  const bool moe = step.at("generator").as_string() == "moe";
  if (!moe && step.contains("moe")) {
    throw step.at("moe").error(R"(experts need "generator": "moe")");
  }
  StepWorkload placement;
  read_placement(step, system, placement);
  check_ranks(limit, step, system, placement);
  MegatronShape shape;
  shape.nodes = placement.nodes;
  shape.gpus_per_node = placement.gpus_per_node;
  const auto count = [&step](const char* key, int fallback) {
    const auto v = step.find(key);
    return v ? static_cast<int>(v->as_integer(1, 1'000'000'000)) : fallback;
  };
  shape.tp = count("tp", 1);
  shape.pp = count("pp", 1);
  shape.layers = static_cast<int>(step.at("layers").as_integer(1, 1'000'000));
  shape.hidden = static_cast<int>(step.at("hidden").as_integer(1, 1'000'000));
  shape.sequence = static_cast<int>(step.at("sequence").as_integer(1, 100'000'000));
  shape.micro_batch = count("micro_batch", 1);
  shape.microbatches = count("microbatches", 1);
  if (const auto v = step.find("precision")) {
    shape.precision_bytes = static_cast<int>(precision_bytes(*v));
  }
  shape.gradient_precision_bytes =
      step.contains("gradient_precision")
          ? static_cast<int>(precision_bytes(step.at("gradient_precision")))
          : shape.precision_bytes;
  if (const auto v = step.find("parameters")) {
    shape.parameters = v->as_number(1.0, 1e15);
  }
  shape.achieved_tflops = read_tflops(step.at("achieved_tflops"));
  if (const auto v = step.find("optimizer")) {
    shape.optimizer = v->as_duration();
  }
  if (const auto v = step.find("nccl")) {
    read_nccl(*v, shape.nccl);
  }
  if (moe) {
    shape.moe = read_moe(step.at("moe"));
  }
  // Six phases per stage and micro-batch (forward, backward, their tensor-parallel AllReduces
  // and sends) and three per stage, each on the stage's ranks; ten more per MoE layer and
  // micro-batch.
  const double moe_layers = moe ? static_cast<double>(shape.layers) : 0.0;
  const double phases =
      static_cast<double>(shape.pp) * (6.0 * static_cast<double>(shape.microbatches) + 3.0) +
      10.0 * moe_layers * static_cast<double>(shape.microbatches);
  const double stage_ranks =
      static_cast<double>(shape.nodes.size()) * shape.gpus_per_node / shape.pp;
  check_limit(limit, step.contains("microbatches") ? step.at("microbatches") : step, phases,
              "phases", step_phase_bytes(phases, stage_ranks));
  if (moe) {
    // Each MoE layer's routing: its experts' loads and two ep x ep byte matrices.
    const double ep = shape.moe->ep;
    check_limit(limit, step.at("moe"), moe_layers, "MoE layers' routing tables",
                moe_layers * (16.0 * ep * ep + 16.0 * static_cast<double>(shape.moe->experts)));
  }
  StepWorkload out;
  try {
    out = make_megatron_step(shape);
  } catch (const ShapeError& e) {
    throw shape_error(step, e);
  }
  if (const auto v = step.find("name")) {
    out.name = v->as_string();
  }
  return out;
}

// One group: {"nodes": [job node indices], "gpus": [GPU indices]}, each defaulting to all.
Communicator read_group(const JsonValue& value, const StepWorkload& job) {
  value.expect_keys({"nodes", "gpus"});
  Communicator group;
  if (const auto v = value.find("nodes")) {
    for (const JsonValue& n : v->elements()) {
      group.node_ids.push_back(job.nodes[at(
          static_cast<int>(n.as_integer(0, static_cast<std::int64_t>(job.nodes.size()) - 1)))]);
    }
  } else {
    group.node_ids = job.nodes;
  }
  if (const auto v = value.find("gpus")) {
    for (const JsonValue& g : v->elements()) {
      group.gpu_ids.push_back(static_cast<int>(g.as_integer(0, job.gpus_per_node - 1)));
    }
  } else {
    group.gpu_ids.resize(at(job.gpus_per_node));
    std::iota(group.gpu_ids.begin(), group.gpu_ids.end(), 0);
  }
  if (group.node_ids.empty() || group.gpu_ids.empty()) {
    throw value.error("expected a group of at least one node and one GPU");
  }
  return communicator_on(std::move(group.node_ids), std::move(group.gpu_ids));
}

// "world": one group of every rank; "per_node": one per node; "per_gpu": one per GPU index,
// across the nodes (data-parallel groups beside tensor parallelism); or a list of groups.
std::vector<Communicator> read_groups(const JsonValue& value, const StepWorkload& job) {
  std::vector<Communicator> groups;
  if (value.is_array()) {
    for (const JsonValue& g : value.elements()) {
      groups.push_back(read_group(g, job));
    }
    return groups;
  }
  const std::string kind = value.as_choice({"world", "per_node", "per_gpu"});
  std::vector<int> all_gpus(at(job.gpus_per_node));
  std::iota(all_gpus.begin(), all_gpus.end(), 0);
  if (kind == "world") {
    groups.push_back(communicator_on(job.nodes, all_gpus));
  } else if (kind == "per_node") {
    for (const int n : job.nodes) {
      groups.push_back(communicator_on({n}, all_gpus));
    }
  } else {
    for (const int g : all_gpus) {
      groups.push_back(communicator_on(job.nodes, {g}));
    }
  }
  return groups;
}

template <class T>
int index_named(const std::vector<T>& items, const JsonValue& name, std::string_view what) {
  const std::string wanted = name.as_string();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == wanted) {
      return static_cast<int>(i);
    }
  }
  throw name.error(fmt::format("no {} named {} written before this", what, quote(wanted)));
}

// {"communicators": [...], "phases": [...]}: phases written out.
StepWorkload read_phases(const JsonValue& step, const SystemSpec& system) {
  step.expect_keys({"name", "nodes", "first_node", "gpus_per_node", "communicators", "phases"});
  StepWorkload out;
  read_placement(step, system, out);
  if (const auto v = step.find("name")) {
    out.name = v->as_string();
  }
  if (const auto comms = step.find("communicators")) {
    for (const JsonValue& c : comms->elements()) {
      c.expect_keys({"name", "groups"});
      StepCommunicator comm;
      comm.name = c.at("name").as_string();
      for (const StepCommunicator& earlier : out.communicators) {
        if (earlier.name == comm.name) {
          throw c.at("name").error(
              fmt::format("communicator {} is defined twice", quote(comm.name)));
        }
      }
      comm.groups = read_groups(c.at("groups"), out);
      out.communicators.push_back(std::move(comm));
    }
  }
  for (const JsonValue& p : step.at("phases").elements()) {
    p.expect_keys({"name", "compute", "ranks", "collective", "send", "size", "communicator",
                   "calls", "after", "nccl"});
    Phase phase;
    phase.name = p.at("name").as_string();
    for (const Phase& earlier : out.phases) {
      if (earlier.name == phase.name) {
        throw p.at("name").error(fmt::format("phase {} is defined twice", quote(phase.name)));
      }
    }
    const int kinds = static_cast<int>(p.contains("compute")) +
                      static_cast<int>(p.contains("collective")) +
                      static_cast<int>(p.contains("send"));
    if (kinds != 1) {
      throw p.error(
          R"(expected one of "compute" (a duration), "collective" (such as "all_reduce") or )"
          R"("send" (a size))");
    }
    const auto only_for = [&p](std::initializer_list<const char*> keys, const char* kind) {
      for (const char* key : keys) {
        if (p.contains(key)) {
          throw p.at(key).error(fmt::format("only a {} phase takes this", kind));
        }
      }
    };
    if (const auto v = p.find("compute")) {
      only_for({"size", "communicator", "calls", "nccl"}, R"("collective" or "send")");
      phase.task = ComputeTask{read_compute(*v)};
      if (const auto ranks = p.find("ranks")) {
        for (const JsonValue& r : ranks->elements()) {
          const int rank = static_cast<int>(r.as_integer(0, out.ranks() - 1));
          if (std::find(phase.ranks.begin(), phase.ranks.end(), rank) != phase.ranks.end()) {
            throw r.error(fmt::format("rank {} is listed twice", rank));
          }
          phase.ranks.push_back(rank);
        }
      }
    } else if (const auto sent = p.find("send")) {
      only_for({"ranks"}, R"("compute")");
      only_for({"size", "calls", "nccl"}, R"("collective")");
      phase.task = SendTask{sent->as_size(),
                            index_named(out.communicators, p.at("communicator"), "communicator")};
    } else {
      only_for({"ranks"}, R"("compute")");
      CollectiveTask task;
      task.request.op = read_op(p.at("collective"));
      task.request.size = p.at("size").as_size();
      task.communicator = index_named(out.communicators, p.at("communicator"), "communicator");
      if (const auto n = p.find("calls")) {
        task.calls = static_cast<int>(n->as_integer(1, 1'000'000));
      }
      if (const auto n = p.find("nccl")) {
        read_nccl(*n, task.request);
      }
      phase.task = task;
    }
    if (const auto after = p.find("after")) {
      for (const JsonValue& name : after->elements()) {
        phase.after.push_back(index_named(out.phases, name, "phase"));
      }
    }
    out.phases.push_back(std::move(phase));
  }
  try {
    validate(out);
  } catch (const sim::InputError& e) {
    throw step.error(e.what());
  }
  return out;
}

}  // namespace

StepWorkload read_step(const JsonValue& step, const SystemSpec& system, const WorkLimit& limit) {
  if (const auto generator = step.find("generator")) {
    return generator->as_choice({"dp", "3d", "moe"}) == "dp" ? read_dp(step, system, limit)
                                                             : read_3d(step, system, limit);
  }
  return read_phases(step, system);
}

std::vector<StepWorkload> read_jobs(const JsonValue& jobs,
                                    const SystemSpec& system,
                                    const WorkLimit& limit) {
  std::vector<StepWorkload> out;
  out.reserve(jobs.size());
  for (const JsonValue& job : jobs.elements()) {
    out.push_back(read_step(job, system, limit));
    for (std::size_t k = 0; k + 1 < out.size(); ++k) {
      for (const int node : out.back().nodes) {
        if (std::find(out[k].nodes.begin(), out[k].nodes.end(), node) != out[k].nodes.end()) {
          throw job.error(
              fmt::format("this job and job {} both run on node {}: give each job nodes of its own "
                          "(\"first_node\", \"nodes\")",
                          k, node));
        }
      }
    }
  }
  if (out.empty()) {
    throw jobs.error("expected at least one job");
  }
  return out;
}

StepFaults read_step_faults(const JsonValue& faults, const SystemSpec& system) {
  StepFaults out;
  out.file = faults.file();
  for (const JsonValue& fault : faults.elements()) {
    if (fault.contains("gpu")) {
      fault.expect_keys({"gpu", "compute_scale"});
      const JsonValue where = fault.at("gpu");
      const auto [node, element] = read_node_element(where, system.nodes);
      const auto gpus = static_cast<int>(system.node.gpus.size());
      int gpu = -1;
      if (element.rfind("gpu", 0) == 0 && element.size() > 3 && element.size() < 8 &&
          element.find_first_not_of("0123456789", 3) == std::string::npos) {
        gpu = std::stoi(element.substr(3));
      }
      if (gpu < 0 || gpu >= gpus) {
        throw where.error(
            fmt::format("expected a GPU such as \"n{}.gpu0\" (gpu0 to gpu{})", node, gpus - 1));
      }
      const JsonValue scale = fault.at("compute_scale");
      const double s = scale.as_number(1.0, 1000.0);
      out.stragglers.push_back({node, gpu, s});
    } else if (const auto node = fault.find("gdr_off_node")) {
      fault.expect_keys({"gdr_off_node"});
      out.gdr_off_nodes.push_back(static_cast<int>(node->as_integer(0, system.nodes - 1)));
    } else if (const auto parent = fault.find("parent")) {
      fault.expect_keys({"pcie", "parent"});
      const JsonValue where = fault.at("pcie");
      auto [n, element] = read_node_element(where, system.nodes);
      PcieMove move{n, std::move(element), read_pcie_parent(*parent, system.node)};
      SystemSpec check = system;
      try {
        move_pcie_device(check, move.node, move.element, move.parent);
      } catch (const sim::InputError& e) {
        throw where.error(e.what());
      }
      out.moved.push_back(std::move(move));
    } else {
      read_fault(fault, system, true, out.links);
    }
  }
  return out;
}

StepFaults load_step_faults(const std::string& path, const SystemSpec& system) {
  const JsonDocument document = load_json_file(path);
  const JsonValue root = document.root();
  root.expect_keys({"description", "faults"});
  return read_step_faults(root.at("faults"), system);
}

}  // namespace railsim::models::scenario
