// File: calibrate/parse/ibdev2netdev.cpp
// Parsed from both ends: the netdev and its (Up)/(Down) after "==>", then "port N" and, with
// -v, the port state before it, then the device and what -v prints in front of it.
#include "calibrate/parse/ibdev2netdev.hpp"

#include "calibrate/parse/fields.hpp"

#include <fmt/format.h>

#include <string_view>

namespace railsim::calibrate::parse {
namespace {

constexpr std::string_view kArrow = " ==> ";
constexpr int kMaxPort = 255;

// "ibp24s0 (Up)", optionally followed by more in parentheses ("(o2ib)").
void read_netdev(const Line& line, std::string_view text, Ibdev2netdevPort& port) {
  const std::vector<std::string_view> f = split_fields(text);
  if (f.size() < 2 || !is_device_name(f[0]) || (f[1] != "(Up)" && f[1] != "(Down)")) {
    line.fail(fmt::format("expected 'NETDEV (Up)' or 'NETDEV (Down)' after '==>', got {}",
                          quoted(trim(text))));
  }
  port.netdev = std::string(f[0]);
  port.netdev_up = f[1] == "(Up)";
}

// "0000:1b:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) ConnectX-7 ... fw 28.39.1002", the -v part
// before "port N (STATE)"; sets the device and the details.
void read_verbose_device(const Line& line, std::string_view text, Ibdev2netdevPort& port) {
  Ibdev2netdevDetails details;
  const std::size_t fw = text.rfind(" fw ");
  const std::size_t open = text.find('(');
  const std::size_t close = text.find(')', open == std::string_view::npos ? 0 : open);
  if (fw == std::string_view::npos || open == std::string_view::npos ||
      close == std::string_view::npos || close > fw) {
    line.fail(
        fmt::format("expected '[PCI] DEVICE (TYPE - PART) DESCRIPTION fw VERSION' before "
                    "'port', got {}",
                    quoted(trim(text))));
  }
  const std::vector<std::string_view> names = split_fields(text.substr(0, open));
  const bool pci = names.size() == 2 && is_pci_address(names[0]);
  if (!(pci || names.size() == 1) || !is_device_name(names.back())) {
    line.fail(fmt::format("expected '[PCI address] DEVICE' before '(', got {}",
                          quoted(trim(text.substr(0, open)))));
  }
  if (pci) {
    details.pci_address = std::string(names[0]);
  }
  port.device = std::string(names.back());
  const std::string_view type_part = text.substr(open + 1, close - open - 1);
  const std::size_t dash = type_part.find(" - ");
  if (dash == std::string_view::npos) {
    line.fail(fmt::format("expected '(TYPE - PART)' after the device, got {}", quoted(type_part)));
  }
  details.ca_type = std::string(trim(type_part.substr(0, dash)));
  details.part = std::string(trim(type_part.substr(dash + 3)));
  details.description = std::string(trim(text.substr(close + 1, fw - close - 1)));
  const std::vector<std::string_view> version = split_fields(text.substr(fw + 4));
  if (version.size() != 1) {
    line.fail(fmt::format("expected a firmware version after 'fw', got {}",
                          quoted(trim(text.substr(fw + 4)))));
  }
  details.firmware = std::string(version[0]);
  port.details = std::move(details);
}

Ibdev2netdevPort read_port(const Line& line) {
  Ibdev2netdevPort port;
  port.line = line.number;
  const std::size_t arrow = line.text.find(kArrow);
  read_netdev(line, line.text.substr(arrow + kArrow.size()), port);
  std::string_view left = trim(line.text.substr(0, arrow));
  std::string state;
  if (left.ends_with(')')) {  // -v: "port 1 (ACTIVE)", or "(DOWN  )"
    const std::size_t open = left.rfind('(');
    if (open == std::string_view::npos) {
      line.fail(fmt::format("expected 'port N (STATE)' before '==>', got {}", quoted(left)));
    }
    state = std::string(trim(left.substr(open + 1, left.size() - open - 2)));
    left = trim(left.substr(0, open));
  }
  const std::size_t port_word = left.rfind(" port ");
  if (port_word == std::string_view::npos) {
    line.fail(fmt::format("expected 'DEVICE port N' before '==>', got {}", quoted(left)));
  }
  port.port = static_cast<int>(
      integer_field(line, trim(left.substr(port_word + 6)), "a port number", 1, kMaxPort));
  const std::string_view device = trim(left.substr(0, port_word));
  if (state.empty()) {
    const std::vector<std::string_view> f = split_fields(device);
    if (f.size() != 1 || !is_device_name(f[0])) {
      line.fail(fmt::format("expected one device name before 'port', got {}", quoted(device)));
    }
    port.device = std::string(f[0]);
    return port;
  }
  read_verbose_device(line, device, port);
  port.details->port_state = state;
  return port;
}

}  // namespace

Ibdev2netdevOutput parse_ibdev2netdev(const TextInput& input) {
  Ibdev2netdevOutput output;
  for (int number = 1; number <= input.line_count(); ++number) {
    if (input.line(number).find(kArrow) != std::string_view::npos) {
      Ibdev2netdevPort port = read_port(line_of(input, number));
      for (const Ibdev2netdevPort& earlier : output.ports) {
        if (earlier.device == port.device && earlier.port == port.port) {
          input.fail(number, fmt::format("{} port {} is listed twice (first at line {})",
                                         port.device, port.port, earlier.line));
        }
      }
      output.ports.push_back(std::move(port));
    }
  }
  if (output.ports.empty()) {
    input.fail(0,
               "expected ibdev2netdev output (lines such as 'mlx5_0 port 1 ==> ib0 (Up)'), "
               "found none");
  }
  return output;
}

bool looks_like_ibdev2netdev(const TextInput& input) {
  for (int number = 1; number <= input.line_count(); ++number) {
    const std::string_view text = input.line(number);
    if (text.find(kArrow) != std::string_view::npos &&
        text.find(" port ") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace railsim::calibrate::parse
