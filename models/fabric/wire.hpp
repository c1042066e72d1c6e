// File: models/fabric/wire.hpp
// Wire efficiency: the share of a port's data rate left for payload once every packet carries
// its headers. InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B per packet. RoCEv2: Ethernet
// 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble, SFD and inter-frame gap 20 = 82 B
// (InfiniBand Architecture Specification headers, IEEE 802.3 framing; RETH's 16 B ride only on a
// write's first packet and are left out).
#pragma once

#include "models/hardware/node_spec.hpp"

namespace railsim::models {

inline constexpr int kInfinibandHeaderBytes = 26;
inline constexpr int kRoceHeaderBytes = 82;

// Payload / (payload + headers) for full packets of `mtu_bytes`; throws sim::InputError for an
// MTU that is not one of 256, 512, 1024, 2048, 4096 (InfiniBand) or up to 9000 (RoCEv2).
double wire_efficiency(Transport transport, int mtu_bytes);

}  // namespace railsim::models
