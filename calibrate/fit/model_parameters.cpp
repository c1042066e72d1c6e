// File: calibrate/fit/model_parameters.cpp
#include "calibrate/fit/model_parameters.hpp"

#include "models/collective/nccl_tuning.hpp"
#include "models/collective/p2p_plan.hpp"
#include "sim/time.hpp"

#include <array>
#include <cstddef>
#include <optional>

namespace railsim::calibrate::fit {
namespace {

using models::Protocol;

// NIC parameters are read from the first NIC and written to all: the fit sees one server type.
const models::Nic& first_nic(const CalibratedModel& m) { return m.system.node.nics.front(); }

template <typename Apply>
void each_nic(CalibratedModel& m, Apply apply) {
  for (models::Nic& nic : m.system.node.nics) {
    apply(nic);
  }
}

double us_of(sim::Duration d) { return sim::to_us(d); }

sim::Duration from_us(double us) { return sim::us(us); }

// The profile's NVLS share, else NCCL's for the node's GPUs (0 before Hopper: no NVLS).
double nvls_share(const CalibratedModel& m) {
  if (m.collective.nvls_efficiency) {
    return *m.collective.nvls_efficiency;
  }
  const std::optional<models::GpuArch> arch = models::gpu_arch_of(m.system.node.gpus.front().model);
  return arch ? models::nvls_efficiency(*arch) : 0.0;
}

template <Protocol P>
double step_us(const CalibratedModel& m) {
  return us_of(m.collective.step(P));
}

template <Protocol P>
void set_step_us(CalibratedModel& m, double us) {
  m.collective.step_latency[static_cast<std::size_t>(P)] = from_us(us);
}

// The profile's p2p channel rate, else NCCL's, GB/s.
double p2p_channel_rate(const CalibratedModel& m) {
  return m.collective.p2p_channel_GBps.value_or(models::kP2pChannelNetBytesPerS * 1e-9);
}

constexpr std::array<ModelParameter, 16> kParameters = {{
    {"nvlink_efficiency", "fraction",
     "achieved / line rate of NVLink for collective traffic (NvlinkDomain::efficiency)", 0.2, 1.0,
     1e-2, false, [](const CalibratedModel& m) { return m.system.node.nvlink.efficiency; },
     [](CalibratedModel& m, double v) { m.system.node.nvlink.efficiency = v; }},
    {"pcie_efficiency", "fraction",
     "effective / raw rate of every PCIe link of the node (NodeSpec::pcie_efficiency)", 0.2, 1.0,
     1e-2, false, [](const CalibratedModel& m) { return m.system.node.pcie_efficiency; },
     [](CalibratedModel& m, double v) { m.system.node.pcie_efficiency = v; }},
    {"nic_efficiency", "fraction",
     "achieved / modelled payload rate of a NIC port (Nic::bandwidth_efficiency)", 0.2, 1.0, 1e-2,
     false, [](const CalibratedModel& m) { return first_nic(m).bandwidth_efficiency; },
     [](CalibratedModel& m, double v) {
       each_nic(m, [v](models::Nic& nic) { nic.bandwidth_efficiency = v; });
     }},
    {"nic_message_rate_Mps", "M messages/s",
     "messages per second one queue pair sustains (Nic::message_rate_per_qp)", 0.05, 500.0, 0.1,
     false, [](const CalibratedModel& m) { return first_nic(m).message_rate_per_qp * 1e-6; },
     [](CalibratedModel& m, double v) {
       each_nic(m, [v](models::Nic& nic) { nic.message_rate_per_qp = v * 1e6; });
     }},
    {"nic_processing_latency_us", "us",
     "time a NIC adds at each end of a one-way message (Nic::processing_latency)", 0.0, 50.0, 0.1,
     true, [](const CalibratedModel& m) { return us_of(first_nic(m).processing_latency); },
     [](CalibratedModel& m, double v) {
       each_nic(m, [v](models::Nic& nic) { nic.processing_latency = from_us(v); });
     }},
    {"nic_dma_read_latency_us", "us",
     "time a sending NIC takes to fetch a payload not posted inline (Nic::dma_read_latency)", 0.0,
     50.0, 0.1, true, [](const CalibratedModel& m) { return us_of(first_nic(m).dma_read_latency); },
     [](CalibratedModel& m, double v) {
       each_nic(m, [v](models::Nic& nic) { nic.dma_read_latency = from_us(v); });
     }},
    {"leaf_uplink_efficiency", "fraction",
     "achieved / line rate of every leaf-spine cable (FabricSpec::uplink_efficiency)", 0.05, 1.0,
     1e-2, false, [](const CalibratedModel& m) { return m.system.fabric.uplink_efficiency; },
     [](CalibratedModel& m, double v) { m.system.fabric.uplink_efficiency = v; }},
    {"core_uplink_efficiency", "fraction",
     "achieved / line rate of every spine-core cable (FabricSpec::core_uplink_efficiency)", 0.05,
     1.0, 1e-2, false,
     [](const CalibratedModel& m) { return m.system.fabric.core_uplink_efficiency; },
     [](CalibratedModel& m, double v) { m.system.fabric.core_uplink_efficiency = v; }},
    {"switch_latency_us", "us",
     "port-to-port latency of every fabric switch (FabricSpec::switch_latency)", 0.0, 10.0, 0.01,
     true, [](const CalibratedModel& m) { return us_of(m.system.fabric.switch_latency); },
     [](CalibratedModel& m, double v) { m.system.fabric.switch_latency = from_us(v); }},
    {"nvls_efficiency", "fraction",
     "share of the NVLink rate NVLS multimem traffic achieves (CollectiveCalibration)", 0.2, 1.0,
     1e-2, false, nvls_share,
     [](CalibratedModel& m, double v) { m.collective.nvls_efficiency = v; }},
    {"collective_base_latency_us", "us",
     "added once per collective call to NCCL's base latency (CollectiveCalibration)", 0.0, 1000.0,
     1.0, true, [](const CalibratedModel& m) { return us_of(m.collective.base_latency); },
     [](CalibratedModel& m, double v) { m.collective.base_latency = from_us(v); }},
    {"p2p_channel_GBps", "GB/s",
     "payload one point-to-point channel moves over the network (CollectiveCalibration)", 1.0,
     200.0, 0.1, false, p2p_channel_rate,
     [](CalibratedModel& m, double v) { m.collective.p2p_channel_GBps = v; }},
    {"p2p_net_efficiency", "fraction",
     "share of its binding rate a point-to-point stream achieves (CollectiveCalibration)", 0.2, 1.0,
     1e-2, false, [](const CalibratedModel& m) { return m.collective.p2p_net_efficiency; },
     [](CalibratedModel& m, double v) { m.collective.p2p_net_efficiency = v; }},
    {"simple_step_latency_us", "us",
     "added to every step of every hop of the Simple protocol (CollectiveCalibration)", 0.0, 100.0,
     0.1, false, step_us<Protocol::kSimple>, set_step_us<Protocol::kSimple>},
    {"ll128_step_latency_us", "us",
     "added to every step of every hop of the LL128 protocol (CollectiveCalibration)", 0.0, 100.0,
     0.1, false, step_us<Protocol::kLl128>, set_step_us<Protocol::kLl128>},
    {"ll_step_latency_us", "us",
     "added to every step of every hop of the LL protocol (CollectiveCalibration)", 0.0, 100.0, 0.1,
     false, step_us<Protocol::kLl>, set_step_us<Protocol::kLl>},
}};

}  // namespace

std::span<const ModelParameter> model_parameters() { return kParameters; }

const ModelParameter* find_model_parameter(std::string_view name) {
  for (const ModelParameter& p : kParameters) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

}  // namespace railsim::calibrate::fit
