// File: tests/calibrate/parse/damaged_input_test.cpp
// Damaged and unknown inputs, each built from a small well-formed sample of its format with one
// line changed (or from a real log cut mid-row): every one is one ParseError naming the file,
// the line that is wrong (0 for the whole file) and what was expected. Never a crash, never a
// partial result.
#include "tests/calibrate/fixture.hpp"

#include "calibrate/parse/tool_output.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace railsim::calibrate::parse {
namespace {

// Well-formed samples; the comment numbers their lines.
constexpr std::string_view kPerftestBw =
    "                    RDMA_Write BW Test\n"                                              // 1
    " Device         : mlx5_0\n"                                                            // 2
    " Number of qps   : 1\n"                                                                // 3
    " Mtu             : 4096[B]\n"                                                          // 4
    "---------------------------------------------------------------------------------\n"   // 5
    " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"    // 6
    " 65536      5000             23323.12            22714.61\t\t   0.363434\n"            // 7
    "---------------------------------------------------------------------------------\n";  // 8

constexpr std::string_view kPerftestLat =
    "                    RDMA_Write Latency Test\n"                                        // 1
    " Device         : mlx5_0\n"                                                           // 2
    " Number of qps   : 1\n"                                                               // 3
    " Mtu             : 4096[B]\n"                                                         // 4
    "---------------------------------------------------------------------------------\n"  // 5
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"  // 6
    " 2       1000          1.79           5.41         1.87     \t       1.88        \t0.18 "
    "  \t\t2.03    \t5.41   \n"                                                             // 7
    "---------------------------------------------------------------------------------\n";  // 8

constexpr std::string_view kNccl =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 agg "
    "iters: 1 validation: 1 graph: 0\n"                                                  // 1
    "#  Rank  0 Group  0 Pid   6899 on node-a device  0 [0x04] NVIDIA H100 80GB HBM3\n"  // 2
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong "
    "    time   algbw   busbw  #wrong\n"  // 3
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
    "     (us)  (GB/s)  (GB/s)\n"  // 4
    "           8             2     float     sum      -1    135.8    0.00    0.00      0 "
    "   123.5    0.00    0.00      0\n"  // 5
    "# Out of bounds values : 0 OK\n"    // 6
    "# Avg bus bandwidth    : 0.00\n";   // 7

constexpr std::string_view kTopo =
    "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"  // 1
    "GPU0\t X \tNV18\tPIX\t0-55,112-167\t0\t\tN/A\n"                  // 2
    "GPU1\tNV18\t X \tSYS\t0-55,112-167\t0\t\tN/A\n"                  // 3
    "NIC0\tPIX\tSYS\t X \n"                                           // 4
    "\n"                                                              // 5
    "Legend:\n"                                                       // 6
    "\n"                                                              // 7
    "  X    = Self\n"                                                 // 8
    "\n"                                                              // 9
    "NIC Legend:\n"                                                   // 10
    "\n"                                                              // 11
    "  NIC0: mlx5_0\n";                                               // 12

constexpr std::string_view kIbdev2netdev =
    "mlx5_0 port 1 ==> ibp24s0 (Up)\n"   // 1
    "mlx5_1 port 1 ==> ibp64s0 (Up)\n";  // 2

constexpr std::string_view kIbstat =
    "CA 'mlx5_0'\n"                     // 1
    "\tCA type: MT4129\n"               // 2
    "\tNumber of ports: 1\n"            // 3
    "\tFirmware version: 28.41.1000\n"  // 4
    "\tPort 1:\n"                       // 5
    "\t\tState: Active\n"               // 6
    "\t\tPhysical state: LinkUp\n"      // 7
    "\t\tRate: 400\n"                   // 8
    "\t\tLink layer: InfiniBand\n";     // 9

// `text` with line `number` replaced by `replacement` (which may hold several lines, or none).
std::string with_line(std::string_view text, int number, const std::string& replacement) {
  std::istringstream in{std::string(text)};
  std::string out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n != number) {
      out += line + "\n";
    } else if (!replacement.empty()) {
      out += replacement + "\n";
    }
  }
  return out;
}

// The first `lines` lines of `text`.
std::string first_lines(std::string_view text, int lines) {
  std::size_t at = 0;
  for (int n = 0; n < lines; ++n) {
    at = text.find('\n', at) + 1;
  }
  return std::string(text.substr(0, at));
}

struct Damaged {
  const char* name;
  const char* as;  // nullptr: detect the format
  std::string text;
  int line;
  const char* fragment;
};

std::vector<Damaged> damaged_inputs() {
  const std::string topo_gpu0 = "GPU0\t X \tNV18\tPIX\t0-55,112-167\t0\t\tN/A";
  return {
      // perftest
      {"perftest_row_missing_columns", "perftest",
       with_line(kPerftestBw, 7, " 65536  5000  23323.12"), 7, "expected a table row of 5 columns"},
      {"perftest_row_repeated", "perftest",
       with_line(kPerftestBw, 7,
                 " 65536  5000  23323.12  22714.61  0.363434\n"
                 " 65536  5000  23000.00  22000.00  0.350000"),
       8, "a second row for 65536 bytes in this test (the first at line 7)"},
      {"perftest_size_nan", "perftest",
       with_line(kPerftestBw, 7, " nan  5000  23323.12  22714.61  0.363434"), 7,
       "expected a message size in bytes (#bytes), got 'nan'"},
      {"perftest_rate_not_a_number", "perftest",
       with_line(kPerftestBw, 7, " 65536  5000  23323.1x  22714.61  0.363434"), 7,
       "expected BW peak (a number), got '23323.1x'"},
      {"perftest_negative_rate", "perftest",
       with_line(kPerftestBw, 7, " 65536  5000  -23323.12  22714.61  0.363434"), 7,
       "expected BW peak (a number >= 0)"},
      {"perftest_huge_size", "perftest",
       with_line(kPerftestBw, 7, " 99999999999999999999999  5000  1.0  1.0  1.0"), 7,
       "expected a message size in bytes (#bytes) from 1 to"},
      {"perftest_zero_iterations", "perftest",
       with_line(kPerftestBw, 7, " 65536  0  1.0  1.0  1.0"), 7,
       "expected an iteration count (#iterations) from 1 to"},
      {"perftest_unknown_unit", "perftest",
       with_line(kPerftestBw, 6,
                 " #bytes #iterations BW peak[KB/sec] BW average[KB/sec] MsgRate[Mpps]"),
       6, "expected a bandwidth unit of MB/sec, MiB/sec or Gb/sec, got 'BW peak[KB/sec]'"},
      {"perftest_units_differ", "perftest",
       with_line(kPerftestBw, 6,
                 " #bytes #iterations BW peak[MB/sec] BW average[Gb/sec] MsgRate[Mpps]"),
       6, "expected BW peak and BW average in one unit"},
      {"perftest_swapped_columns", "perftest",
       with_line(kPerftestBw, 6,
                 " #iterations #bytes BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"),
       6, "expected the bandwidth columns"},
      {"perftest_unknown_test", "perftest", with_line(kPerftestBw, 1, "   Atomic BW Test"), 1,
       "expected a perftest test of RDMA_Write, RDMA_Read or Send, got 'Atomic'"},
      {"perftest_no_mtu", "perftest", with_line(kPerftestBw, 4, ""), 1,
       "expected 'Mtu : ...' in the header of this test"},
      {"perftest_mtu_without_unit", "perftest", with_line(kPerftestBw, 4, " Mtu : 4096"), 4,
       "expected an MTU such as 4096[B], got '4096'"},
      {"perftest_qps_not_a_number", "perftest", with_line(kPerftestBw, 3, " Number of qps : one"),
       3, "expected a number of queue pairs, got 'one'"},
      {"perftest_garbage_in_settings", "perftest",
       with_line(kPerftestBw, 2, " Device         : mlx5_0\n this is no setting"), 3,
       "expected the test's settings as 'Name : value'"},
      {"perftest_header_without_rows", "perftest", first_lines(kPerftestBw, 6), 6,
       "expected result rows under the header at line 6"},
      {"perftest_ends_in_settings", "perftest", first_lines(kPerftestBw, 4), 4,
       "expected the result header (#bytes #iterations ...) of the test at line 1, got the end"},
      {"perftest_binary_byte_in_latency", "perftest",
       with_line(kPerftestLat, 7,
                 std::string(" 2  1000  1.79\x01  5.41  1.87  1.88  0.18  2.03  5.41")),
       7, "expected t_min (a number), got '1.79\\x01'"},
      {"perftest_latency_columns_cut", "perftest",
       with_line(kPerftestLat, 6, " #bytes #iterations t_min[usec] t_max[usec]"), 6,
       "expected the latency columns"},
      // nccl-tests
      {"nccl_row_missing_column", "nccl-tests",
       with_line(kNccl, 5, "  8  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00"), 5,
       "expected a table row of 13 columns"},
      {"nccl_unknown_type", "nccl-tests",
       with_line(kNccl, 5, "  8  2  flaot  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"), 5,
       "expected a data type (int8, "},
      {"nccl_unknown_redop", "nccl-tests",
       with_line(kNccl, 5, "  8  2  float  add  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"), 5,
       "expected a reduction (sum, "},
      {"nccl_time_not_a_number", "nccl-tests",
       with_line(kNccl, 5, "  8  2  float  sum  -1  13x.8  0.00  0.00  0  123.5  0.00  0.00  0"), 5,
       "expected a time in us (a number), got '13x.8'"},
      {"nccl_wrong_not_a_count", "nccl-tests",
       with_line(kNccl, 5, "  8  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  x"), 5,
       "expected a count of wrong elements (#wrong) or N/A, got 'x'"},
      {"nccl_huge_size", "nccl-tests",
       with_line(
           kNccl, 5,
           "  99999999999999999999  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"),
       5, "expected a size in bytes from 0 to"},
      {"nccl_negative_count", "nccl-tests",
       with_line(kNccl, 5, "  8  -2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"),
       5, "expected a count of elements from 0 to"},
      {"nccl_unknown_time_unit", "nccl-tests",
       with_line(kNccl, 4, "#  (B)  (elements)  (ms)  (GB/s)  (GB/s)  (us)  (GB/s)  (GB/s)"), 4,
       "expected the units '(B) (elements) (us) (GB/s) (GB/s) (us) (GB/s) (GB/s)'"},
      {"nccl_swapped_columns", "nccl-tests",
       with_line(kNccl, 3,
                 "#  size  count  type  redop  root  algbw  time  busbw  #wrong  time  algbw  "
                 "busbw  #wrong"),
       3, "expected the nccl-tests columns 'size count type redop root time algbw busbw"},
      {"nccl_header_at_end", "nccl-tests", first_lines(kNccl, 3), 3,
       "expected the units line '(B) (elements) (us) (GB/s) ...' under the column header, got "
       "the end of the file"},
      {"nccl_table_without_rows", "nccl-tests", with_line(kNccl, 5, ""), 5,
       "expected result rows under the column header at line 3"},
      {"nccl_row_after_the_table", "nccl-tests",
       with_line(kNccl, 6,
                 "#\n  16  4  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"),
       7, "expected '# Avg bus bandwidth' after the table, got a table row"},
      {"nccl_unknown_step_kind", "nccl-tests",
       with_line(kNccl, 1, "# nThread 1 nGpus 1 step: 2(times)"), 1,
       "expected step as N(factor) or N(bytes), got '2(times)'"},
      {"nccl_rank_line_without_pid", "nccl-tests",
       with_line(kNccl, 2, "#  Rank  0 Group  0 Pid x on node-a device 0 [0x04] H100"), 2,
       "expected a process id, got 'x'"},
      {"nccl_run_died_before_its_table", "nccl-tests",
       with_line(kNccl, 2,
                 "#  Rank  0 Group  0 Pid 1 on a device 0 [0x04] H100\n# nThread 1 nGpus 1"),
       1, "expected the results table of the run that starts here before the next run (line 3)"},
      {"nccl_average_not_a_number", "nccl-tests", with_line(kNccl, 7, "# Avg bus bandwidth : fast"),
       7, "expected an average bus bandwidth in GB/s (a number), got 'fast'"},
      {"nccl_size_nan", "nccl-tests",
       with_line(kNccl, 5, "  nan  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"),
       5, "expected a size in bytes, got 'nan'"},
      {"nccl_size_minus_inf", "nccl-tests",
       with_line(kNccl, 5, "  -INF  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0"),
       5, "expected a size in bytes, got '-INF'"},
      {"nccl_time_nan", "nccl-tests",
       with_line(kNccl, 5, "  8  2  float  sum  -1  -nan  0.00  0.00  0  123.5  0.00  0.00  0"), 5,
       "expected a time in us (a number), got '-nan'"},
      {"nccl_row_repeated", "nccl-tests",
       with_line(kNccl, 5,
                 "  8  2  float  sum  -1  135.8  0.00  0.00  0  123.5  0.00  0.00  0\n"
                 "  8  2  float  sum  -1  136.0  0.00  0.00  0  124.0  0.00  0.00  0"),
       6, "a second row for 8 bytes in this run (the first at line 5)"},
      {"nccl_rank_repeated", "nccl-tests",
       with_line(kNccl, 2,
                 "#  Rank  0 Group  0 Pid 1 on a device 0 [0x04] H100\n"
                 "#  Rank  0 Group  0 Pid 2 on b device 0 [0x04] H100"),
       3, "rank 0 is listed twice in this run (first at line 2)"},
      // nvidia-smi topo -m
      {"topo_second_row_after_the_matrix", "nvidia-smi-topo",
       with_line(kTopo, 5, "GPU1\tNV18\t X \tPIX\t0-55,112-167\t0\t\tN/A"), 5,
       "a second row for GPU1 after the matrix (its row is at line 3)"},
      {"topo_second_matrix", "nvidia-smi-topo",
       with_line(kTopo, 9, std::string(first_lines(kTopo, 1)).substr(0, 50)), 9,
       "a second matrix header (the first at line 1)"},
      {"topo_nic_legend_repeated", "nvidia-smi-topo",
       with_line(kTopo, 12, "  NIC0: mlx5_0\n  NIC0: mlx5_3"), 13,
       "NIC0 is already in the NIC legend (NIC0: mlx5_0)"},
      {"topo_row_missing_cell", "nvidia-smi-topo",
       with_line(kTopo, 3, "GPU1\tNV18\t X \t0-55\t0\tN/A"), 3,
       "GPU1, column NIC0: expected X, NV#, PIX, PXB, PHB, NODE or SYS, got '0-55'"},
      {"topo_row_missing_affinity_value", "nvidia-smi-topo",
       with_line(kTopo, 3, "GPU1\tNV18\t X \tSYS\t0-55\t0"), 3,
       "expected 3 cells and then 3 affinity values or none in the row of GPU1, got 5 fields"},
      {"topo_unknown_cell", "nvidia-smi-topo",
       with_line(kTopo, 3, "GPU1\tNV18\t X \tPCI\t0-55,112-167\t0\tN/A"), 3,
       "GPU1, column NIC0: expected X, NV#, PIX, PXB, PHB, NODE or SYS, got 'PCI'"},
      {"topo_x_off_the_diagonal", "nvidia-smi-topo",
       with_line(kTopo, 3, "GPU1\t X \tNV18\tSYS\t0-55,112-167\t0\tN/A"), 3,
       "GPU1, column GPU0: expected a distance (X only on the diagonal), got 'X'"},
      {"topo_bad_cpu_list", "nvidia-smi-topo",
       with_line(kTopo, 3, "GPU1\tNV18\t X \tSYS\t0-55;112\t0\tN/A"), 3,
       "GPU1, CPU Affinity: expected a CPU list such as 0-31,64-95, got '0-55;112'"},
      {"topo_rows_out_of_order", "nvidia-smi-topo", with_line(kTopo, 2, ""), 2,
       "expected the row of GPU0 (row 1 of the 3 the header names), got 'GPU1'"},
      {"topo_empty_line_inside_the_matrix", "nvidia-smi-topo", with_line(kTopo, 3, " "), 3,
       "expected the row of GPU1 (row 2 of the 3 the header names), got 'an empty line'"},
      {"topo_nic_legend_of_no_nic", "nvidia-smi-topo", with_line(kTopo, 12, "  NIC5: mlx5_5"), 12,
       "expected a NIC of the matrix in the NIC legend, got 'NIC5'"},
      {"topo_header_only", "nvidia-smi-topo", first_lines(kTopo, 1), 1,
       "expected the row of GPU0 under the header, got the end of the file"},
      {"topo_nvlink_count_absurd", "nvidia-smi-topo",
       with_line(kTopo, 2, "GPU0\t X \tNV999\tPIX\t0-55,112-167\t0\tN/A"), 2,
       "GPU0, column GPU1: expected X, NV#, PIX, PXB, PHB, NODE or SYS, got 'NV999'"},
      {"topo_gpu_numa_id_not_a_number", "nvidia-smi-topo",
       with_line(kTopo, 2, topo_gpu0.substr(0, topo_gpu0.size() - 3) + "zero"), 2,
       "GPU0, GPU NUMA ID: expected a NUMA node or N/A, got 'zero'"},
      // ibdev2netdev
      {"ibdev2netdev_unknown_link_state", "ibdev2netdev",
       with_line(kIbdev2netdev, 2, "mlx5_1 port 1 ==> ibp64s0 (Sideways)"), 2,
       "expected 'NETDEV (Up)' or 'NETDEV (Down)' after '==>', got 'ibp64s0 (Sideways)'"},
      {"ibdev2netdev_port_repeated", "ibdev2netdev",
       with_line(kIbdev2netdev, 2, "mlx5_0 port 1 ==> ibp64s0 (Up)"), 2,
       "mlx5_0 port 1 is listed twice (first at line 1)"},
      {"ibdev2netdev_port_not_a_number", "ibdev2netdev",
       with_line(kIbdev2netdev, 2, "mlx5_1 port one ==> ibp64s0 (Up)"), 2,
       "expected a port number, got 'one'"},
      {"ibdev2netdev_no_port", "ibdev2netdev",
       with_line(kIbdev2netdev, 1, "mlx5_0 ==> ibp24s0 (Up)"), 1,
       "expected 'DEVICE port N' before '==>'"},
      {"ibdev2netdev_nul_in_the_device", "ibdev2netdev",
       with_line(kIbdev2netdev, 2,
                 std::string("mlx5_\0"
                             "1 port 1 ==> ibp64s0 (Up)",
                             31)),
       2, "expected one device name before 'port', got 'mlx5_\\x001'"},
      {"ibdev2netdev_nul_in_the_netdev", "ibdev2netdev",
       with_line(kIbdev2netdev, 2,
                 std::string("mlx5_1 port 1 ==> ibp\0"
                             "64s0 (Up)",
                             31)),
       2, "expected 'NETDEV (Up)' or 'NETDEV (Down)' after '==>', got 'ibp\\x0064s0 (Up)'"},
      {"ibdev2netdev_verbose_without_firmware", "ibdev2netdev",
       with_line(kIbdev2netdev, 1,
                 "0000:0c:00.0 mlx5_0 (MT4123 - MCX653105A-HDAT) ConnectX-6 port 1 (ACTIVE) ==> "
                 "ib0 (Up)"),
       1, "expected '[PCI] DEVICE (TYPE - PART) DESCRIPTION fw VERSION' before 'port'"},
      // ibstat
      {"ibstat_port_without_rate", "ibstat", with_line(kIbstat, 8, ""), 5,
       "CA 'mlx5_0' port 1: expected its State, Physical state, Rate and Link layer"},
      {"ibstat_fewer_ports_than_said", "ibstat", with_line(kIbstat, 3, "\tNumber of ports: 2"), 1,
       "CA 'mlx5_0' says it has 2 ports, expected as many 'Port N:' blocks, got 1"},
      {"ibstat_unknown_field", "ibstat", with_line(kIbstat, 4, "\tColour: blue"), 4,
       "expected a CA field of ibstat"},
      {"ibstat_ca_repeated", "ibstat",
       with_line(kIbstat, 9, "\t\tLink layer: InfiniBand\nCA 'mlx5_0'"), 10,
       "CA 'mlx5_0' is listed twice (first at line 1)"},
      {"ibstat_port_repeated", "ibstat",
       with_line(kIbstat, 9, "\t\tLink layer: InfiniBand\n\tPort 1:"), 10,
       "CA 'mlx5_0' port 1 is listed twice (first at line 5)"},
      {"ibstat_rate_not_a_number", "ibstat", with_line(kIbstat, 8, "\t\tRate: fast"), 8,
       "expected a rate in Gb/s (a number), got 'fast'"},
      {"ibstat_line_without_colon", "ibstat", with_line(kIbstat, 6, "\t\tActive"), 6,
       "expected 'Name: value' in CA 'mlx5_0', got 'Active'"},
      // the whole file
      {"empty_file", nullptr, "", 0, "the file is empty"},
      {"blank_file", nullptr, " \n\t\n\n", 0, "the file is empty"},
      {"another_tools_output", nullptr,
       "lo               UNKNOWN        00:00:00:00:00:00 <LOOPBACK,UP,LOWER_UP>\n"
       "ibp24s0          UP             00:00:10:29:fe:80 <BROADCAST,MULTICAST,UP,LOWER_UP>\n",
       0,
       "not the output of a tool railsim reads (expected perftest, nccl-tests, "
       "nvidia-smi-topo, ibdev2netdev, ibstat, lspci; --as names the format)"},
      {"binary_bytes", nullptr,
       std::string("\x7f"
                   "ELF\x02\x01\x01\0\0\0\0",
                   11),
       0, "not the output of a tool railsim reads"},
      {"perftest_read_as_nccl_tests", "nccl-tests", std::string(kPerftestBw), 0,
       "expected nccl-tests output (a '#  size  count  type ...' column header), found none"},
      {"nccl_tests_read_as_ibstat", "ibstat", std::string(kNccl), 0, "expected ibstat output"},
      {"ibstat_read_as_perftest", "perftest", std::string(kIbstat), 0, "expected perftest output"},
      {"ibstat_read_as_topo", "nvidia-smi-topo", std::string(kIbstat), 0,
       "expected the matrix of nvidia-smi topo -m"},
      {"topo_read_as_ibdev2netdev", "ibdev2netdev", std::string(kTopo), 0,
       "expected ibdev2netdev output"},
  };
}

class DamagedInput : public ::testing::TestWithParam<Damaged> {};

TEST_P(DamagedInput, IsOneErrorNamingFileAndLine) {
  const Damaged& c = GetParam();
  const TextInput input("bad.txt", c.text);
  const std::optional<ToolFormat> format =
      c.as == nullptr ? std::nullopt : std::optional(tool_format_named(c.as));
  EXPECT_TRUE(
      test::fails_at([&] { parse_tool_output(input, format); }, "bad.txt", c.line, c.fragment));
}

INSTANTIATE_TEST_SUITE_P(Cases,
                         DamagedInput,
                         ::testing::ValuesIn(damaged_inputs()),
                         [](const ::testing::TestParamInfo<Damaged>& param) {
                           return std::string(param.param.name);
                         });

// The well-formed samples above do parse: the damage, not the sample, makes each error.
TEST(DamagedInput, TheSamplesThemselvesParse) {
  for (const auto& [as, text] :
       {std::pair{"perftest", kPerftestBw}, std::pair{"perftest", kPerftestLat},
        std::pair{"nccl-tests", kNccl}, std::pair{"nvidia-smi-topo", kTopo},
        std::pair{"ibdev2netdev", kIbdev2netdev}, std::pair{"ibstat", kIbstat}}) {
    const TextInput input("sample.txt", text);
    EXPECT_NO_THROW(parse_tool_output(input, tool_format_named(as))) << as;
    EXPECT_EQ(detect_format(input), tool_format_named(as)) << as;
  }
}

// Real logs cut in the middle of a row, as a copy interrupted mid-file leaves them.
TEST(DamagedInput, RealLogsCutMidRowFailAtTheCutLine) {
  struct Cut {
    const char* stem;
    int line;          // the row the cut falls in (grep -n on the log)
    std::size_t keep;  // characters of it kept
    const char* fragment;
  };

  for (const Cut& cut :
       {Cut{"perftest_write-bw-sweep+write-lat-sweep_cx6-hdr_2node_node0-node1", 65, 30,
            "expected a table row of 5 columns"},
        Cut{"nccl-tests_5ops_h100_1node-8gpu_xxrjun-cluster01", 25, 60,
            "expected a table row of 13 columns"},
        Cut{"topo_dgx-a100_nvidia-smi-topo-m_12nic", 6, 40,
            "GPU3, column GPU7: expected X, NV#, PIX, PXB, PHB, NODE or SYS, got 'N'"},
        Cut{"topo_dgx-a100_nvidia-smi-topo-m_12nic", 6, 39,
            "expected 20 cells and then 2 affinity values or none in the row of GPU3"}}) {
    const TextInput whole = test::fixture_text(cut.stem);
    std::string text;
    for (int n = 1; n < cut.line; ++n) {
      text += std::string(whole.line(n)) + "\n";
    }
    text += std::string(whole.line(cut.line).substr(0, cut.keep));
    const TextInput input("cut.txt", text);
    EXPECT_TRUE(test::fails_at([&] { parse_tool_output(input, std::nullopt); }, "cut.txt", cut.line,
                               cut.fragment))
        << cut.stem;
  }
}

}  // namespace
}  // namespace railsim::calibrate::parse
