// File: models/scenario/scenario_file.cpp
// The `workload` and `background` sections of a scenario file, read as the `system` section
// is: each value checked where it is written, so every error carries its JSON pointer.
#include "models/scenario/scenario_file.hpp"

#include "models/collective/nccl_tuner_tables.hpp"

#include <fmt/format.h>

namespace railsim::models::scenario {
namespace {

sim::Bytes read_positive_size(const JsonValue& value) {
  const sim::Bytes size = value.as_size();
  if (size.count < 1) {
    throw value.error(fmt::format("expected a size of at least 1 byte, got {}", size.count));
  }
  return size;
}

std::vector<BackgroundFlow> read_background(const JsonValue& background) {
  std::vector<BackgroundFlow> flows;
  const std::vector<JsonValue> elements = background.elements();
  flows.reserve(elements.size());
  for (const JsonValue& stream : elements) {
    stream.expect_keys({"from_node", "to_node", "load", "rails"});
    BackgroundFlow flow;
    flow.from_node = static_cast<int>(stream.at("from_node").as_integer(0));
    flow.to_node = static_cast<int>(stream.at("to_node").as_integer(0));
    const JsonValue load = stream.at("load");
    flow.load = load.as_number();
    if (!(flow.load > 0.0 && flow.load <= 1.0)) {
      throw load.error(
          fmt::format("expected a fraction of the port rate in (0, 1], got {}", flow.load));
    }
    if (const auto rails = stream.find("rails")) {
      for (const JsonValue& rail : rails->elements()) {
        flow.rails.push_back(static_cast<int>(rail.as_integer(0)));
      }
    }
    flow.where = fmt::format("{}: {}", stream.file(), stream.json_pointer());
    flows.push_back(flow);
  }
  return flows;
}

}  // namespace

CollectiveOp read_op(const JsonValue& value) {
  return value.as_enum<CollectiveOp>({{"all_reduce", CollectiveOp::kAllReduce},
                                      {"all_gather", CollectiveOp::kAllGather},
                                      {"reduce_scatter", CollectiveOp::kReduceScatter},
                                      {"broadcast", CollectiveOp::kBroadcast},
                                      {"reduce", CollectiveOp::kReduce},
                                      {"alltoall", CollectiveOp::kAllToAll},
                                      {"sendrecv", CollectiveOp::kSendRecv},
                                      {"gather", CollectiveOp::kGather},
                                      {"scatter", CollectiveOp::kScatter}});
}

void read_nccl(const JsonValue& nccl, CollectiveRequest& request) {
  nccl.expect_keys({"algo", "proto", "nchannels", "nchannels_per_net_peer", "cross_nic", "pxn",
                    "qps_per_connection", "exec"});
  if (const auto v = nccl.find("algo")) {
    request.algorithm = v->as_enum<AlgorithmSet>({{"ring", Algorithm::kRing},
                                                  {"tree", Algorithm::kTree},
                                                  {"nvls", Algorithm::kNvls},
                                                  {"nvlstree", Algorithm::kNvlsTree},
                                                  {"pat", Algorithm::kPat},
                                                  {"collnetdirect", Algorithm::kCollNetDirect},
                                                  {"collnetchain", Algorithm::kCollNetChain},
                                                  {"collnet", kCollNet}});
  }
  if (const auto v = nccl.find("proto")) {
    request.protocol = v->as_enum<Protocol>(
        {{"simple", Protocol::kSimple}, {"ll128", Protocol::kLl128}, {"ll", Protocol::kLl}});
  }
  if (const auto v = nccl.find("nchannels")) {
    request.channels = static_cast<int>(v->as_integer(1, nccl::kMaxChannels));
  }
  if (const auto v = nccl.find("nchannels_per_net_peer")) {
    request.channels_per_net_peer = static_cast<int>(v->as_integer(1, nccl::kMaxChannels));
  }
  if (const auto v = nccl.find("cross_nic")) {
    request.cross_nic = static_cast<int>(v->as_integer(0, 2));
  }
  if (const auto v = nccl.find("pxn")) {
    request.pxn = v->as_bool();
  }
  if (const auto v = nccl.find("qps_per_connection")) {
    request.qps_per_connection = static_cast<int>(v->as_integer(1, 128));
  }
  if (const auto v = nccl.find("exec")) {
    request.execution =
        v->as_enum<Execution>({{"chunk", Execution::kChunk}, {"pipelined", Execution::kPipelined}});
  }
}

CollectiveWorkload read_workload(const JsonValue& workload, const SystemSpec& system) {
  workload.expect_keys(
      {"op", "size", "minbytes", "maxbytes", "stepfactor", "nodes", "gpus_per_node", "nccl"});
  CollectiveWorkload out;
  out.request.op = read_op(workload.at("op"));
  const auto size = workload.find("size");
  const auto min = workload.find("minbytes");
  const auto max = workload.find("maxbytes");
  if (size && (min || max)) {
    throw(min ? *min : *max).error(R"(give either "size" or "minbytes"/"maxbytes", not both)");
  }
  if (size) {
    out.min_size = out.max_size = read_positive_size(*size);
  } else {
    if (!min || !max) {
      throw workload.error(R"(expected "size", or "minbytes" and "maxbytes")");
    }
    out.min_size = read_positive_size(*min);
    out.max_size = read_positive_size(*max);
    if (out.max_size < out.min_size) {
      throw max->error(
          fmt::format("{} B is below minbytes ({} B)", out.max_size.count, out.min_size.count));
    }
  }
  if (const auto v = workload.find("stepfactor")) {
    out.factor = v->as_integer(2, 1024);
  }
  if (const auto v = workload.find("nodes")) {
    out.nodes = static_cast<int>(v->as_integer(1, system.nodes));
  }
  if (const auto v = workload.find("gpus_per_node")) {
    out.gpus_per_node =
        static_cast<int>(v->as_integer(1, static_cast<std::int64_t>(system.node.gpus.size())));
  }
  if (const auto v = workload.find("nccl")) {
    read_nccl(*v, out.request);
  }
  return out;
}

ScenarioFile load_scenario_file(const std::string& path) {
  const JsonDocument document = load_json_file(path);
  return read_scenario(document.root());
}

ScenarioFile read_scenario(const JsonValue& root) {
  ScenarioFile out;
  out.system = read_system(root);
  if (const auto v = root.find("workload")) {
    out.workload = read_workload(*v, out.system.system);
  }
  if (const auto v = root.find("background")) {
    out.background = read_background(*v);
  }
  out.has_step = root.find("step").has_value();
  return out;
}

ScenarioFile scenario_from_argument(const std::string& preset_or_file) {
  const std::string_view suffix = ".json";
  if (preset_or_file.size() >= suffix.size() &&
      preset_or_file.compare(preset_or_file.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return load_scenario_file(preset_or_file);
  }
  ScenarioFile out;
  out.system = system_from_argument(preset_or_file);
  return out;
}

}  // namespace railsim::models::scenario
