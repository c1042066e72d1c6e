// File: tools/collective_command.cpp
// `railsim collective`: a size sweep of one collective over the model, printed in the columns
// and header lines of nccl-tests' *_perf programs (design.md §5), or as JSON or CSV, so a real
// log and the prediction can be laid side by side.
#include "railsim/version.hpp"

#include "models/collective/collective_run.hpp"
#include "models/scenario/quantity.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/system.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"
#include "tools/command.hpp"
#include "tools/command_line.hpp"
#include "tools/named_choice.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

constexpr std::int64_t kFloatBytes = 4;  // nccl-tests' default type, -d float

struct Row {
  std::int64_t size = 0;   // bytes, as nccl-tests prints it
  std::int64_t count = 0;  // elements, per rank for AllGather and ReduceScatter
  models::CollectiveResult result;
};

// nccl-tests' sizes from -b, -e and -f: min, min*f, ... up to max.
std::vector<std::int64_t> sweep(std::int64_t min, std::int64_t max, std::int64_t factor) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t s = min; s <= max; s *= factor) {
    sizes.push_back(s);
    if (factor == 1) {
      break;
    }
  }
  return sizes;
}

// nccl-tests' count and printed size: AllGather and ReduceScatter take a per-rank count
// rounded down to a whole element, and print n x that.
Row row_for(models::CollectiveOp op, std::int64_t size, int ranks) {
  Row row;
  const bool per_rank =
      op == models::CollectiveOp::kAllGather || op == models::CollectiveOp::kReduceScatter;
  row.count = per_rank ? size / (ranks * kFloatBytes) : size / kFloatBytes;
  row.size = per_rank ? row.count * ranks * kFloatBytes : row.count * kFloatBytes;
  return row;
}

// nccl-tests' time column: two decimals below 10 ms, then fewer, in 7 characters.
std::string time_text(double us) {
  if (us < 1e4) {
    return fmt::format("{:7.2f}", us);
  }
  if (us < 1e5) {
    return fmt::format("{:7.1f}", us);
  }
  return fmt::format("{:7.0f}", us);
}

std::int64_t size_option(const std::string& text, const char* option) {
  try {
    const std::int64_t bytes = models::scenario::parse_size(text).count;
    if (bytes < 1) {
      throw sim::InputError("expected at least 1 byte");
    }
    return bytes;
  } catch (const sim::InputError& error) {
    throw sim::InputError(fmt::format("{}: {} (got '{}')", option, error.what(), text));
  }
}

void print_nccl_tests(std::ostream& out,
                      const std::string& system_name,
                      const models::System& system,
                      const models::Communicator& comm,
                      models::CollectiveOp op,
                      const std::vector<std::int64_t>& sizes,
                      std::int64_t factor,
                      const std::vector<Row>& rows) {
  const std::string program = fmt::format("{}_perf", models::op_name(op));
  const bool reduces =
      op == models::CollectiveOp::kAllReduce || op == models::CollectiveOp::kReduceScatter;
  fmt::print(out, "# railsim {} prediction on {}: {} nodes x {} GPUs\n", kVersion, system_name,
             comm.nodes, comm.gpus_per_node);
  fmt::print(out, "# Collective test starting: {}\n", program);
  fmt::print(out,
             "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {}(factor) warmup iters: 0 "
             "iters: 1 agg iters: 1 validation: 0 graph: 0\n#\n# Using devices\n",
             sizes.front(), sizes.back(), factor);
  const std::string& gpu = system.spec().node.gpus.front().model;
  for (int r = 0; r < comm.ranks(); ++r) {
    fmt::print(out, "#  Rank {:2d} Group  0 Pid {:6d} on {:>10} device {:2d} [model] NVIDIA {}\n",
               r, 0, fmt::format("node{}", comm.node_of(r)), comm.gpu_of(r), gpu);
  }
  fmt::print(out,
             "#\n"
             "#                                                              out-of-place          "
             "             in-place          \n"
             "#       size         count      type   redop    root     time   algbw   busbw  "
             "#wrong     time   algbw   busbw  #wrong \n"
             "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
             "     (us)  (GB/s)  (GB/s)         \n");
  double busbw_sum = 0.0;
  for (const Row& row : rows) {
    const models::CollectiveResult& r = row.result;
    const std::string half =
        fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", time_text(sim::to_us(r.time)), r.algbw_GBps,
                    r.busbw_GBps, "N/A");
    fmt::print(out, "{:12d}  {:12d}  {:>8}  {:>6}  {:6d}{}{}\n", row.size, row.count, "float",
               reduces ? "sum" : "none", op == models::CollectiveOp::kBroadcast ? 0 : -1, half,
               half);
    busbw_sum += r.busbw_GBps;
  }
  fmt::print(out, "# Out of bounds values : 0 OK\n");
  fmt::print(out, "# Avg bus bandwidth    : {:.4f} \n#\n",
             busbw_sum / static_cast<double>(rows.size()));
  fmt::print(out, "# railsim choices (algorithm, protocol, channels, execution) per size:\n");
  for (const Row& row : rows) {
    const models::CollectiveResult& r = row.result;
    fmt::print(out, "#   {:12d}  {:<8} {:<6} {:2d}  {}\n", row.size,
               models::algorithm_name(r.algorithm), models::protocol_name(r.protocol), r.channels,
               models::execution_name(r.execution));
  }
  fmt::print(out, "#\n# Collective test concluded: {}\n#\n", program);
}

}  // namespace

int run_collective(const std::vector<std::string>& args, std::ostream& out) {
  std::string system_name;
  std::string op_text;
  std::string min_text = "32M";
  std::string max_text = "32M";
  std::int64_t factor = 2;
  std::string rail_text;
  std::string oversub_text;
  std::string routing_text;
  std::string algo_text = "auto";
  std::string proto_text = "auto";
  std::string exec_text = "auto";
  std::string format = "nccl-tests";
  int nodes = 0;
  int gpus_per_node = 0;
  int channels = 0;
  int cross_nic = 2;
  int pxn = 1;
  int qps = 1;
  po::options_description options(
      "railsim collective --system PRESET|FILE --op OP [-b MIN] [-e MAX] [-f FACTOR]");
  options.add_options()("system", po::value(&system_name)->required(),
                        "a node preset (2 nodes) or a scenario file (.json)")(
      "nodes", po::value(&nodes), "override the number of nodes")(
      "gpus-per-node", po::value(&gpus_per_node),
      "use the first G GPUs of each node (nccl-tests -g G); default: all")(
      "op", po::value(&op_text)->required(), "all_reduce, all_gather, reduce_scatter, broadcast")(
      "minbytes,b", po::value(&min_text)->default_value("32M"),
      "smallest size, with nccl-tests' suffixes (8, 1K, 64M, 8G)")(
      "maxbytes,e", po::value(&max_text)->default_value("32M"), "largest size")(
      "stepfactor,f", po::value(&factor)->default_value(2), "size multiplier between rows")(
      "rail", po::value(&rail_text), "override the rail mapping: aligned or misaligned")(
      "oversub", po::value(&oversub_text), "override the leaf uplink oversubscription, e.g. 2:1")(
      "routing", po::value(&routing_text), "override the routing: ecmp or adaptive")(
      "algo", po::value(&algo_text)->default_value("auto"),
      "ring or auto (NCCL_ALGO; tree, nvls, nvlstree are not modelled yet)")(
      "proto", po::value(&proto_text)->default_value("auto"),
      "simple, ll128, ll or auto (NCCL_PROTO)")(
      "nchannels", po::value(&channels), "channels, as NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS")(
      "cross-nic", po::value(&cross_nic)->default_value(2), "NCCL_CROSS_NIC: 0, 1 or 2")(
      "pxn", po::value(&pxn)->default_value(1), "1: PXN on, 0: off (NCCL_PXN_DISABLE=1)")(
      "qps", po::value(&qps)->default_value(1), "NCCL_IB_QPS_PER_CONNECTION")(
      "exec", po::value(&exec_text)->default_value("auto"),
      "chunk (every slice a flow), pipelined (each channel a flow group) or auto")(
      "format", po::value(&format)->default_value("nccl-tests"), "nccl-tests, json or csv");
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Predicts a collective's time and bandwidth over a size sweep, printed "
                          "as nccl-tests prints it.",
                          out, vm)) {
    return 0;
  }
  const models::CollectiveOp op = parse_named("--op", op_text, kOpChoices);
  if (format != "nccl-tests" && format != "json" && format != "csv") {
    throw sim::InputError("--format: expected nccl-tests, json or csv, got '" + format + "'");
  }
  const std::int64_t min_bytes = size_option(min_text, "--minbytes");
  const std::int64_t max_bytes = size_option(max_text, "--maxbytes");
  if (max_bytes < min_bytes) {
    throw sim::InputError(
        fmt::format("--maxbytes: {} B is below --minbytes {} B", max_bytes, min_bytes));
  }
  if (factor < 1) {
    throw sim::InputError(fmt::format("--stepfactor: expected at least 1, got {}", factor));
  }
  models::CollectiveRequest request;
  request.op = op;
  if (algo_text != "auto") {
    request.algorithm = parse_named("--algo", algo_text, kAlgorithmChoices);
  }
  if (proto_text != "auto") {
    request.protocol = parse_named("--proto", proto_text, kProtocolChoices);
  }
  if (exec_text != "auto") {
    request.execution = parse_named("--exec", exec_text, kExecutionChoices);
  }
  if (vm.count("nchannels")) {
    request.channels = channels;
  }
  request.cross_nic = cross_nic;
  if (pxn != 0 && pxn != 1) {
    throw sim::InputError(fmt::format("--pxn: expected 0 or 1, got {}", pxn));
  }
  request.pxn = pxn == 1;
  request.qps_per_connection = qps;

  models::scenario::SystemFile file = models::scenario::system_from_argument(system_name);
  models::SystemSpec& spec = file.system;
  if (vm.count("nodes")) {
    if (nodes < 1) {
      throw sim::InputError(fmt::format("--nodes: expected at least 1, got {}", nodes));
    }
    spec.nodes = nodes;
  }
  if (!rail_text.empty()) {
    spec.fabric.rails = parse_named("--rail", rail_text, kRailChoices);
  }
  if (!oversub_text.empty()) {
    try {
      spec.fabric.oversubscription = models::scenario::parse_ratio(oversub_text);
    } catch (const sim::InputError& error) {
      throw sim::InputError(std::string("--oversub: ") + error.what());
    }
    if (!(spec.fabric.oversubscription >= 1.0)) {
      throw sim::InputError("--oversub: expected a ratio of at least 1:1, got '" + oversub_text +
                            "'");
    }
  }
  if (!routing_text.empty()) {
    spec.fabric.routing = parse_named("--routing", routing_text, kRoutingChoices);
  }
  request.comm.nodes = spec.nodes;
  request.comm.gpus_per_node =
      vm.count("gpus-per-node") ? gpus_per_node : static_cast<int>(spec.node.gpus.size());

  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  models::System system(spec, network);
  models::scenario::apply_faults(file, system, network);

  const std::vector<std::int64_t> sizes = sweep(min_bytes, max_bytes, factor);
  std::vector<Row> rows;
  rows.reserve(sizes.size());
  for (const std::int64_t size : sizes) {
    Row row = row_for(op, size, request.comm.ranks());
    request.size = sim::bytes(row.size);
    row.result = models::run_collective(system, network, simulator, request);
    rows.push_back(row);
  }

  if (format == "json") {
    nlohmann::ordered_json doc;
    doc["system"] = file.name;
    doc["nodes"] = request.comm.nodes;
    doc["ranks"] = request.comm.ranks();
    doc["op"] = std::string(models::op_name(op));
    doc["algo"] = algo_text;
    doc["proto"] = proto_text;
    doc["rows"] = nlohmann::ordered_json::array();
    for (const Row& row : rows) {
      const models::CollectiveResult& r = row.result;
      doc["rows"].push_back({{"size_bytes", row.size},
                             {"count", row.count},
                             {"time_us", sim::to_us(r.time)},
                             {"algbw_GBps", r.algbw_GBps},
                             {"busbw_GBps", r.busbw_GBps},
                             {"algo", std::string(models::algorithm_name(r.algorithm))},
                             {"proto", std::string(models::protocol_name(r.protocol))},
                             {"channels", r.channels},
                             {"exec", std::string(models::execution_name(r.execution))}});
    }
    out << doc.dump(2) << "\n";
    return 0;
  }
  if (format == "csv") {
    fmt::print(out,
               "op,nodes,ranks,size_bytes,count,algo,proto,channels,exec,time_us,algbw_GBps,"
               "busbw_GBps\n");
    for (const Row& row : rows) {
      const models::CollectiveResult& r = row.result;
      fmt::print(out, "{},{},{},{},{},{},{},{},{},{:.3f},{:.4f},{:.4f}\n", models::op_name(op),
                 request.comm.nodes, request.comm.ranks(), row.size, row.count,
                 models::algorithm_name(r.algorithm), models::protocol_name(r.protocol), r.channels,
                 models::execution_name(r.execution), sim::to_us(r.time), r.algbw_GBps,
                 r.busbw_GBps);
    }
    return 0;
  }
  print_nccl_tests(out, file.name, system, request.comm, op, sizes, factor, rows);
  return 0;
}

}  // namespace railsim::tools
