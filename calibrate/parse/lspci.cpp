// File: calibrate/parse/lspci.cpp
// An unindented "BB:DD.F Class: description" line opens a function; its indented lines follow.
// Only "NUMA node:", "LnkCap:" and "LnkSta:" are read; the rest of a block (regions,
// capabilities lspci decodes, their flags) is passed over, since lspci's releases differ in it.
#include "calibrate/parse/lspci.hpp"

#include "calibrate/parse/fields.hpp"

#include <fmt/format.h>

#include <string_view>

namespace railsim::calibrate::parse {
namespace {

constexpr int kMaxNumaNode = 1023;

// "1b:00.0" or "0000:1b:00.0" -> "0000:1b:00.0"; nothing for anything else.
std::optional<std::string> pci_address(std::string_view text) {
  const std::string address = text.size() == 7 ? "0000:" + std::string(text) : std::string(text);
  return is_pci_address(address) ? std::optional(address) : std::nullopt;
}

// An unindented line opening a function: its address and the rest of the line.
std::optional<std::pair<std::string, std::string_view>> function_line(std::string_view text) {
  if (text.empty() || text.front() == ' ' || text.front() == '\t') {
    return std::nullopt;
  }
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) {
    return std::nullopt;
  }
  const std::optional<std::string> address = pci_address(text.substr(0, space));
  if (!address) {
    return std::nullopt;
  }
  return std::pair{*address, trim(text.substr(space + 1))};
}

// "3D controller [0302]: NVIDIA Corporation ..." -> class "3D controller", the description.
void read_class(const Line& line, std::string_view rest, LspciFunction& f) {
  const std::size_t colon = rest.find(": ");
  if (colon == std::string_view::npos) {
    line.fail(fmt::format("expected 'Class: description' after the address, got {}", quoted(rest)));
  }
  std::string_view name = trim(rest.substr(0, colon));
  if (name.ends_with(']')) {  // lspci -nn's class code
    name = trim(name.substr(0, name.rfind('[')));
  }
  f.class_name = std::string(name);
  f.description = std::string(trim(rest.substr(colon + 2)));
}

// "16GT/s" or "16GT/s (downgraded)" -> 16; "unknown" -> 0.
double speed_of(const Line& line, std::string_view field) {
  field = trim(field.substr(0, field.find('(')));
  if (field == "unknown") {
    return 0.0;
  }
  if (!field.ends_with("GT/s")) {
    line.fail(fmt::format("expected a link speed such as 16GT/s, got {}", quoted(field)));
  }
  return number_field(line, field.substr(0, field.size() - 4), "a link speed in GT/s");
}

// "x16" or "x16 (downgraded)" -> 16.
int width_of(const Line& line, std::string_view field) {
  field = trim(field.substr(0, field.find('(')));
  if (!field.starts_with('x')) {
    line.fail(fmt::format("expected a link width such as x16, got {}", quoted(field)));
  }
  return static_cast<int>(integer_field(line, field.substr(1), "a link width", 0, 32));
}

// The "Speed S, Width xW" of a LnkCap or LnkSta value, whatever comes around it.
PcieLinkReading link_of(const Line& line, std::string_view value) {
  PcieLinkReading reading;
  reading.line = line.number;
  bool speed = false;
  bool width = false;
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    const std::string_view part = trim(value.substr(0, comma));
    if (part.starts_with("Speed ")) {
      reading.speed_gts = speed_of(line, part.substr(6));
      speed = true;
    } else if (part.starts_with("Width ")) {
      reading.width = width_of(line, part.substr(6));
      width = true;
    }
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
  }
  if (!speed || !width) {
    line.fail("expected the link's 'Speed ...GT/s' and 'Width x...'");
  }
  return reading;
}

void read_field(const Line& line, std::string_view text, LspciFunction& f) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return;
  }
  const std::string_view name = text.substr(0, colon);
  const std::string_view value = trim(text.substr(colon + 1));
  if (name == "NUMA node") {
    f.numa_node = static_cast<int>(integer_field(line, value, "a NUMA node", 0, kMaxNumaNode));
  } else if (name == "LnkCap") {
    f.capable = link_of(line, value);
  } else if (name == "LnkSta") {
    f.trained = link_of(line, value);
  }
}

}  // namespace

LspciOutput parse_lspci(const TextInput& input) {
  LspciOutput output;
  for (int number = 1; number <= input.line_count(); ++number) {
    const Line line = line_of(input, number);
    if (const auto opened = function_line(line.text)) {
      LspciFunction f;
      f.address = opened->first;
      f.line = number;
      for (const LspciFunction& earlier : output.functions) {
        if (earlier.address == f.address) {
          line.fail(fmt::format("PCI function {} is listed twice (first at line {})", f.address,
                                earlier.line));
        }
      }
      read_class(line, opened->second, f);
      output.functions.push_back(std::move(f));
      continue;
    }
    if (output.functions.empty() || trim(line.text).empty()) {
      continue;
    }
    if (line.text.front() != ' ' && line.text.front() != '\t') {
      line.fail(fmt::format(
          "expected a PCI function such as '1b:00.0 Infiniband controller: ...' or one of its "
          "indented lines, got {}",
          quoted(line.text)));
    }
    read_field(line, trim(line.text), output.functions.back());
  }
  if (output.functions.empty()) {
    input.fail(0,
               "expected lspci output (a line such as '1b:00.0 Infiniband controller: ...'), "
               "found none");
  }
  return output;
}

bool looks_like_lspci(const TextInput& input) {
  for (int number = 1; number <= input.line_count(); ++number) {
    const auto opened = function_line(input.line(number));
    if (opened && opened->second.find(": ") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace railsim::calibrate::parse
