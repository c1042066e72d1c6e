// File: calibrate/parse/tool_output.cpp
#include "calibrate/parse/tool_output.hpp"

#include "sim/assert.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <array>

namespace railsim::calibrate::parse {
namespace {

struct FormatEntry {
  ToolFormat format;
  const char* name;
  bool (*looks_like)(const TextInput&);
  ToolOutput (*parse)(const TextInput&);
};

template <auto Parser>
ToolOutput parse_as(const TextInput& input) {
  return Parser(input);
}

constexpr std::array<FormatEntry, 6> kFormats = {{
    {ToolFormat::kPerftest, "perftest", looks_like_perftest, parse_as<parse_perftest>},
    {ToolFormat::kNcclTests, "nccl-tests", looks_like_nccl_tests, parse_as<parse_nccl_tests>},
    {ToolFormat::kNvidiaSmiTopo, "nvidia-smi-topo", looks_like_nvidia_smi_topo,
     parse_as<parse_nvidia_smi_topo>},
    {ToolFormat::kIbdev2netdev, "ibdev2netdev", looks_like_ibdev2netdev,
     parse_as<parse_ibdev2netdev>},
    {ToolFormat::kIbstat, "ibstat", looks_like_ibstat, parse_as<parse_ibstat>},
    {ToolFormat::kLspci, "lspci", looks_like_lspci, parse_as<parse_lspci>},
}};

constexpr const char* kFormatList =
    "perftest, nccl-tests, nvidia-smi-topo, ibdev2netdev, ibstat, lspci";

const FormatEntry& entry_of(ToolFormat format) {
  for (const FormatEntry& entry : kFormats) {
    if (entry.format == format) {
      return entry;
    }
  }
  RAILSIM_UNREACHABLE("a ToolFormat without an entry");
}

}  // namespace

const char* to_string(ToolFormat format) { return entry_of(format).name; }

ToolFormat tool_format_named(std::string_view name) {
  for (const FormatEntry& entry : kFormats) {
    if (name == entry.name) {
      return entry.format;
    }
  }
  throw sim::InputError(fmt::format("expected a format of {}, got '{}'", kFormatList, name));
}

std::optional<ToolFormat> detect_format(const TextInput& input) {
  for (const FormatEntry& entry : kFormats) {
    if (entry.looks_like(input)) {
      return entry.format;
    }
  }
  return std::nullopt;
}

ToolOutput parse_tool_output(const TextInput& input, std::optional<ToolFormat> format) {
  if (input.blank()) {
    input.fail(0, "the file is empty");
  }
  if (!format) {
    format = detect_format(input);
  }
  if (!format) {
    input.fail(0, fmt::format("not the output of a tool railsim reads (expected {}; --as names "
                              "the format)",
                              kFormatList));
  }
  return entry_of(*format).parse(input);
}

}  // namespace railsim::calibrate::parse
