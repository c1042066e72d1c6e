// File: tools/probes/qp_endpoint.hpp
// QpEndpoint: what each side of an RC connection must learn from the other before its queue
// pair can reach RTR and RTS (QP number, LID, GID, PSN, and the rkey and address of the buffer
// the peer may write), plus the run's settings, so that a server and a client started with
// different sizes fail at once instead of waiting on each other. It travels as one text line
// over the out-of-band TCP connection: readable in a packet capture, and independent of the
// two hosts' byte order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace railsim::tools::probes {

struct QpEndpoint {
  std::uint16_t lid = 0;     // 0 on RoCE, where the GID addresses the port
  std::uint32_t qp_num = 0;  // 24 bits
  std::uint32_t psn = 0;     // first packet sequence number, 24 bits
  std::uint32_t rkey = 0;
  std::uint64_t addr = 0;                 // virtual address of the registered buffer
  std::uint64_t buffer_bytes = 0;         // its length
  std::array<std::uint8_t, 16> gid = {};  // all zero on InfiniBand without a GRH
  std::string settings;                   // what was measured how; no white space

  friend bool operator==(const QpEndpoint&, const QpEndpoint&) = default;
};

// "railsim-probe-verbs/1 lid=0x0040 qpn=0x00038d ... gid=fe80...0001 settings=..." (no newline).
std::string encode_endpoint(const QpEndpoint& endpoint);

// The endpoint in `line`; a ProbeFailure naming the field when anything is missing, malformed
// or out of range, or when the line comes from another program or version.
QpEndpoint decode_endpoint(std::string_view line);

// The GID as ibv_devinfo prints it: eight groups of four hex digits ("fe80:0000:...:0001").
std::string gid_text(const std::array<std::uint8_t, 16>& gid);

}  // namespace railsim::tools::probes
