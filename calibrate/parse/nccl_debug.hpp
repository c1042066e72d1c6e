// File: calibrate/parse/nccl_debug.hpp
// What a log run with NCCL_DEBUG=INFO says about how NCCL set itself up, from the INFO lines
// that nccl-tests' output carries ("host:pid:tid [dev] NCCL INFO ..."): the library's version,
// the network it chose (IB, Socket, a plugin such as "AWS Libfabric"), the hosts and ranks, the
// channels, and the transport of each connection ("via NET/IB/0/GDRDMA", "via P2P/IPC/read",
// "via SHM/direct/direct"). These are what a user checks when a job is slow: GPUDirect RDMA
// off, TCP sockets instead of RDMA, fewer channels than expected.
#pragma once

#include "calibrate/parse/text_input.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::calibrate::parse {

// A fact and the line it was read from (the first line that says it).
template <class T>
struct DebugFact {
  T value{};
  int line = 0;

  bool operator==(const DebugFact&) const = default;
};

// One kind of connection, as "via ..." names it: "NET" with the network ("IB", "Socket",
// "AWS Libfabric") and whether it is GPUDirect RDMA, "P2P" ("IPC/read", "CUMEM", "direct
// pointer"), "SHM", "CollNet".
struct NcclTransport {
  std::string kind;     // "NET", "P2P", "SHM", "CollNet"
  std::string detail;   // the network for NET ("IB"), the mechanism for P2P ("IPC/read")
  bool gdr = false;     // NET: "/GDRDMA" (the NIC reads and writes GPU memory directly)
  int connections = 0;  // the "via" lines naming it
  int line = 0;         // the first of them

  bool operator==(const NcclTransport&) const = default;
};

struct NcclDebugFacts {
  std::optional<DebugFact<std::string>> version;  // "2.9.9+cuda11.2"
  std::optional<DebugFact<std::string>> network;  // "Using network IB": "IB"
  std::vector<std::string> hosts;                 // the INFO lines' hosts, in order of appearance
  std::optional<DebugFact<int>> ranks;            // "Init COMPLETE" lines' nranks
  // "8 coll channels, ..." (the fewest any rank reports), or else the count in ring lines
  // "Channel 00/02 :  0 1".
  std::optional<DebugFact<int>> channels;
  std::vector<NcclTransport> transports;  // in order of first appearance

  // Whether the log had any INFO line railsim read.
  bool empty() const { return !version && !network && hosts.empty() && transports.empty(); }

  bool operator==(const NcclDebugFacts&) const = default;
};

// What sets an INFO line apart: "host:pid:tid [dev] NCCL INFO message".
inline constexpr std::string_view kNcclInfo = " NCCL INFO ";

// The facts of every NCCL INFO line of `input` (launcher prefixes already taken off).
NcclDebugFacts read_nccl_debug(const TextInput& input);

}  // namespace railsim::calibrate::parse
