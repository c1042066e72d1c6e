// File: tools/probes/verbs_report.cpp
// The perftest layout follows what its programs print (tests/data/perftest_*.txt): a settings
// block of "Name : value" pairs, two per line where perftest pairs them, the address lines, the
// column header and rows with two decimals (six for the message rate).
#include "tools/probes/verbs_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace railsim::tools::probes {
namespace {

constexpr std::string_view kRule =
    "---------------------------------------------------------------------------------------\n";
constexpr double kMebibyte = 1024.0 * 1024.0;

void print_header(std::ostream& out, const VerbsRunInfo& info, std::string_view title, bool bw) {
  fmt::print(out, "{}                    {}\n", kRule, title);
  fmt::print(out, " Program         : railsim-probe-verbs\n");
  fmt::print(out, " Dual-port       : OFF\t\tDevice         : {}\n", info.device);
  fmt::print(out, " Number of qps   : 1\t\tTransport type : IB\n");
  fmt::print(out, " Connection type : RC\t\tUsing SRQ      : OFF\n");
  fmt::print(out, " IB port         : {}\n", info.ib_port);
  fmt::print(out, " TX depth        : {}\n", bw ? info.tx_depth : 1);
  if (bw) {
    fmt::print(out, " CQ Moderation   : {}\n", info.cq_mod);
  }
  fmt::print(out, " Mtu             : {}[B]\n", info.mtu_bytes);
  fmt::print(out, " Link type       : {}\n", info.link_layer);
  if (info.gid_index >= 0) {
    fmt::print(out, " GID index       : {}\n", info.gid_index);
  }
  fmt::print(out, " Max inline data : 0[B]\n");
  fmt::print(out, " rdma_cm QPs\t : OFF\n");
  fmt::print(out, " Data ex. method : Ethernet\n");
  fmt::print(out, "{}", kRule);
  for (const auto& [side, endpoint] :
       {std::pair{"local", &info.local}, std::pair{"remote", &info.remote}}) {
    fmt::print(
        out, " {} address: LID {:#06x} QPN {:#08x} PSN {:#08x} RKey {:#010x} VAddr {:#016x}\n",
        side, endpoint->lid, endpoint->qp_num, endpoint->psn, endpoint->rkey, endpoint->addr);
    if (info.gid_index >= 0) {
      fmt::print(out, " GID: {}\n", gid_text(endpoint->gid));
    }
  }
  fmt::print(out, "{}", kRule);
}

void print_bw(std::ostream& out, const VerbsReport& report, bool report_gbits) {
  print_header(out, report.info, "RDMA_Write BW Test", true);
  const std::string_view unit = report_gbits ? "Gb/sec" : "MB/sec";
  fmt::print(out, " #bytes     #iterations    BW peak[{0}]    BW average[{0}]   MsgRate[Mpps]\n",
             unit);
  for (const BandwidthStats& row : report.write_bw) {
    const double peak = report_gbits ? in_gbits(row.bw_peak_Bps) : in_perftest_mb(row.bw_peak_Bps);
    const double average =
        report_gbits ? in_gbits(row.bw_average_Bps) : in_perftest_mb(row.bw_average_Bps);
    fmt::print(out, " {:<10} {:<10}       {:<8.2f}           {:<8.2f}\t\t   {:.6f}\n",
               row.size_bytes, row.iterations, peak, average, row.msg_rate_Mpps);
  }
  fmt::print(out, "{}", kRule);
}

void print_lat(std::ostream& out, const VerbsReport& report) {
  print_header(out, report.info, "RDMA_Write Latency Test", false);
  fmt::print(out,
             " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
             "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n");
  for (const LatencyRow& row : report.write_lat) {
    const LatencyStats& s = row.stats;
    fmt::print(out,
               " {:<7} {:<10} {:>10.2f}     {:>10.2f}   {:>10.2f}     {:>10.2f}       {:>10.2f}"
               "        {:>10.2f}             {:>10.2f}\n",
               row.size_bytes, s.iterations, s.t_min_us, s.t_max_us, s.t_typical_us, s.t_avg_us,
               s.t_stdev_us, s.p99_us, s.p99_9_us);
  }
  fmt::print(out, "{}", kRule);
}

}  // namespace

double in_perftest_mb(double bytes_per_s) { return bytes_per_s / kMebibyte; }

double in_gbits(double bytes_per_s) { return bytes_per_s * 8.0 / 1e9; }

void print_perftest(std::ostream& out, const VerbsReport& report, bool report_gbits) {
  if (!report.write_bw.empty()) {
    print_bw(out, report, report_gbits);
  }
  if (!report.write_lat.empty()) {
    print_lat(out, report);
  }
}

std::string verbs_json(const VerbsReport& report) {
  const VerbsRunInfo& info = report.info;
  nlohmann::json json = {{"program", "railsim-probe-verbs"},
                         {"device", info.device},
                         {"ib_port", info.ib_port},
                         {"link_layer", info.link_layer},
                         {"mtu_bytes", info.mtu_bytes},
                         {"tx_depth", info.tx_depth},
                         {"cq_mod", info.cq_mod}};
  if (info.gid_index >= 0) {
    json["gid_index"] = info.gid_index;
  }
  if (!report.write_bw.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const BandwidthStats& row : report.write_bw) {
      rows.push_back({{"size_bytes", row.size_bytes},
                      {"iterations", row.iterations},
                      {"bw_peak_Gbps", in_gbits(row.bw_peak_Bps)},
                      {"bw_average_Gbps", in_gbits(row.bw_average_Bps)},
                      {"msg_rate_Mpps", row.msg_rate_Mpps}});
    }
    json["write_bw"] = std::move(rows);
  }
  if (!report.write_lat.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const LatencyRow& row : report.write_lat) {
      const LatencyStats& s = row.stats;
      rows.push_back({{"size_bytes", row.size_bytes},
                      {"iterations", s.iterations},
                      {"t_min_us", s.t_min_us},
                      {"t_max_us", s.t_max_us},
                      {"t_typical_us", s.t_typical_us},
                      {"t_avg_us", s.t_avg_us},
                      {"t_stdev_us", s.t_stdev_us},
                      {"p99_us", s.p99_us},
                      {"p99_9_us", s.p99_9_us}});
    }
    json["write_lat"] = std::move(rows);
  }
  return json.dump(2) + "\n";
}

}  // namespace railsim::tools::probes
