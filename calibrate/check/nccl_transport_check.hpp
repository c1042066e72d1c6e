// File: calibrate/check/nccl_transport_check.hpp
// The transport NCCL chose, as a log run with NCCL_DEBUG=INFO shows it (parse/nccl_debug.hpp),
// against the design (layer nccl):
//   network         a job across nodes runs over an RDMA network (IB, or a plugin such as AWS
//                   Libfabric), not TCP sockets: "Using network Socket" means NCCL found no
//                   usable RDMA device.
//   GPUDirect RDMA  where the design has the job's GPUs reach their nearest NIC with GPUDirect
//                   RDMA (a GDR-capable NIC within the GDR level, the node not marked GDR-off),
//                   its inter-node connections say /GDRDMA; without it every byte is staged
//                   through host memory.
// A log without INFO lines gives skipped findings that say how to get them.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "models/system/system.hpp"

#include <vector>

namespace railsim::calibrate::check {

void check_nccl_transport(const parse::NcclEvidence& run,
                          const models::SystemSpec& design,
                          std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
