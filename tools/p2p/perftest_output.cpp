// File: tools/p2p/perftest_output.cpp
#include "tools/p2p/perftest_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

namespace railsim::tools {
namespace {

constexpr const char* kRule =
    "---------------------------------------------------------------------------------------\n";

// "n0.host", "n1.gpu3": one word, as perftest's header values are (railsim parse reads them so).
std::string buffer_text(models::Endpoint end) {
  return end.gpu == models::kHostMemory ? fmt::format("n{}.host", end.node)
                                        : fmt::format("n{}.gpu{}", end.node, end.gpu);
}

}  // namespace

void print_banner(std::ostream& out,
                  const char* title,
                  int tx_depth,
                  const std::string& nic_name,
                  const std::string& system_name,
                  models::Endpoint from,
                  models::Endpoint to) {
  std::string system = system_name;
  std::replace_if(
      system.begin(), system.end(), [](char c) { return c == ' ' || c == '\t'; }, '_');
  fmt::print(out, "{}                    {}\n", kRule, title);
  fmt::print(out, " Device          : {}\t\tModel          : railsim\n", nic_name);
  fmt::print(out, " Number of qps   : 1\t\tTransport type : IB\n");
  fmt::print(out, " Connection type : RC\t\tUsing SRQ      : OFF\n");
  fmt::print(out, " TX depth        : {}\n", tx_depth);
  fmt::print(out, " Mtu             : 4096[B]\n");
  fmt::print(out, " Link type       : IB\n");
  fmt::print(out, " System          : {}\n", system);
  fmt::print(out, " Buffers         : {}->{}\n", buffer_text(from), buffer_text(to));
}

void print_bandwidth_table(std::ostream& out,
                           const std::vector<models::RdmaStreamResult>& rows,
                           bool gbits) {
  const auto in_unit = [gbits](double bytes_per_s) {
    return gbits ? bytes_per_s * 8e-9 : bytes_per_s / (1024.0 * 1024.0);
  };
  const char* unit = gbits ? "Gb/sec" : "MB/sec";
  fmt::print(out, "{} #bytes     #iterations    BW peak[{}]    BW average[{}]   MsgRate[Mpps]\n",
             kRule, unit, unit);
  for (const models::RdmaStreamResult& r : rows) {
    fmt::print(out, " {:<7}    {:<7}          {:<7.2f}            {:<7.2f}\t\t   {:<7.6f}\n",
               r.size, r.iterations, in_unit(r.peak_bytes_per_s), in_unit(r.average_bytes_per_s),
               r.average_bytes_per_s / static_cast<double>(r.size) * 1e-6);
  }
  fmt::print(out, "{}", kRule);
}

void print_latency_table(std::ostream& out, const std::vector<LatencyRow>& rows) {
  fmt::print(out,
             "{} #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
             "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n",
             kRule);
  for (const LatencyRow& r : rows) {
    fmt::print(out,
               " {:<7} {}          {:<7.2f}        {:<7.2f}      {:<7.2f}  \t       {:<7.2f}     "
               "\t{:<7.2f}\t\t{:<7.2f} \t\t{:<7.2f}\n",
               r.size, r.iterations, r.latency_us, r.latency_us, r.latency_us, r.latency_us, 0.0,
               r.latency_us, r.latency_us);
  }
  fmt::print(out, "{}", kRule);
}

nlohmann::ordered_json latency_json(const LatencyRow& r) {
  const double t = r.latency_us;
  return {{"size_bytes", r.size}, {"iterations", r.iterations},
          {"t_min_us", t},        {"t_max_us", t},
          {"t_typical_us", t},    {"t_avg_us", t},
          {"t_stdev_us", 0.0},    {"p99_us", t},
          {"p99_9_us", t},        {"lat_us", t}};
}
}  // namespace railsim::tools
