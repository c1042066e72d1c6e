// File: tools/collective/collective_command.cpp
// `railsim collective`: a size series of one collective over the model, printed in the columns
// and header lines of nccl-tests' *_perf programs (design.md §5), or as JSON or CSV, so a real
// log and the prediction can be laid side by side.
#include "models/collective/nccl_tuner_tables.hpp"
#include "models/fabric/sharp.hpp"
#include "models/scenario/quantity.hpp"
#include "sim/input_error.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/cli_support/output_checks.hpp"
#include "tools/collective/collective_choices.hpp"
#include "tools/collective/size_series.hpp"
#include "tools/command.hpp"
#include "tools/gdr_level_option.hpp"
#include "tools/ib_hca_option.hpp"
#include "tools/max_memory_option.hpp"
#include "tools/nodes_option.hpp"
#include "tools/progress_bar.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

std::int64_t size_option(const std::string& text, const char* option) {
  std::int64_t bytes = 0;
  try {
    bytes = models::scenario::parse_size(text).count;
  } catch (const sim::InputError& error) {
    throw sim::InputError(fmt::format("{}: {}", option, error.what()));  // it quotes the text
  }
  if (bytes < 1) {
    throw sim::InputError(fmt::format("{}: expected at least 1 byte, got \"{}\"", option, text));
  }
  return bytes;
}

// The options as typed, before they are checked.
struct CollectiveArgs {
  std::string op;
  std::string min_size = "32M";
  std::string max_size = "32M";
  std::int64_t factor = 2;
  std::string algo = "auto";
  std::string proto = "auto";
  std::string exec = "auto";
  std::string format = "nccl-tests";
  std::optional<int> channels;
  std::optional<int> channels_per_net_peer;
  int cross_nic = 2;
  int pxn = 1;
  int qps = 1;
};

// The checked options: the workload (sizes, NCCL's settings) and the system's overrides.
struct CollectiveOptions {
  std::string system_name;
  models::scenario::CollectiveWorkload workload;
  std::optional<int> nodes;
  std::string rail;
  std::string oversub;
  std::string routing;
  bool sharp = false;                          // --sharp
  std::optional<models::PathClass> gdr_level;  // --gdr-level
  std::optional<models::IbHcaFilter> ib_hca;   // --ib-hca
  OutputFormat format = OutputFormat::kText;
  TraceOptions trace;
  std::string profile_path;
  models::WorkLimit limit;  // --max-memory
  bool quiet = false;       // no progress line
};

// `op` over nccl-tests' sizes with NCCL's settings, as the options give them.
models::scenario::CollectiveWorkload workload_from(const CollectiveArgs& a,
                                                   models::CollectiveOp op) {
  models::scenario::CollectiveWorkload workload;
  models::CollectiveRequest& request = workload.request;
  request.op = op;
  const std::int64_t min_bytes = size_option(a.min_size, "--minbytes");
  const std::int64_t max_bytes = size_option(a.max_size, "--maxbytes");
  if (max_bytes < min_bytes) {
    throw sim::InputError(fmt::format("--maxbytes: {} is below --minbytes {}",
                                      sim::size_text(sim::Bytes{max_bytes}),
                                      sim::size_text(sim::Bytes{min_bytes})));
  }
  // nccl-tests' factor 1 would repeat -b for ever; railsim ran one row, silently.
  if (a.factor < 2 && max_bytes > min_bytes) {
    throw sim::InputError(fmt::format(
        "--stepfactor: expected at least 2 to step from --minbytes to --maxbytes, got {}",
        a.factor));
  }
  if (a.factor < 1) {
    throw sim::InputError(fmt::format("--stepfactor: expected at least 1, got {}", a.factor));
  }
  workload.min_size = sim::bytes(min_bytes);
  workload.max_size = sim::bytes(max_bytes);
  workload.factor = a.factor;
  if (a.algo != "auto") {
    request.algorithm = parse_named("--algo", a.algo, kAlgorithmChoices);
  }
  if (a.proto != "auto") {
    request.protocol = parse_named("--proto", a.proto, kProtocolChoices);
  }
  if (a.exec != "auto") {
    request.execution = parse_named("--exec", a.exec, kExecutionChoices);
  }
  if (a.channels) {
    request.channels = *a.channels;
  }
  if (a.channels_per_net_peer &&
      (*a.channels_per_net_peer < 1 || *a.channels_per_net_peer > models::nccl::kMaxChannels)) {
    throw sim::InputError(
        fmt::format("--nchannels-per-net-peer: expected 1 to {} (NCCL's MAXCHANNELS), got {}",
                    models::nccl::kMaxChannels, *a.channels_per_net_peer));
  }
  request.channels_per_net_peer = a.channels_per_net_peer;
  if (a.cross_nic < 0 || a.cross_nic > 2) {
    throw sim::InputError(fmt::format("--cross-nic: expected 0, 1 or 2, got {}", a.cross_nic));
  }
  request.cross_nic = a.cross_nic;
  if (a.pxn != 0 && a.pxn != 1) {
    throw sim::InputError(fmt::format("--pxn: expected 0 or 1, got {}", a.pxn));
  }
  request.pxn = a.pxn == 1;
  request.qps_per_connection = a.qps;
  return workload;
}

// nullopt after --help.
std::optional<CollectiveOptions> parse_options(const std::vector<std::string>& args,
                                               std::ostream& out) {
  CollectiveOptions o;
  CollectiveArgs a;
  int nodes = 0;
  int gpus_per_node = 0;
  int channels = 0;
  int channels_per_net_peer = 0;
  po::options_description options(
      "railsim collective --system PRESET|FILE --op OP [-b MIN] [-e MAX] [-f FACTOR]");
  options.add_options()("system", po::value(&o.system_name)->required(),
                        "a node preset (2 nodes) or a scenario file (.json)")(
      "nodes", po::value(&nodes), "override the number of nodes")(
      "gpus-per-node", po::value(&gpus_per_node),
      "use the first G GPUs of each node (nccl-tests -g G); default: all")(
      "op", po::value(&a.op)->required(),
      "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, "
      "scatter")("minbytes,b", po::value(&a.min_size)->default_value("32M"),
                 "smallest size, with nccl-tests' suffixes (8, 1K, 64M, 8G)")(
      "maxbytes,e", po::value(&a.max_size)->default_value("32M"), "largest size")(
      "stepfactor,f", po::value(&a.factor)->default_value(2), "size multiplier between rows")(
      "rail", po::value(&o.rail), "override the rail mapping: aligned, misaligned or top-of-rack")(
      "oversub", po::value(&o.oversub), "override the leaf uplink oversubscription, e.g. 2:1")(
      "routing", po::value(&o.routing), "override the routing: ecmp or adaptive")(
      "sharp", po::bool_switch(&o.sharp),
      "the switches reduce (InfiniBand SHARP) and NCCL runs CollNet over them "
      "(NCCL_COLLNET_ENABLE=1); --algo collnet* implies it")(
      "algo", po::value(&a.algo)->default_value("auto"),
      "ring, tree, nvls, nvlstree, pat, collnetdirect, collnetchain, collnet (either CollNet) or "
      "auto (NCCL_ALGO)")("proto", po::value(&a.proto)->default_value("auto"),
                          "simple, ll128, ll or auto (NCCL_PROTO)")(
      "nchannels", po::value(&channels), "channels, as NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS")(
      "nchannels-per-net-peer", po::value(&channels_per_net_peer),
      "NCCL_NCHANNELS_PER_NET_PEER: the p2p channels to each peer on another node (alltoall, "
      "sendrecv, gather, scatter); default: NCCL's own count")(
      "cross-nic", po::value(&a.cross_nic)->default_value(2), "NCCL_CROSS_NIC: 0, 1 or 2")(
      "pxn", po::value(&a.pxn)->default_value(1), "1: PXN on, 0: off (NCCL_PXN_DISABLE=1)")(
      "qps", po::value(&a.qps)->default_value(1), "NCCL_IB_QPS_PER_CONNECTION")(
      "exec", po::value(&a.exec)->default_value("auto"),
      "chunk (every slice a flow), pipelined (each channel a flow group) or auto")(
      "format", po::value(&a.format)->default_value("nccl-tests"), "nccl-tests, json or csv")(
      "profile", po::value(&o.profile_path),
      "a calibration profile (railsim calibrate -o): its parameters, with a one-sigma band");
  add_gdr_level_option(options, o.gdr_level);
  add_ib_hca_option(options, o.ib_hca);
  add_trace_options(options, o.trace);
  add_max_memory_option(options, o.limit);
  add_quiet_option(options, o.quiet);
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Predicts a collective's time and bandwidth over a size sweep, printed "
                          "as nccl-tests prints it.",
                          out, vm)) {
    return std::nullopt;
  }
  if (vm.count("nchannels")) {
    a.channels = channels;
  }
  if (vm.count("nchannels-per-net-peer")) {
    a.channels_per_net_peer = channels_per_net_peer;
  }
  const models::CollectiveOp op = parse_named("--op", a.op, kOpChoices);
  o.format = parse_format(a.format, kNcclTestsJsonCsv);
  o.workload = workload_from(a, op);
  if (vm.count("nodes")) {
    o.nodes = nodes;
  }
  if (vm.count("gpus-per-node")) {
    // The workload's 0 means "every GPU", which a user's 0 must not become.
    if (gpus_per_node < 1) {
      throw sim::InputError(
          fmt::format("--gpus-per-node: expected at least 1, got {}", gpus_per_node));
    }
    o.workload.gpus_per_node = gpus_per_node;
  }
  return o;
}

// --nodes, --rail, --oversub, --routing, --sharp, --gdr-level and --ib-hca on the system.
void apply_overrides(const CollectiveOptions& o, models::SystemSpec& spec) {
  apply_gdr_level_option(o.gdr_level, spec);
  apply_ib_hca_option(o.ib_hca, spec);
  if (!o.rail.empty()) {
    spec.fabric.rails = parse_named("--rail", o.rail, kRailChoices);
  }
  if (!o.oversub.empty()) {
    try {
      spec.fabric.oversubscription = models::scenario::parse_ratio(o.oversub);
    } catch (const sim::InputError& error) {
      throw sim::InputError(std::string("--oversub: ") + error.what());
    }
    if (!(spec.fabric.oversubscription >= 1.0)) {
      throw sim::InputError("--oversub: expected a ratio of at least 1:1, got '" + o.oversub + "'");
    }
  }
  if (!o.routing.empty()) {
    spec.fabric.routing = parse_named("--routing", o.routing, kRoutingChoices);
  }
  // Asking for CollNet asks NCCL to enable it (NCCL_COLLNET_ENABLE=1), as --sharp does.
  const bool collnet_only = o.workload.request.algorithm.within(models::kCollNet);
  if ((o.sharp || collnet_only) && !spec.fabric.sharp) {
    if (const auto problem =
            models::sharp_problem(spec.fabric.transport, spec.fabric.switch_model)) {
      throw sim::InputError((o.sharp ? "--sharp: " : "--algo: CollNet needs SHARP: ") + *problem);
    }
    spec.fabric.sharp = models::SharpSpec{};
  }
  if (o.nodes) {  // last: the fabric grows for the nodes with the oversubscription given
    apply_nodes_option(spec, *o.nodes, 1);
  }
}

int run(const CollectiveOptions& o, std::ostream& out) {
  check_output_file(o.trace.path, "--trace", {o.system_name, o.profile_path});
  TraceOptions trace = o.trace;
  resolve_trace_options(trace, workload_sizes(o.workload));
  models::scenario::ScenarioFile scenario = models::scenario::scenario_from_argument(o.system_name);
  apply_overrides(o, scenario.system.system);
  check_series_memory(scenario.system, o.workload, o.limit,
                      o.nodes ? "--nodes" : scenario.system.file);
  const std::optional<LoadedProfile> profile = load_profile(o.profile_path);
  run_and_print(out, scenario, o.workload, o.format, trace, profile ? &*profile : nullptr,
                progress_stream(o.quiet));
  return 0;
}

}  // namespace

int run_collective(const std::vector<std::string>& args, std::ostream& out) {
  return parse_and_run(args, out, parse_options, run);
}

}  // namespace railsim::tools
