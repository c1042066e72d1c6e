// File: calibrate/parse/ibstat.cpp
// "CA 'name'" opens a CA; indented "Name: value" lines fill it until "Port N:" opens a port,
// whose lines fill the port until the next port or CA. Lines before the first CA (the shell
// prompt) are not read.
#include "calibrate/parse/ibstat.hpp"

#include "calibrate/parse/fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace railsim::calibrate::parse {
namespace {

constexpr int kMaxPorts = 255;
constexpr std::int64_t kMaxLid = 0xffff;

// "CA 'mlx5_0'" -> mlx5_0
std::optional<std::string_view> ca_name(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("CA '") || !text.ends_with('\'') || text.size() < 6) {
    return std::nullopt;
  }
  return text.substr(4, text.size() - 5);
}

void check_ports(const TextInput& input, const IbstatCa& ca) {
  if (static_cast<int>(ca.ports.size()) != ca.port_count) {
    input.fail(ca.line, fmt::format("CA '{}' says it has {} ports, expected as many 'Port N:' "
                                    "blocks, got {}",
                                    ca.name, ca.port_count, ca.ports.size()));
  }
  for (const IbstatPort& port : ca.ports) {
    if (port.state.empty() || port.physical_state.empty() || port.link_layer.empty() ||
        port.rate_gbps == 0.0) {
      input.fail(port.line, fmt::format("CA '{}' port {}: expected its State, Physical state, "
                                        "Rate and Link layer",
                                        ca.name, port.number));
    }
  }
}

void set_ca_field(const Line& line, std::string_view name, std::string_view value, IbstatCa& ca) {
  if (name == "CA type") {
    ca.ca_type = std::string(value);
  } else if (name == "Number of ports") {
    ca.port_count = static_cast<int>(integer_field(line, value, "a number of ports", 1, kMaxPorts));
  } else if (name == "Firmware version") {
    ca.firmware = std::string(value);
  } else if (name == "Hardware version") {
    ca.hardware_version = std::string(value);
  } else if (name == "Node GUID") {
    ca.node_guid = std::string(value);
  } else if (name == "System image GUID") {
    ca.system_image_guid = std::string(value);
  } else {
    line.fail(
        fmt::format("expected a CA field of ibstat (CA type, Number of ports, Firmware "
                    "version, Hardware version, Node GUID, System image GUID), got {}",
                    quoted(name)));
  }
}

void set_port_field(const Line& line,
                    std::string_view name,
                    std::string_view value,
                    IbstatPort& port) {
  if (name == "State") {
    port.state = std::string(value);
  } else if (name == "Physical state") {
    port.physical_state = std::string(value);
  } else if (name == "Rate") {
    port.rate_gbps = number_field(line, value, "a rate in Gb/s");
    if (port.rate_gbps == 0.0) {  // no port trains at 0; 0 also marks "not seen" below
      line.fail(fmt::format("expected a rate in Gb/s above 0, got {}", quoted(value)));
    }
  } else if (name == "Base lid") {
    port.base_lid = integer_field(line, value, "a LID", 0, kMaxLid);
  } else if (name == "LMC") {
    port.lmc = integer_field(line, value, "an LMC", 0, 7);
  } else if (name == "SM lid") {
    port.sm_lid = integer_field(line, value, "a LID", 0, kMaxLid);
  } else if (name == "Capability mask") {
    port.capability_mask = std::string(value);
  } else if (name == "Port GUID") {
    port.port_guid = std::string(value);
  } else if (name == "Link layer") {
    port.link_layer = std::string(value);
  } else {
    line.fail(
        fmt::format("expected a port field of ibstat (State, Physical state, Rate, Base "
                    "lid, LMC, SM lid, Capability mask, Port GUID, Link layer), got {}",
                    quoted(name)));
  }
}

}  // namespace

IbstatOutput parse_ibstat(const TextInput& input) {
  IbstatOutput output;
  for (int number = 1; number <= input.line_count(); ++number) {
    const Line line = line_of(input, number);
    const std::string_view text = trim(line.text);
    if (const auto name = ca_name(text)) {
      if (!output.cas.empty()) {
        check_ports(input, output.cas.back());
      }
      for (const IbstatCa& earlier : output.cas) {
        if (earlier.name == *name) {
          line.fail(fmt::format("CA '{}' is listed twice (first at line {})", earlier.name,
                                earlier.line));
        }
      }
      output.cas.push_back(IbstatCa{std::string(*name), {}, 0, {}, {}, {}, {}, {}, number});
      continue;
    }
    if (output.cas.empty() || text.empty()) {
      continue;
    }
    IbstatCa& ca = output.cas.back();
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) {
      line.fail(fmt::format("expected 'Name: value' in CA '{}', got {}", ca.name, quoted(text)));
    }
    const std::string_view name = trim(text.substr(0, colon));
    const std::string_view value = trim(text.substr(colon + 1));
    if (name.starts_with("Port ") && value.empty()) {
      const int port =
          static_cast<int>(integer_field(line, name.substr(5), "a port number", 1, kMaxPorts));
      for (const IbstatPort& earlier : ca.ports) {
        if (earlier.number == port) {
          line.fail(fmt::format("CA '{}' port {} is listed twice (first at line {})", ca.name, port,
                                earlier.line));
        }
      }
      ca.ports.push_back(IbstatPort{port, {}, {}, 0.0, 0, 0, 0, {}, {}, {}, number});
      continue;
    }
    if (value.empty() || split_fields(value).size() != 1) {
      line.fail(fmt::format("expected one word after '{}:', got {}", name, quoted(value)));
    }
    if (ca.ports.empty()) {
      set_ca_field(line, name, value, ca);
    } else {
      set_port_field(line, name, value, ca.ports.back());
    }
  }
  if (output.cas.empty()) {
    input.fail(0, "expected ibstat output (a line such as CA 'mlx5_0'), found none");
  }
  check_ports(input, output.cas.back());
  return output;
}

bool looks_like_ibstat(const TextInput& input) {
  for (int number = 1; number <= input.line_count(); ++number) {
    if (ca_name(input.line(number))) {
      return true;
    }
  }
  return false;
}

}  // namespace railsim::calibrate::parse
