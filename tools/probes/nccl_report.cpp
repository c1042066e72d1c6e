// File: tools/probes/nccl_report.cpp
#include "tools/probes/nccl_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace railsim::tools::probes {
namespace {

// Times keep about seven characters, as nccl-tests' column does: 1405.25, 10061.7, 158724.
std::string time_text(double time_us) {
  if (time_us < 10000.0) {
    return fmt::format("{:.2f}", time_us);
  }
  if (time_us < 100000.0) {
    return fmt::format("{:.1f}", time_us);
  }
  return fmt::format("{:.0f}", time_us);
}

std::string wrong_text(const std::optional<std::int64_t>& wrong) {
  return wrong ? std::to_string(*wrong) : "N/A";
}

// A reduction column: "sum" for the reducing collectives, "none" for AllGather.
std::string_view redop_name(NcclOp op) { return op == NcclOp::kAllGather ? "none" : "sum"; }

}  // namespace

double algbw_gbps(std::int64_t size_bytes, double time_us) {
  // bytes / (time_us * 1e-6 s) / 1e9 = bytes / time_us / 1e3.
  return time_us > 0.0 ? static_cast<double>(size_bytes) / time_us / 1e3 : 0.0;
}

double busbw_factor(NcclOp op, int nranks) {
  const double n = nranks;
  return op == NcclOp::kAllReduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

void print_nccl_tests(std::ostream& out,
                      const NcclRunInfo& info,
                      const std::vector<NcclRow>& rows) {
  const int nranks = static_cast<int>(info.ranks.size());
  fmt::print(out, "# railsim-probe-nccl nccl-library={}\n", info.nccl_version);
  fmt::print(out, "# Collective test starting: {}_perf\n", op_name(info.op));
  fmt::print(out,
             "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {}(factor) warmup iters: {} "
             "iters: {} agg iters: 1 validation: {} graph: 0\n",
             info.sizes.min_bytes, info.sizes.max_bytes, info.sizes.factor, info.warmup,
             info.iterations, info.check ? 1 : 0);
  fmt::print(out, "#\n# Using devices\n");
  for (const RankInfo& rank : info.ranks) {
    print_rank_line(out, rank);
  }
  fmt::print(out, "#\n");
  fmt::print(out, "# {:>58}{:>35}\n", "out-of-place", "in-place");
  fmt::print(out,
             "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  "
             "{:>6}  {:>6}  {:>6}\n",
             "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
             "algbw", "busbw", "#wrong");
  fmt::print(out,
             "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  "
             "{:>6}  {:>6}  {:>6}\n",
             "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
             "(GB/s)", "");
  const double factor = busbw_factor(info.op, nranks);
  double busbw_sum = 0.0;
  std::int64_t wrong_total = 0;
  for (const NcclRow& row : rows) {
    fmt::print(out, "  {:>10}  {:>12}  {:>8}  {:>6}  {:>6}", row.size_bytes, row.count,
               type_name(info.type), redop_name(info.op), -1);
    for (const NcclPlacementResult* result : {&row.out_of_place, &row.in_place}) {
      const double algbw = algbw_gbps(row.size_bytes, result->time_us);
      const double busbw = algbw * factor;
      busbw_sum += busbw;
      wrong_total += result->wrong.value_or(0);
      fmt::print(out, "  {:>7}  {:>6.2f}  {:>6.2f}  {:>6}", time_text(result->time_us), algbw,
                 busbw, wrong_text(result->wrong));
    }
    fmt::print(out, "\n");
  }
  fmt::print(out, "# Out of bounds values : {} {}\n", wrong_total,
             wrong_total == 0 ? "OK" : "FAILED");
  const double average = rows.empty() ? 0.0 : busbw_sum / (2.0 * static_cast<double>(rows.size()));
  fmt::print(out, "# Avg bus bandwidth    : {:.4f} \n#\n", average);
}

}  // namespace railsim::tools::probes
