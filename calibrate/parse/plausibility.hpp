// File: calibrate/parse/plausibility.hpp
// Readings no hardware gives, taken out of a parsed tool output before anything uses it: a log
// can be well formed and still say that a bus moved 1.8e19 GB/s or that a write took a century
// (an edit, a unit mix-up, a corrupted copy). Each reading beyond a bound is removed as evidence
// and named with its line, so that `railsim check` and `calibrate` never take it for a
// measurement; the commands warn, or fail under --strict.
//
// The bounds, each far beyond today's hardware (docs/fabric-facts.md) so that no real reading
// meets them:
// - a rate above 10 TB/s: the fastest link is NVLink 5 at 1.8 TB/s per GPU, both directions;
// - a duration above a day: perftest and nccl-tests time single operations;
// - a CPU or NUMA node id of 2^20 or more: Linux builds for at most 8,192 CPUs (NR_CPUS);
// - a negative size, count or iteration count;
// - a PCIe link faster than 256 GT/s per lane or wider than 32 lanes (PCIe 7.0: 128 GT/s, x32).
#pragma once

#include "calibrate/parse/tool_output.hpp"

#include <string>
#include <vector>

namespace railsim::calibrate::parse {

inline constexpr double kMaxPlausibleBytesPerSecond = 10e12;
inline constexpr double kMaxPlausibleMicroseconds = 86'400e6;
inline constexpr std::int64_t kMaxPlausibleCpuId = std::int64_t{1} << 20;
inline constexpr double kMaxPlausiblePcieGts = 256.0;
inline constexpr int kMaxPlausiblePcieWidth = 32;

// A reading taken out: its line and what was wrong ("busbw 1.8e+19 GB/s is above any link
// (10 TB/s)").
struct Implausible {
  int line = 0;
  std::string what;
};

// Removes the implausible readings of `output` and returns them in line order. What goes: a
// perftest or nccl-tests row (the whole row: its figures came from one measurement); an ibstat
// port; an lspci link reading; an nvidia-smi topo -m affinity value becomes N/A (unknown).
std::vector<Implausible> remove_implausible(ToolOutput& output);

// The same for the outputs calibrate reads by type.
std::vector<Implausible> remove_implausible(PerftestOutput& output);
std::vector<Implausible> remove_implausible(NcclTestsOutput& output);

// "FILE:LINE: WHAT; not used as a measurement" for each one, to print as warnings; under
// `strict` the first is thrown instead, as a ParseError at its line.
std::vector<std::string> implausible_warnings(const std::string& file,
                                              const std::vector<Implausible>& removed,
                                              bool strict);

}  // namespace railsim::calibrate::parse
