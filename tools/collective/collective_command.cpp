// File: tools/collective/collective_command.cpp
// `railsim collective`: a size series of one collective over the model, printed in the columns
// and header lines of nccl-tests' *_perf programs (design.md §5), or as JSON or CSV, so a real
// log and the prediction can be laid side by side.
#include "models/scenario/quantity.hpp"
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/collective/collective_choices.hpp"
#include "tools/collective/size_series.hpp"
#include "tools/command.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

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
  std::string trace_path;
  std::string profile_path;
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
      "ring, tree, nvls or auto (NCCL_ALGO; nvlstree and pat are not modelled)")(
      "proto", po::value(&proto_text)->default_value("auto"),
      "simple, ll128, ll or auto (NCCL_PROTO)")(
      "nchannels", po::value(&channels), "channels, as NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS")(
      "cross-nic", po::value(&cross_nic)->default_value(2), "NCCL_CROSS_NIC: 0, 1 or 2")(
      "pxn", po::value(&pxn)->default_value(1), "1: PXN on, 0: off (NCCL_PXN_DISABLE=1)")(
      "qps", po::value(&qps)->default_value(1), "NCCL_IB_QPS_PER_CONNECTION")(
      "exec", po::value(&exec_text)->default_value("auto"),
      "chunk (every slice a flow), pipelined (each channel a flow group) or auto")(
      "format", po::value(&format)->default_value("nccl-tests"), "nccl-tests, json or csv")(
      "trace", po::value(&trace_path),
      "also write a Chrome/Perfetto trace of the run to this file (docs/trace.md)")(
      "profile", po::value(&profile_path),
      "a calibration profile (railsim calibrate -o): its parameters, with a one-sigma band");
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Predicts a collective's time and bandwidth over a size sweep, printed "
                          "as nccl-tests prints it.",
                          out, vm)) {
    return 0;
  }
  const models::CollectiveOp op = parse_named("--op", op_text, kOpChoices);
  const OutputFormat output_format = parse_format(format, kNcclTestsJsonCsv);
  const std::int64_t min_bytes = size_option(min_text, "--minbytes");
  const std::int64_t max_bytes = size_option(max_text, "--maxbytes");
  if (max_bytes < min_bytes) {
    throw sim::InputError(
        fmt::format("--maxbytes: {} B is below --minbytes {} B", max_bytes, min_bytes));
  }
  if (factor < 1) {
    throw sim::InputError(fmt::format("--stepfactor: expected at least 1, got {}", factor));
  }
  models::scenario::CollectiveWorkload workload;
  workload.min_size = sim::bytes(min_bytes);
  workload.max_size = sim::bytes(max_bytes);
  workload.factor = factor;
  models::CollectiveRequest& request = workload.request;
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

  models::scenario::ScenarioFile scenario = models::scenario::scenario_from_argument(system_name);
  models::SystemSpec& spec = scenario.system.system;
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
  if (vm.count("gpus-per-node")) {
    workload.gpus_per_node = gpus_per_node;
  }
  const std::optional<LoadedProfile> profile = load_profile(profile_path);
  run_and_print(out, scenario, workload, output_format, trace_path, profile ? &*profile : nullptr);
  return 0;
}

}  // namespace railsim::tools
