// File: models/collective/nccl_variables.cpp
#include "models/collective/nccl_variables.hpp"

#include "models/collective/nccl_tuner_tables.hpp"
#include "models/hardware/path_class.hpp"
#include "models/system/ib_hca.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace railsim::models {
namespace {

// Variables that change no time: logging, the bootstrap's sockets, how a queue pair is addressed
// or recovers, where NCCL dumps its topology.
constexpr std::array<std::string_view, 14> kTimeless = {
    "NCCL_DEBUG",          "NCCL_DEBUG_SUBSYS",   "NCCL_DEBUG_FILE", "NCCL_SOCKET_IFNAME",
    "NCCL_SOCKET_FAMILY",  "NCCL_COMM_ID",        "NCCL_HOSTID",     "NCCL_IB_GID_INDEX",
    "NCCL_IB_TIMEOUT",     "NCCL_IB_RETRY_CNT",   "NCCL_IB_SL",      "NCCL_IB_TC",
    "NCCL_TOPO_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE"};

// NCCL has spelt the channel bounds three ways over its releases.
constexpr std::array<std::string_view, 3> kMinChannelNames = {"NCCL_MIN_NCHANNELS",
                                                              "NCCL_MIN_NRINGS", "NCCL_MIN_CTAS"};
constexpr std::array<std::string_view, 3> kMaxChannelNames = {"NCCL_MAX_NCHANNELS",
                                                              "NCCL_MAX_NRINGS", "NCCL_MAX_CTAS"};

bool same_word(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// The name NCCL's per-function lists give an operation ("allreduce:tree;broadcast:ring").
std::string_view nccl_function(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "allreduce";
    case CollectiveOp::kAllGather:
      return "allgather";
    case CollectiveOp::kReduceScatter:
      return "reducescatter";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kReduce:
      return "reduce";
    default:
      return "";
  }
}

// The algorithms NCCL implements an operation with (nccl:src/device/*.h): all of them for
// AllReduce; no tree for AllGather and ReduceScatter; the ring alone for Broadcast and Reduce.
AlgorithmSet implemented(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return {};
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
      return AlgorithmSet().except({Algorithm::kTree, Algorithm::kNvlsTree});
    default:
      return Algorithm::kRing;
  }
}

// An NCCL_ALGO or NCCL_PROTO value's list for `op`: entries separated by ';', each "function:list"
// or a list for every function, a later one over an earlier. Nothing when no entry is for it.
std::optional<std::string_view> list_for(std::string_view value, CollectiveOp op) {
  std::optional<std::string_view> list;
  while (!value.empty()) {
    const std::size_t end = value.find(';');
    const std::string_view entry = value.substr(0, end);
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      list = trimmed(entry);
    } else if (same_word(trimmed(entry.substr(0, colon)), nccl_function(op))) {
      list = trimmed(entry.substr(colon + 1));
    }
    value = end == std::string_view::npos ? std::string_view() : value.substr(end + 1);
  }
  return list;
}

// The items of `all` a comma list allows: those it names, or after a leading '^' every other.
// Nothing for an empty list or at a word that names none of them (`names(word, item)`).
template <class T, std::size_t N, class Names>
std::optional<std::vector<T>> allowed_by(std::string_view list,
                                         const std::array<T, N>& all,
                                         Names names) {
  const bool exclude = list.starts_with('^');
  list.remove_prefix(exclude ? 1 : 0);
  if (list.empty()) {
    return std::nullopt;
  }
  std::array<bool, N> named{};
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view word = trimmed(list.substr(0, comma));
    bool known = false;
    for (std::size_t i = 0; i < N; ++i) {
      if (names(word, all[i])) {
        named[i] = known = true;
      }
    }
    if (!known) {
      return std::nullopt;
    }
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  std::vector<T> out;
  for (std::size_t i = 0; i < N; ++i) {
    if (named[i] != exclude) {
      out.push_back(all[i]);
    }
  }
  return out;
}

std::optional<int> integer(std::string_view text, int low, int high) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    return std::nullopt;
  }
  return value;
}

template <std::size_t N>
bool one_of(const std::string& name, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether a variable changes nothing the model times: it changes no time at all, it is a channel
// bound (Applier::channels takes those), it is a tuner's setting for an operation the tuner does
// not choose for (the point-to-point ones, or one its per-function list leaves out), or
// NCCL_P2P_PXN_LEVEL on a collective.
bool passed_over(const std::string& name, std::string_view value, CollectiveOp op) {
  if (one_of(name, kTimeless) || one_of(name, kMinChannelNames) || one_of(name, kMaxChannelNames)) {
    return true;
  }
  if (name == "NCCL_P2P_PXN_LEVEL") {
    return !is_point_to_point(op);  // the point-to-point calls' alone
  }
  const bool tuner = name == "NCCL_ALGO" || name == "NCCL_PROTO" || name == "NCCL_NVLS_ENABLE";
  return tuner && (is_point_to_point(op) ||
                   (name != "NCCL_NVLS_ENABLE" && !list_for(value, op).has_value()));
}

class Applier {
 public:
  Applier(CollectiveRequest& request, SystemSpec& system) : request_(request), system_(system) {}

  // Why `name` = `value` is not applied, or nothing.
  std::optional<std::string> apply(const std::string& name, std::string_view value) {
    if (name == "NCCL_ALGO") {
      return algorithm(value);
    }
    if (name == "NCCL_PROTO") {
      return protocol(value);
    }
    if (name == "NCCL_NVLS_ENABLE") {
      if (!integer(value, 0, 1)) {
        return "expected 0 or 1";
      }
      if (value == "0") {
        // NVLS off takes NVLS Tree with it; the set keeps what else it allowed.
        const AlgorithmSet left =
            request_.algorithm.except({Algorithm::kNvls, Algorithm::kNvlsTree});
        if (left.empty()) {
          return "it leaves NCCL_ALGO no algorithm";
        }
        request_.algorithm = left;
      }
      return std::nullopt;
    }
    if (name == "NCCL_CROSS_NIC") {
      return set_integer(value, 0, 2, request_.cross_nic);
    }
    // PXN is on unless either variable turns it off, whichever comes first.
    if (name == "NCCL_PXN_DISABLE") {
      int disabled = 0;
      if (auto why = set_integer(value, 0, 1, disabled)) {
        return why;
      }
      request_.pxn = request_.pxn && disabled == 0;
      return std::nullopt;
    }
    if (name == "NCCL_P2P_PXN_LEVEL") {
      // 0 never, 1 only where the receiver's NIC is out of the sender's PCIe reach, 2 (the
      // default, which the model runs) wherever it keeps the message on the receiver's rail.
      int level = 2;
      if (auto why = set_integer(value, 0, 2, level)) {
        return why;
      }
      if (level == 1) {
        return "level 1 (PXN only where needed) is not modelled: predicted at 2";
      }
      request_.pxn = request_.pxn && level == 2;
      return std::nullopt;
    }
    if (name == "NCCL_IB_QPS_PER_CONNECTION") {
      return set_integer(value, 1, 128, request_.qps_per_connection);
    }
    if (name == "NCCL_NCHANNELS_PER_NET_PEER") {
      int channels = 0;
      if (auto why = set_integer(value, 1, nccl::kMaxChannels, channels)) {
        return why;
      }
      request_.channels_per_net_peer = channels;
      return std::nullopt;
    }
    if (name == "NCCL_NET_GDR_LEVEL") {
      const std::optional<PathClass> level = gdr_level_named(value);
      if (!level) {
        return fmt::format("expected {}", kGdrLevelValues);
      }
      system_.gdr_level = *level;
      return std::nullopt;
    }
    if (name == "NCCL_IB_HCA") {
      try {
        IbHcaFilter filter = parse_ib_hca(value);
        check_ib_hca(filter, system_.node);
        system_.ib_hca = std::move(filter);
      } catch (const sim::InputError& error) {
        return error.what();
      }
      return std::nullopt;
    }
    return "not modelled: predicted with NCCL's default";
  }

  // NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS (or their older names) force a count when equal.
  void channels(const std::map<std::string, std::string>& set, NcclVariablesApplied& out) {
    const auto first_of = [&set](const auto& names) {
      for (const std::string_view name : names) {
        if (const auto at = set.find(std::string(name)); at != set.end()) {
          return at;
        }
      }
      return set.end();
    };
    const auto min = first_of(kMinChannelNames);
    const auto max = first_of(kMaxChannelNames);
    if (min != set.end() && max != set.end() && min->second == max->second) {
      if (const std::optional<int> n = integer(min->second, 1, nccl::kMaxChannels)) {
        request_.channels = *n;
        out.applied.push_back(fmt::format("{}={}", min->first, min->second));
        out.applied.push_back(fmt::format("{}={}", max->first, max->second));
        return;
      }
    }
    for (const auto& at : {min, max}) {
      if (at != set.end()) {
        out.not_applied.push_back(fmt::format(
            "{}={}: the model forces a channel count (minimum and maximum equal, 1 to {}) or "
            "none",
            at->first, at->second, nccl::kMaxChannels));
      }
    }
  }

 private:
  static std::optional<std::string> set_integer(std::string_view value,
                                                int low,
                                                int high,
                                                int& out) {
    const std::optional<int> n = integer(value, low, high);
    if (!n) {
      return fmt::format("expected an integer from {} to {}", low, high);
    }
    out = *n;
    return std::nullopt;
  }

  std::optional<std::string> algorithm(std::string_view value) {
    // NCCL_ALGO's names, and "CollNet" for both, as releases before 2.12 had one.
    const std::optional<std::vector<Algorithm>> allowed =
        allowed_by(list_for(value, request_.op).value_or(""), kAlgorithms,
                   [](std::string_view word, Algorithm a) {
                     return same_word(word, algorithm_name(a)) ||
                            (same_word(word, "collnet") && is_collnet(a));
                   });
    if (!allowed) {
      return "expected algorithms among Ring, Tree, NVLS, NVLSTree, PAT, CollNetDirect, "
             "CollNetChain";
    }
    // Of those, the ones NCCL implements this operation with.
    const std::vector<Algorithm> runs = implemented(request_.op).list();
    std::optional<AlgorithmSet> kept;
    for (const Algorithm a : *allowed) {
      if (std::find(runs.begin(), runs.end(), a) != runs.end()) {
        kept = kept ? *kept | a : AlgorithmSet(a);
      }
    }
    if (!kept) {
      return fmt::format("names no algorithm NCCL runs {} with", op_name(request_.op));
    }
    request_.algorithm = *kept;
    return std::nullopt;
  }

  std::optional<std::string> protocol(std::string_view value) {
    const std::optional<std::vector<Protocol>> allowed = allowed_by(
        list_for(value, request_.op).value_or(""), kProtocols,
        [](std::string_view word, Protocol p) { return same_word(word, protocol_name(p)); });
    if (!allowed) {
      return "expected protocols among LL, LL128, Simple";
    }
    if (allowed->size() == kProtocols.size()) {
      return std::nullopt;
    }
    if (allowed->size() != 1) {
      return "the model forces one protocol or none";
    }
    request_.protocol = allowed->front();
    return std::nullopt;
  }

  CollectiveRequest& request_;
  SystemSpec& system_;
};

}  // namespace

NcclVariablesApplied apply_nccl_variables(const std::vector<NcclVariable>& variables,
                                          CollectiveRequest& request,
                                          SystemSpec& system) {
  std::map<std::string, std::string> set;
  for (const NcclVariable& v : variables) {
    set[v.name] = v.value;
  }
  NcclVariablesApplied out;
  Applier applier(request, system);
  applier.channels(set, out);
  // By name: NCCL_ALGO comes before NCCL_NVLS_ENABLE, which narrows it.
  for (const auto& [name, value] : set) {
    if (passed_over(name, value, request.op)) {
      continue;
    }
    if (const std::optional<std::string> why = applier.apply(name, value)) {
      out.not_applied.push_back(fmt::format("{}={}: {}", name, value, *why));
    } else {
      out.applied.push_back(fmt::format("{}={}", name, value));
    }
  }
  return out;
}

NcclVariablesApplied nccl_variables_effect(const std::vector<NcclVariable>& variables,
                                           CollectiveOp op,
                                           const SystemSpec& design) {
  CollectiveRequest request;
  request.op = op;
  SystemSpec system = design;
  return apply_nccl_variables(variables, request, system);
}

}  // namespace railsim::models
