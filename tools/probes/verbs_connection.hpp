// File: tools/probes/verbs_connection.hpp
// VerbsConnection: one RC queue pair on one port of an RDMA device, with its protection domain,
// completion queue and one registered buffer: a receive region the peer writes into and a send
// region it writes from (the latency test needs them apart, since each side polls its receive
// region's last byte while it prepares the next send). Owns every verbs object; a refused call
// is a ProbeFailure naming the call and the device.
#pragma once

#include "tools/probes/qp_endpoint.hpp"
#include "tools/probes/verbs_options.hpp"
#include "tools/probes/verbs_report.hpp"

#include <cstddef>
#include <cstdint>
#include <infiniband/verbs.h>
#include <memory>

namespace railsim::tools::probes {

class VerbsConnection {
 public:
  // Opens the device and port the options name, checks that the port is active (and has a GID
  // on RoCE), and creates the queue pair in INIT with regions of `region_bytes` each.
  VerbsConnection(const VerbsOptions& options, std::size_t region_bytes);

  // This side's half of the out-of-band exchange (without the settings word).
  QpEndpoint local_endpoint() const;

  // Moves the queue pair to RTR, then RTS, towards `remote`.
  void connect(const QpEndpoint& remote);

  VerbsRunInfo run_info(const QpEndpoint& local, const QpEndpoint& remote) const;

  ibv_qp* qp() const { return qp_.get(); }

  ibv_cq* cq() const { return cq_.get(); }

  std::uint32_t lkey() const { return mr_->lkey; }

  std::uint8_t* receive_region() const { return buffer_.get(); }

  std::uint8_t* send_region() const { return buffer_.get() + region_bytes_; }

 private:
  struct Deleter {
    void operator()(ibv_context* p) const { ibv_close_device(p); }

    void operator()(ibv_pd* p) const { ibv_dealloc_pd(p); }

    void operator()(ibv_mr* p) const { ibv_dereg_mr(p); }

    void operator()(ibv_cq* p) const { ibv_destroy_cq(p); }

    void operator()(ibv_qp* p) const { ibv_destroy_qp(p); }

    void operator()(std::uint8_t* p) const { std::free(p); }
  };

  std::string device_name_;
  int ib_port_ = 1;
  int gid_index_ = -1;
  int tx_depth_ = 1;
  int cq_mod_ = 1;
  ibv_port_attr port_{};
  ibv_gid gid_{};
  std::uint32_t psn_ = 0;
  std::size_t region_bytes_ = 0;
  // Declared in the order they are created; destroyed in reverse, as verbs requires.
  std::unique_ptr<ibv_context, Deleter> context_;
  std::unique_ptr<ibv_pd, Deleter> pd_;
  std::unique_ptr<std::uint8_t, Deleter> buffer_;
  std::unique_ptr<ibv_mr, Deleter> mr_;
  std::unique_ptr<ibv_cq, Deleter> cq_;
  std::unique_ptr<ibv_qp, Deleter> qp_;
};

}  // namespace railsim::tools::probes
