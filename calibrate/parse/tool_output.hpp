// File: calibrate/parse/tool_output.hpp
// The formats railsim reads, their names on the command line (`railsim parse --as NAME`), and
// detection of the format from the content when the user does not name it.
#pragma once

#include "calibrate/parse/ibdev2netdev.hpp"
#include "calibrate/parse/ibstat.hpp"
#include "calibrate/parse/lspci.hpp"
#include "calibrate/parse/nccl_tests.hpp"
#include "calibrate/parse/nvidia_smi_topo.hpp"
#include "calibrate/parse/perftest.hpp"
#include "calibrate/parse/text_input.hpp"

#include <optional>
#include <string_view>
#include <variant>

namespace railsim::calibrate::parse {

enum class ToolFormat { kPerftest, kNcclTests, kNvidiaSmiTopo, kIbdev2netdev, kIbstat, kLspci };

// "perftest", "nccl-tests", "nvidia-smi-topo", "ibdev2netdev", "ibstat", "lspci".
const char* to_string(ToolFormat format);

// The format of a name; fails (sim::InputError) listing the names for any other.
ToolFormat tool_format_named(std::string_view name);

// The first format whose signature the input carries (a perftest title and result header, an
// nccl-tests column header, a topo matrix header, an ibdev2netdev arrow line, an ibstat CA
// line, an lspci function line), in that order; nothing when none does.
std::optional<ToolFormat> detect_format(const TextInput& input);

using ToolOutput = std::variant<PerftestOutput,
                                NcclTestsOutput,
                                NvidiaSmiTopo,
                                Ibdev2netdevOutput,
                                IbstatOutput,
                                LspciOutput>;

// Parses the input as `format`, or as the detected format; fails on an empty input, and on one
// no parser recognises (the message lists the formats and --as).
ToolOutput parse_tool_output(const TextInput& input, std::optional<ToolFormat> format);

}  // namespace railsim::calibrate::parse
