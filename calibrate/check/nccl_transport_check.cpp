// File: calibrate/check/nccl_transport_check.cpp
#include "calibrate/check/nccl_transport_check.hpp"

#include "calibrate/check/nccl_run_check.hpp"
#include "calibrate/parse/text_input.hpp"
#include "models/hardware/path_class.hpp"

#include <fmt/format.h>

#include <algorithm>
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

// Whether the job spans nodes: its log's or manifest's nodes, else the INFO lines' hosts.
bool across_nodes(const NcclEvidence& run) {
  return run.nodes.size() > 1 || run.log.output.debug.hosts.size() > 1;
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
  if (debug.network->value != "Socket" || !across_nodes(run)) {
    f.verdict = Verdict::kPass;
    out.push_back(std::move(f));
    return;
  }
  f.fail(Severity::kMajor,
         run.env_value("NCCL_IB_DISABLE").value_or("0") != "0"
             ? "the job set NCCL_IB_DISABLE, so NCCL used TCP: unset it"
             : "NCCL found no usable RDMA device and fell back to TCP: check that the NICs "
               "are up (ibstat), that NCCL_IB_HCA names them, and that the verbs library and "
               "any NCCL net plugin are in the job's environment");
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
  if (!expected || gdr != debug.transports.end()) {
    f.verdict = Verdict::kPass;
    out.push_back(std::move(f));
    return;
  }
  f.fail(Severity::kMajor,
         "NCCL stages every inter-node byte through host memory: check that the GPU peer-memory "
         "module is loaded (lsmod | grep peermem, or dma-buf support), NCCL_NET_GDR_LEVEL, and "
         "that ACS is off on the PCIe switches");
  out.push_back(std::move(f));
}

}  // namespace

void check_nccl_transport(const NcclEvidence& run,
                          const models::SystemSpec& design,
                          std::vector<Finding>& out) {
  check_network(run, out);
  check_gdr(run, design, out);
}

}  // namespace railsim::calibrate::check
