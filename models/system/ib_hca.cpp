// File: models/system/ib_hca.cpp
#include "models/system/ib_hca.hpp"

#include "models/hardware/nvlink_domain.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

namespace railsim::models {

IbHcaFilter parse_ib_hca(std::string_view text) {
  IbHcaFilter filter;
  filter.text = std::string(text);
  std::string_view rest = text;
  if (rest.starts_with('^')) {
    filter.exclude = true;
    rest.remove_prefix(1);
  }
  if (rest.starts_with('=')) {
    filter.exact = true;
    rest.remove_prefix(1);
  }
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view token = rest.substr(0, comma);
    const std::size_t colon = token.find(':');
    IbHcaFilter::Entry entry{std::string(token.substr(0, colon)), std::nullopt};
    if (entry.name.empty()) {
      throw sim::InputError(fmt::format(
          "NCCL_IB_HCA '{}': an empty device name, expected names such as mlx5_0 or mlx5_0:1",
          text));
    }
    if (colon != std::string_view::npos) {
      const std::string_view port = token.substr(colon + 1);
      int value = 0;
      const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
      if (error != std::errc() || end != port.data() + port.size() || value < 1) {
        throw sim::InputError(
            fmt::format("NCCL_IB_HCA '{}': port '{}' of {}, expected a port number from 1", text,
                        port, entry.name));
      }
      entry.port = value;
    }
    filter.entries.push_back(std::move(entry));
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  return filter;
}

bool ib_hca_allows(const IbHcaFilter& filter, std::string_view device) {
  const bool listed =
      std::any_of(filter.entries.begin(), filter.entries.end(), [&](const auto& entry) {
        const bool named = filter.exact ? device == entry.name : device.starts_with(entry.name);
        return named && entry.port.value_or(1) == 1;
      });
  return listed != filter.exclude;
}

bool ib_hca_allows(const IbHcaFilter& filter, const Nic& nic) {
  return ib_hca_allows(filter, tray_device_name(nic.name));
}

void check_ib_hca(const IbHcaFilter& filter, const NodeSpec& node) {
  std::vector<std::string> names;
  bool usable = false;
  for (const int i : compute_nic_indices(node)) {
    const Nic& nic = node.nics[static_cast<std::size_t>(i)];
    usable = usable || ib_hca_allows(filter, nic);
    names.push_back(nic.name);
  }
  if (!usable) {
    throw sim::InputError(fmt::format("NCCL_IB_HCA '{}' leaves NCCL none of {}'s compute NICs ({})",
                                      filter.text, node.name, fmt::join(names, ", ")));
  }
}

}  // namespace railsim::models
