// File: models/system/ib_hca.hpp
// NCCL_IB_HCA: which RDMA devices NCCL may use. A comma-separated list of device names, each
// optionally with ":PORT"; by default each name is a prefix ("mlx5_1" also matches mlx5_10 and
// mlx5_11, as NCCL's does), after a leading "=" an exact name; after a leading "^" the list
// says which devices not to use ("^=mlx5_1,mlx5_4"). A modelled NIC is one port, port 1.
// (NCCL's environment documentation, NCCL_IB_HCA.)
#pragma once

#include "models/hardware/node_spec.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::models {

struct IbHcaFilter {
  struct Entry {
    std::string name;
    std::optional<int> port;
  };

  std::string text;  // as given, for messages
  bool exclude = false;
  bool exact = false;
  std::vector<Entry> entries;
};

// Throws sim::InputError for an empty list or entry, or a port that is not a positive integer.
IbHcaFilter parse_ib_hca(std::string_view text);

// Whether NCCL would use port 1 of device `device` under `filter`.
bool ib_hca_allows(const IbHcaFilter& filter, std::string_view device);

// The same for a NIC of a node, by the name its tray's system gives it (nvlink_domain.hpp).
bool ib_hca_allows(const IbHcaFilter& filter, const Nic& nic);

// Throws sim::InputError, naming the node's compute NICs, unless `filter` leaves NCCL one.
void check_ib_hca(const IbHcaFilter& filter, const NodeSpec& node);

}  // namespace railsim::models
