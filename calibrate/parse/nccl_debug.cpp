// File: calibrate/parse/nccl_debug.cpp
// Read leniently: NCCL's INFO wording changes between releases, so a line that does not read as
// expected is passed over, never an error (the results table is what must parse).
#include "calibrate/parse/nccl_debug.hpp"

#include "calibrate/parse/fields.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace railsim::calibrate::parse {
namespace {

std::optional<int> leading_int(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end != text.data() ? std::optional<int>(value) : std::nullopt;
}

// "NET/IB/0/GDRDMA", "NET/AWS Libfabric/1/GDRDMA/Shared", "P2P/IPC/read", "SHM/direct/direct".
NcclTransport transport_of(std::string_view via) {
  NcclTransport t;
  const std::size_t slash = via.find('/');
  t.kind = std::string(via.substr(0, slash));
  const std::string_view rest = slash == std::string_view::npos ? "" : via.substr(slash + 1);
  if (t.kind == "NET" || t.kind == "CollNet") {
    t.detail = std::string(rest.substr(0, rest.find('/')));
    t.gdr = rest.find("/GDRDMA") != std::string_view::npos;
  } else {
    t.detail = std::string(rest);
  }
  return t;
}

class Reader {
 public:
  NcclDebugFacts read(const TextInput& input) {
    for (int number = 1; number <= input.line_count(); ++number) {
      const std::string_view text = input.line(number);
      const std::size_t info = text.find(kNcclInfo);
      if (info != std::string_view::npos) {
        note_host(text.substr(0, info));
        read_info(trim(text.substr(info + kNcclInfo.size())), number);
      } else if (const std::string_view t = trim(text); t.starts_with("NCCL version ")) {
        note_version(t.substr(13), number);  // rank 0 prints it bare in older releases
      }
    }
    if (!coll_channels_ && ring_channels_) {
      facts_.channels = ring_channels_;
    } else {
      facts_.channels = coll_channels_;
    }
    return std::move(facts_);
  }

 private:
  // "cnode3-002:2201134:2201138 [0]": the host before the first ':'.
  void note_host(std::string_view prefix) {
    const std::vector<std::string_view> f = split_fields(prefix);
    if (f.empty()) {
      return;
    }
    const std::string host(f.front().substr(0, f.front().find(':')));
    if (!host.empty() &&
        std::find(facts_.hosts.begin(), facts_.hosts.end(), host) == facts_.hosts.end()) {
      facts_.hosts.push_back(host);
    }
  }

  void note_version(std::string_view text, int line) {
    const std::vector<std::string_view> f = split_fields(text);
    if (!facts_.version && !f.empty()) {
      facts_.version = DebugFact<std::string>{std::string(f.front()), line};
    }
  }

  void read_info(std::string_view message, int line) {
    if (message.starts_with("NCCL version ")) {
      note_version(message.substr(13), line);
    } else if (message.starts_with("Using network ")) {
      if (!facts_.network) {
        facts_.network = DebugFact<std::string>{std::string(trim(message.substr(14))), line};
      }
    } else if (const std::size_t via = message.find(" via ");
               via != std::string_view::npos && message.starts_with("Channel ")) {
      note_transport(trim(message.substr(via + 5)), line);
    } else if (message.find(" coll channels") != std::string_view::npos) {
      if (const std::optional<int> n = leading_int(message)) {
        if (!coll_channels_ || *n < coll_channels_->value) {
          coll_channels_ = DebugFact<int>{*n, line};
        }
      }
    } else if (message.starts_with("Channel ") && !ring_channels_) {
      // "Channel 00/02 :    0   1": channel 0 of 2.
      const std::size_t slash = message.find('/');
      const std::size_t colon = message.find(" :");
      if (slash != std::string_view::npos && colon != std::string_view::npos && slash < colon) {
        if (const std::optional<int> n = leading_int(message.substr(slash + 1))) {
          ring_channels_ = DebugFact<int>{*n, line};
        }
      }
    } else if (message.ends_with("Init COMPLETE")) {
      const std::size_t at = message.find(" nranks ");
      if (at != std::string_view::npos && !facts_.ranks) {
        if (const std::optional<int> n = leading_int(message.substr(at + 8))) {
          facts_.ranks = DebugFact<int>{*n, line};
        }
      }
    }
  }

  void note_transport(std::string_view via, int line) {
    NcclTransport t = transport_of(via);
    for (NcclTransport& seen : facts_.transports) {
      if (seen.kind == t.kind && seen.detail == t.detail && seen.gdr == t.gdr) {
        ++seen.connections;
        return;
      }
    }
    t.connections = 1;
    t.line = line;
    facts_.transports.push_back(std::move(t));
  }

  NcclDebugFacts facts_;
  std::optional<DebugFact<int>> coll_channels_;
  std::optional<DebugFact<int>> ring_channels_;
};

}  // namespace

NcclDebugFacts read_nccl_debug(const TextInput& input) { return Reader().read(input); }

}  // namespace railsim::calibrate::parse
