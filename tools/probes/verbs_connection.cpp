// File: tools/probes/verbs_connection.cpp
// Queue-pair attributes are the usual ones for a reliable connection between two ports: the
// path MTU is the port's active MTU, the retry counts their maximum (7), the local ACK timeout
// 14 (4.096 us x 2^14, about 67 ms), one outstanding RDMA read or atomic (none are used).
#include "tools/probes/verbs_connection.hpp"

#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace railsim::tools::probes {
namespace {

constexpr std::size_t kPage = 4096;

[[noreturn]] void fail_call(std::string_view call, std::string_view device, int error) {
  throw ProbeFailure(fmt::format("{} on {} failed: {}", call, device, std::strerror(error)));
}

int mtu_bytes(ibv_mtu mtu) { return 128 << static_cast<int>(mtu); }

// The device named `name`, or the first one when `name` is empty; opened.
ibv_context* open_device(const std::string& name, std::string& found_name) {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (list == nullptr || count == 0) {
    if (list != nullptr) {
      ibv_free_device_list(list);
    }
    throw ProbeFailure(
        "no RDMA device found (is the driver loaded? `ibv_devices` and `ibstat` list them)");
  }
  std::vector<std::string> names;
  ibv_device* chosen = nullptr;
  for (int i = 0; i < count; ++i) {
    names.emplace_back(ibv_get_device_name(list[i]));
    if (chosen == nullptr && (name.empty() || names.back() == name)) {
      chosen = list[i];
    }
  }
  if (chosen == nullptr) {
    ibv_free_device_list(list);
    throw ProbeFailure(fmt::format("--device: no RDMA device '{}' (this host has {})", name,
                                   fmt::join(names, ", ")));
  }
  found_name = ibv_get_device_name(chosen);
  ibv_context* context = ibv_open_device(chosen);
  const int error = errno;
  ibv_free_device_list(list);
  if (context == nullptr) {
    fail_call("ibv_open_device", found_name, error);
  }
  return context;
}

}  // namespace

VerbsConnection::VerbsConnection(const VerbsOptions& options, std::size_t region_bytes)
    : ib_port_(options.ib_port),
      gid_index_(options.gid_index),
      tx_depth_(options.tx_depth),
      cq_mod_(options.signal_every),
      region_bytes_((region_bytes + kPage - 1) / kPage * kPage) {
  context_.reset(open_device(options.device, device_name_));
  const int port_error =
      ibv_query_port(context_.get(), static_cast<std::uint8_t>(ib_port_), &port_);
  if (port_error != 0) {
    throw ProbeFailure(fmt::format("--ib-port: port {} of {} cannot be queried: {}", ib_port_,
                                   device_name_, std::strerror(port_error)));
  }
  if (port_.state != IBV_PORT_ACTIVE) {
    throw ProbeFailure(
        fmt::format("port {} of {} is {}, not ACTIVE (see `ibstat {}`: State and Physical state)",
                    ib_port_, device_name_, ibv_port_state_str(port_.state), device_name_));
  }
  if (port_.link_layer == IBV_LINK_LAYER_ETHERNET && gid_index_ < 0) {
    throw ProbeFailure(fmt::format(
        "port {} of {} is Ethernet (RoCE): give --gid-index (`show_gids` lists them; RoCE v2 "
        "over IPv4 is often 3)",
        ib_port_, device_name_));
  }
  if (gid_index_ >= 0 &&
      ibv_query_gid(context_.get(), static_cast<std::uint8_t>(ib_port_), gid_index_, &gid_) != 0) {
    throw ProbeFailure(fmt::format("--gid-index: {} is not a GID of port {} of {}", gid_index_,
                                   ib_port_, device_name_));
  }
  pd_.reset(ibv_alloc_pd(context_.get()));
  if (!pd_) {
    fail_call("ibv_alloc_pd", device_name_, errno);
  }
  buffer_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(kPage, 2 * region_bytes_)));
  if (!buffer_) {
    throw ProbeFailure(fmt::format("cannot allocate {} bytes of buffer", 2 * region_bytes_));
  }
  std::memset(buffer_.get(), 0, 2 * region_bytes_);
  mr_.reset(ibv_reg_mr(pd_.get(), buffer_.get(), 2 * region_bytes_,
                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  if (!mr_) {
    fail_call("ibv_reg_mr", device_name_, errno);
  }
  cq_.reset(ibv_create_cq(context_.get(), tx_depth_ + 1, nullptr, nullptr, 0));
  if (!cq_) {
    fail_call("ibv_create_cq", device_name_, errno);
  }
  ibv_qp_init_attr init{};
  init.send_cq = cq_.get();
  init.recv_cq = cq_.get();
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = 0;  // only the writes asked for complete on the CQ (--cq-mod)
  init.cap.max_send_wr = static_cast<std::uint32_t>(tx_depth_);
  init.cap.max_recv_wr = 1;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_.reset(ibv_create_qp(pd_.get(), &init));
  if (!qp_) {
    fail_call("ibv_create_qp", device_name_, errno);
  }
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = static_cast<std::uint8_t>(ib_port_);
  attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  const int error = ibv_modify_qp(
      qp_.get(), &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  if (error != 0) {
    fail_call("ibv_modify_qp (to INIT)", device_name_, error);
  }
  // A fresh PSN per run, so that packets of an earlier connection are not taken for this one's.
  std::random_device random;
  psn_ = random() & 0xffffffU;
}

QpEndpoint VerbsConnection::local_endpoint() const {
  QpEndpoint endpoint;
  endpoint.lid = port_.lid;
  endpoint.qp_num = qp_->qp_num;
  endpoint.psn = psn_;
  endpoint.rkey = mr_->rkey;
  endpoint.addr = reinterpret_cast<std::uintptr_t>(receive_region());
  endpoint.buffer_bytes = region_bytes_;
  std::memcpy(endpoint.gid.data(), gid_.raw, endpoint.gid.size());
  return endpoint;
}

void VerbsConnection::connect(const QpEndpoint& remote) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = port_.active_mtu;
  attr.dest_qp_num = remote.qp_num;
  attr.rq_psn = remote.psn;
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = 12;
  attr.ah_attr.dlid = remote.lid;
  attr.ah_attr.sl = 0;
  attr.ah_attr.src_path_bits = 0;
  attr.ah_attr.port_num = static_cast<std::uint8_t>(ib_port_);
  if (gid_index_ >= 0) {
    attr.ah_attr.is_global = 1;
    std::memcpy(attr.ah_attr.grh.dgid.raw, remote.gid.data(), remote.gid.size());
    attr.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(gid_index_);
    attr.ah_attr.grh.hop_limit = 64;
  }
  int error = ibv_modify_qp(qp_.get(), &attr,
                            IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  if (error != 0) {
    fail_call("ibv_modify_qp (to RTR: is the peer's LID or GID reachable from this port?)",
              device_name_, error);
  }
  attr = ibv_qp_attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = 14;
  attr.retry_cnt = 7;
  attr.rnr_retry = 7;
  attr.sq_psn = psn_;
  attr.max_rd_atomic = 1;
  error = ibv_modify_qp(qp_.get(), &attr,
                        IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                            IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
  if (error != 0) {
    fail_call("ibv_modify_qp (to RTS)", device_name_, error);
  }
}

VerbsRunInfo VerbsConnection::run_info(const QpEndpoint& local, const QpEndpoint& remote) const {
  VerbsRunInfo info;
  info.device = device_name_;
  info.ib_port = ib_port_;
  info.link_layer = port_.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "IB";
  info.mtu_bytes = mtu_bytes(port_.active_mtu);
  info.gid_index = gid_index_;
  info.tx_depth = tx_depth_;
  info.cq_mod = cq_mod_;
  info.local = local;
  info.remote = remote;
  return info;
}

}  // namespace railsim::tools::probes
