// File: calibrate/check/nccl_setup_check.cpp
#include "calibrate/check/nccl_setup_check.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "calibrate/parse/text_input.hpp"
#include "models/collective/collective_run.hpp"
#include "models/collective/nccl_tuning.hpp"
#include "models/hardware/path_class.hpp"
#include "sim/flow_network.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <optional>
#include <string>

namespace railsim::calibrate::check {
namespace {

using parse::NcclDebugFacts;
using parse::NcclEvidence;
using parse::NcclTransport;

constexpr const char* kRerunWithInfo =
    "the log has no NCCL_DEBUG=INFO lines: rerun the job with NCCL_DEBUG=INFO to see NCCL's "
    "network and transports";

Finding finding(const NcclEvidence& run, const char* check) {
  return {CheckLayer::kNccl, check,           run.label, run.log.file, "", "",
          Verdict::kSkipped, Severity::kNone, ""};
}

// The job's nodes: its log's or manifest's, or the INFO lines' hosts where they name more.
int job_nodes(const NcclEvidence& run) {
  return static_cast<int>(std::max(run.nodes.size(), run.log.output.debug.hosts.size()));
}

void check_network(const NcclEvidence& run, std::vector<Finding>& out) {
  Finding f = finding(run, "network");
  const NcclDebugFacts& debug = run.log.output.debug;
  if (!debug.network) {
    f.next = debug.empty() ? kRerunWithInfo : "the INFO lines do not say 'Using network'";
    out.push_back(std::move(f));
    return;
  }
  f.evidence = parse::place(run.log.file, debug.network->line);
  f.expected = "an RDMA network (IB, or a plugin such as AWS Libfabric), not TCP sockets";
  f.measured = "Using network " + debug.network->value;
  f.verdict = Verdict::kPass;
  if (debug.network->value == "Socket" && job_nodes(run) > 1) {
    f.fail(Severity::kMajor,
           run.env_value("NCCL_IB_DISABLE").value_or("0") != "0"
               ? "the job set NCCL_IB_DISABLE, so NCCL used TCP: unset it"
               : "NCCL found no usable RDMA device and fell back to TCP: check that the NICs "
                 "are up (ibstat), that NCCL_IB_HCA names them, and that the verbs library and "
                 "any NCCL net plugin are in the job's environment");
  }
  out.push_back(std::move(f));
}

// Whether the design has GPU `gpu` reach its nearest compute NIC with GPUDirect RDMA.
bool design_uses_gdr(const NcclEvidence& run, const models::SystemSpec& design, int gpu) {
  const models::NodeSpec& node = design.node;
  const models::PathClass level = job_gdr_level(run, design);
  models::PathClass best = models::PathClass::kSys;
  bool capable = false;
  for (std::size_t n = 0; n < node.nics.size(); ++n) {
    if (node.nics[n].role != models::NicRole::kCompute) {
      continue;
    }
    const models::PathClass c =
        models::pcie_path_class(node, {models::DeviceRef::Kind::kGpu, gpu},
                                {models::DeviceRef::Kind::kNic, static_cast<int>(n)});
    if (c < best || (c == best && !capable)) {
      best = c;
      capable = node.nics[n].gdr_capable;
    }
  }
  return capable && best <= level && design.gdr_off_nodes.empty();
}

void check_gdr(const NcclEvidence& run,
               const models::SystemSpec& design,
               std::vector<Finding>& out) {
  Finding f = finding(run, "GPUDirect RDMA");
  const NcclDebugFacts& debug = run.log.output.debug;
  const auto net = std::find_if(debug.transports.begin(), debug.transports.end(),
                                [](const NcclTransport& t) { return t.kind == "NET"; });
  if (net == debug.transports.end()) {
    f.next = debug.empty() ? kRerunWithInfo : "no connection of the log crossed the network";
    out.push_back(std::move(f));
    return;
  }
  const auto gdr = std::find_if(debug.transports.begin(), debug.transports.end(),
                                [](const NcclTransport& t) { return t.kind == "NET" && t.gdr; });
  const int gpu = run.gpus.empty() ? 0 : run.gpus.front();
  const bool expected =
      gpu < static_cast<int>(design.node.gpus.size()) && design_uses_gdr(run, design, gpu);
  const NcclTransport& shown = gdr != debug.transports.end() ? *gdr : *net;
  f.evidence = parse::place(run.log.file, shown.line);
  f.expected = expected ? "inter-node connections with GPUDirect RDMA (via NET/.../GDRDMA)"
                        : "GPUDirect RDMA not required (the design stages through host memory)";
  f.measured = fmt::format("via NET/{}{} ({} connection{})", shown.detail,
                           shown.gdr ? "/GDRDMA" : " without GDRDMA", shown.connections,
                           shown.connections == 1 ? "" : "s");
  f.verdict = Verdict::kPass;
  if (expected && gdr == debug.transports.end()) {
    f.fail(Severity::kMajor,
           "NCCL stages every inter-node byte through host memory: check that the GPU "
           "peer-memory module is loaded (lsmod | grep peermem, or dma-buf support), "
           "NCCL_NET_GDR_LEVEL, and that ACS is off on the PCIe switches");
  }
  out.push_back(std::move(f));
}

// The bound the job set through the first of `names` it gave as an integer: NCCL has spelt the
// channel bounds NCCL_{MIN,MAX}_NRINGS, NCCL_{MIN,MAX}_NCHANNELS and NCCL_{MIN,MAX}_CTAS.
std::optional<int> env_bound(const NcclEvidence& run, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const std::optional<std::string> value = run.env_value(name);
    int n = 0;
    if (value &&
        std::from_chars(value->data(), value->data() + value->size(), n).ec == std::errc{}) {
      return n;
    }
  }
  return std::nullopt;
}

// The channels NCCL's graph search finds on the design for the job's nodes and GPUs, or why
// the model cannot say.
struct DesignChannels {
  std::optional<int> channels;
  std::string why_not;
};

DesignChannels design_channels(const NcclEvidence& run, const models::SystemSpec& design) {
  const int nodes = job_nodes(run);
  if (nodes == 0 || run.gpus.empty()) {
    return {std::nullopt, std::string(kUnknownJobShape)};
  }
  const int design_gpus = static_cast<int>(design.node.gpus.size());
  if (std::any_of(run.gpus.begin(), run.gpus.end(),
                  [&](int g) { return g < 0 || g >= design_gpus; })) {
    return {std::nullopt,
            fmt::format("the job used GPUs the design's {}-GPU node does not have", design_gpus)};
  }
  models::SystemSpec spec = design;
  spec.nodes = std::max(spec.nodes, nodes);
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const models::System system(spec, network);
  const models::Communicator comm{nodes, static_cast<int>(run.gpus.size()), {}, run.gpus};
  try {
    return {models::comm_channels(models::tuning_topology(system, comm), models::Algorithm::kRing),
            ""};
  } catch (const sim::InputError& e) {
    return {std::nullopt, e.what()};
  }
}

void check_channels(const NcclEvidence& run,
                    const models::SystemSpec& design,
                    std::vector<Finding>& out) {
  Finding f = finding(run, "channels");
  const NcclDebugFacts& debug = run.log.output.debug;
  if (!debug.channels) {
    f.next = debug.empty() ? kRerunWithInfo
                           : "the INFO lines do not say how many channels NCCL set up ('coll "
                             "channels' or 'Channel 00/NN')";
    out.push_back(std::move(f));
    return;
  }
  const DesignChannels found = design_channels(run, design);
  if (!found.channels) {
    f.next = found.why_not;
    out.push_back(std::move(f));
    return;
  }
  int expected = *found.channels;
  std::string bounds;
  if (const std::optional<int> low =
          env_bound(run, {"NCCL_MIN_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MIN_NRINGS"});
      low && *low > expected) {
    expected = *low;
    bounds = fmt::format(", raised to the job's NCCL_MIN_NCHANNELS {}", *low);
  }
  if (const std::optional<int> high =
          env_bound(run, {"NCCL_MAX_NCHANNELS", "NCCL_MAX_CTAS", "NCCL_MAX_NRINGS"});
      high && *high > 0 && *high < expected) {
    expected = *high;
    bounds = fmt::format(", capped by the job's NCCL_MAX_NCHANNELS {}", *high);
  }
  f.evidence = parse::place(run.log.file, debug.channels->line);
  f.expected = fmt::format(
      "at least {} channel{}, as NCCL's graph search finds on the design for {} x {} GPUs{}",
      expected, expected == 1 ? "" : "s", job_nodes(run), run.gpus.size(), bounds);
  f.measured =
      fmt::format("{} channel{}", debug.channels->value, debug.channels->value == 1 ? "" : "s");
  f.verdict = Verdict::kPass;
  if (debug.channels->value < expected) {
    f.fail(Severity::kMinor,
           "NCCL set up fewer channels than the design gives it, which can leave NICs idle: "
           "check that every NIC is up (ibstat) and listed in the INFO lines' 'NET/IB : Using', "
           "that NCCL_IB_HCA names all of them, and the job's NCCL_MAX_NCHANNELS; the busbw "
           "check says whether it cost bandwidth");
  }
  out.push_back(std::move(f));
}

}  // namespace

void check_nccl_setup(const NcclEvidence& run,
                      const models::SystemSpec& design,
                      std::vector<Finding>& out) {
  check_network(run, out);
  check_gdr(run, design, out);
  check_channels(run, design, out);
}

}  // namespace railsim::calibrate::check
