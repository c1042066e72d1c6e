// File: calibrate/parse/plausibility.cpp
#include "calibrate/parse/plausibility.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <utility>

namespace railsim::calibrate::parse {
namespace {

using Problem = std::optional<std::string>;

Problem negative(std::string_view name, double value) {
  return value < 0 ? Problem(fmt::format("{} {:g} is negative", name, value)) : std::nullopt;
}

// A rate, given in bytes per second, and as printed.
Problem rate(std::string_view name, double bytes_per_second, std::string_view printed) {
  if (bytes_per_second < 0) {
    return fmt::format("{} {} is negative", name, printed);
  }
  if (bytes_per_second > kMaxPlausibleBytesPerSecond) {
    return fmt::format("{} {} is above any link ({:g} TB/s)", name, printed,
                       kMaxPlausibleBytesPerSecond / 1e12);
  }
  return std::nullopt;
}

Problem duration(std::string_view name, double us) {
  if (us < 0) {
    return fmt::format("{} {:g} us is negative", name, us);
  }
  if (us > kMaxPlausibleMicroseconds) {
    return fmt::format("{} {:.3g} us is longer than a day", name, us);
  }
  return std::nullopt;
}

// The first problem of several checks.
Problem first_of(std::initializer_list<Problem> problems) {
  for (const Problem& problem : problems) {
    if (problem) {
      return problem;
    }
  }
  return std::nullopt;
}

Problem nccl_row_problem(const NcclTestsRow& row) {
  Problem found = first_of({negative("size", static_cast<double>(row.size_bytes)),
                            negative("count", static_cast<double>(row.count))});
  for (const auto& [half, place] :
       {std::pair{&row.out_of_place, "out-of-place"}, std::pair{&row.in_place, "in-place"}}) {
    const auto gbps = [](double value) { return fmt::format("{:.3g} GB/s", value); };
    // One rank's in-place "collective" moves nothing (busbw 0), so its algbw is size over a
    // near-zero time and has no bound; with more ranks algbw is at most twice busbw.
    found = found ? found
                  : first_of({duration(fmt::format("{} time", place), half->time_us),
                              rate(fmt::format("{} busbw", place), half->busbw_GBps * 1e9,
                                   gbps(half->busbw_GBps)),
                              half->busbw_GBps > 0 || half->algbw_GBps < 0
                                  ? rate(fmt::format("{} algbw", place), half->algbw_GBps * 1e9,
                                         gbps(half->algbw_GBps))
                                  : std::nullopt,
                              negative(fmt::format("{} #wrong", place),
                                       static_cast<double>(half->wrong.value_or(0)))});
  }
  return found;
}

Problem bandwidth_row_problem(const PerftestBandwidthRow& row, PerftestRateUnit unit) {
  const auto shown = [unit](double value) {
    return fmt::format("{:.6g} {}", value, to_string(unit));
  };
  return first_of(
      {negative("size", static_cast<double>(row.size_bytes)),
       negative("#iterations", static_cast<double>(row.iterations)),
       rate("BW peak", to_bandwidth(row.bw_peak, unit).bytes_per_s, shown(row.bw_peak)),
       rate("BW average", to_bandwidth(row.bw_average, unit).bytes_per_s, shown(row.bw_average)),
       negative("MsgRate", row.msg_rate_Mpps)});
}

Problem latency_row_problem(const PerftestLatencyRow& row) {
  const auto optional_duration = [](std::string_view name, const std::optional<double>& us) {
    return us ? duration(name, *us) : std::nullopt;
  };
  return first_of({negative("size", static_cast<double>(row.size_bytes)),
                   negative("#iterations", static_cast<double>(row.iterations)),
                   duration("t_min", row.t_min_us), duration("t_max", row.t_max_us),
                   duration("t_typical", row.t_typical_us),
                   optional_duration("t_avg", row.t_avg_us),
                   optional_duration("t_stdev", row.t_stdev_us),
                   optional_duration("99% percentile", row.p99_us),
                   optional_duration("99.9% percentile", row.p99_9_us)});
}

// Erases the items with a problem, each recorded at its line with `what` before its problem.
template <class Item, class Check>
void erase_implausible(std::vector<Item>& items,
                       std::string_view what,
                       Check check,
                       std::vector<Implausible>& removed) {
  std::erase_if(items, [&](const Item& item) {
    const Problem problem = check(item);
    if (problem) {
      removed.push_back({item.line, fmt::format("{}{}", what, *problem)});
    }
    return problem.has_value();
  });
}

// The first CPU or NUMA node id in a list such as "0-31,64-95" that is 2^20 or more (or too
// long to read), as printed; nothing for N/A.
std::optional<std::string_view> implausible_id(std::string_view list) {
  while (!list.empty() && list != "N/A") {
    const std::size_t end = list.find_first_of(",-");
    const std::string_view id = list.substr(0, end);
    std::int64_t value = 0;
    const auto [next, error] = std::from_chars(id.data(), id.data() + id.size(), value);
    if (error != std::errc() || value >= kMaxPlausibleCpuId) {
      return id;
    }
    if (end == std::string_view::npos) {
      break;
    }
    list.remove_prefix(end + 1);
  }
  return std::nullopt;
}

Problem pcie_problem(const PcieLinkReading& reading) {
  if (reading.speed_gts < 0 || reading.speed_gts > kMaxPlausiblePcieGts) {
    return fmt::format("{:g} GT/s is beyond PCIe ({:g} GT/s per lane at most)", reading.speed_gts,
                       kMaxPlausiblePcieGts);
  }
  if (reading.width < 0 || reading.width > kMaxPlausiblePcieWidth) {
    return fmt::format("x{} is beyond PCIe (x{} at most)", reading.width, kMaxPlausiblePcieWidth);
  }
  return std::nullopt;
}

void remove_from(NvidiaSmiTopo& topo, std::vector<Implausible>& removed) {
  for (TopoRow& row : topo.rows) {
    for (std::size_t i = 0; i < row.affinity.size(); ++i) {
      if (const auto id = implausible_id(row.affinity[i])) {
        removed.push_back({row.line, fmt::format("{}, {}: id {} is beyond any machine (2^20)",
                                                 row.device, topo.affinity_columns[i], *id)});
        row.affinity[i] = "N/A";
      }
    }
  }
}

void remove_from(IbstatOutput& output, std::vector<Implausible>& removed) {
  for (IbstatCa& ca : output.cas) {
    erase_implausible(
        ca.ports, fmt::format("{} port: ", ca.name),
        [](const IbstatPort& port) {
          return rate("Rate", port.rate_gbps / 8e-9, fmt::format("{:g} Gb/s", port.rate_gbps));
        },
        removed);
  }
}

void remove_from(LspciOutput& output, std::vector<Implausible>& removed) {
  for (LspciFunction& function : output.functions) {
    for (auto* reading : {&function.capable, &function.trained}) {
      if (*reading) {
        if (const Problem problem = pcie_problem(**reading)) {
          removed.push_back(
              {(*reading)->line,
               fmt::format("{} {}: {}", function.address,
                           reading == &function.capable ? "LnkCap" : "LnkSta", *problem)});
          reading->reset();
        }
      }
    }
    if (function.numa_node &&
        (*function.numa_node < -1 || *function.numa_node >= kMaxPlausibleCpuId)) {
      removed.push_back({function.line, fmt::format("{}: NUMA node {} is beyond any machine",
                                                    function.address, *function.numa_node)});
      function.numa_node.reset();
    }
  }
}

void remove_from(Ibdev2netdevOutput& /*output*/, std::vector<Implausible>& /*removed*/) {
  // Names and states only: no reading with a bound.
}

void remove_from(PerftestOutput& output, std::vector<Implausible>& removed) {
  for (PerftestRun& run : output.runs) {
    erase_implausible(
        run.bw_rows, "",
        [&run](const PerftestBandwidthRow& row) { return bandwidth_row_problem(row, run.bw_unit); },
        removed);
    erase_implausible(run.lat_rows, "", latency_row_problem, removed);
  }
}

void remove_from(NcclTestsOutput& output, std::vector<Implausible>& removed) {
  for (NcclTestsRun& run : output.runs) {
    erase_implausible(run.rows, "", nccl_row_problem, removed);
    if (run.avg_busbw_GBps) {
      if (const Problem problem = rate("# Avg bus bandwidth", *run.avg_busbw_GBps * 1e9,
                                       fmt::format("{:.3g} GB/s", *run.avg_busbw_GBps))) {
        removed.push_back({run.line, *problem + " (the run's closing line)"});
        run.avg_busbw_GBps.reset();
      }
    }
  }
}

template <class Output>
std::vector<Implausible> sorted_removal(Output& output) {
  std::vector<Implausible> removed;
  remove_from(output, removed);
  std::stable_sort(removed.begin(), removed.end(),
                   [](const Implausible& a, const Implausible& b) { return a.line < b.line; });
  return removed;
}

}  // namespace

std::vector<Implausible> remove_implausible(ToolOutput& output) {
  return std::visit([](auto& tool) { return sorted_removal(tool); }, output);
}

std::vector<Implausible> remove_implausible(PerftestOutput& output) {
  return sorted_removal(output);
}

std::vector<Implausible> remove_implausible(NcclTestsOutput& output) {
  return sorted_removal(output);
}

std::vector<std::string> implausible_warnings(const std::string& file,
                                              const std::vector<Implausible>& removed,
                                              bool strict) {
  std::vector<std::string> warnings;
  for (const Implausible& item : removed) {
    if (strict) {
      throw ParseError(file, item.line, item.what + " (--strict)");
    }
    warnings.push_back(
        fmt::format("{}: {}; not used as a measurement", place(file, item.line), item.what));
  }
  return warnings;
}

}  // namespace railsim::calibrate::parse
