// File: calibrate/check/nccl_setup_check.hpp
// How NCCL set itself up, as a log run with NCCL_DEBUG=INFO shows it (parse/nccl_debug.hpp),
// against the design (layer nccl):
//   network         a job across nodes runs over an RDMA network (IB, or a plugin such as AWS
//                   Libfabric), not TCP sockets: "Using network Socket" means NCCL found no
//                   usable RDMA device.
//   GPUDirect RDMA  where the design has the job's GPUs reach their nearest NIC with GPUDirect
//                   RDMA (a GDR-capable NIC within the GDR level, the node not marked GDR-off),
//                   its inter-node connections say /GDRDMA; without it every byte is staged
//                   through host memory.
//   channels        the communicator's channels ("8 coll channels", or the ring lines' "Channel
//                   00/08") are at least those NCCL's graph search finds on the design for the
//                   job's nodes and GPUs (models/collective/nccl_tuning.hpp), within the bounds
//                   the job set (NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS). Each channel drives its
//                   rings through one NIC, so fewer channels is what a NIC NCCL did not find, an
//                   NCCL_IB_HCA that leaves NICs out, or a cap in the job's environment look
//                   like; whether it cost bandwidth is the busbw check's to say.
// A log without INFO lines gives skipped findings that say how to get them.
#pragma once

#include "calibrate/check/check_finding.hpp"
#include "calibrate/parse/cluster_evidence.hpp"
#include "models/system/system.hpp"

#include <vector>

namespace railsim::calibrate::check {

void check_nccl_setup(const parse::NcclEvidence& run,
                      const models::SystemSpec& design,
                      std::vector<Finding>& out);

}  // namespace railsim::calibrate::check
