// File: tools/collective/size_series.cpp
// The size series on one system, and its nccl-tests, JSON and CSV forms.
#include "tools/collective/size_series.hpp"

#include "railsim/version.hpp"

#include "models/collective/collective_trace.hpp"
#include "models/system/system.hpp"
#include "sim/input_error.hpp"
#include "sim/link_load_trace.hpp"
#include "sim/simulator.hpp"
#include "tools/chrome_trace.hpp"
#include "tools/cli_support/csv_row.hpp"
#include "tools/progress_bar.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace railsim::tools {
namespace {

constexpr std::int64_t kFloatBytes = 4;  // nccl-tests' default type, -d float

// nccl-tests' count and printed size: AllGather, ReduceScatter, Gather and Scatter take a
// per-rank count, AllToAll a per-peer one, rounded down to a whole element, and print n x that.
SeriesRow row_for(models::CollectiveOp op, std::int64_t size, int ranks) {
  SeriesRow row;
  const bool per_rank = models::is_gather_scatter(op) || op == models::CollectiveOp::kAllToAll ||
                        op == models::CollectiveOp::kGather || op == models::CollectiveOp::kScatter;
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

std::string requested_algorithm(const models::CollectiveRequest& request) {
  return models::algorithm_set_text(request.algorithm);
}

std::string requested_protocol(const models::CollectiveRequest& request) {
  return request.protocol ? std::string(models::protocol_name(*request.protocol)) : "auto";
}

// The workload's ranks on the system: its nodes and GPUs per node, or all of them.
models::Communicator communicator_of(const models::scenario::SystemFile& file,
                                     const models::scenario::CollectiveWorkload& workload) {
  models::Communicator comm = workload.request.comm;
  comm.nodes = workload.nodes > 0 ? workload.nodes : file.system.nodes;
  comm.gpus_per_node = workload.gpus_per_node > 0 ? workload.gpus_per_node
                                                  : static_cast<int>(file.system.node.gpus.size());
  return comm;
}

}  // namespace

std::vector<std::int64_t> series_sizes(std::int64_t min, std::int64_t max, std::int64_t factor) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t s = min; s <= max; s *= factor) {
    sizes.push_back(s);
    if (factor == 1) {
      break;
    }
  }
  return sizes;
}

void check_series_memory(const models::scenario::SystemFile& file,
                         const models::scenario::CollectiveWorkload& workload,
                         const models::WorkLimit& limit,
                         std::string_view where) {
  const models::Communicator comm = communicator_of(file, workload);
  // In doubles: a mistyped node count times the GPUs need not fit an int.
  const double ranks = static_cast<double>(comm.nodes) * comm.gpus_per_node;
  if (const std::optional<std::string> refusal =
          models::collective_beyond_limit(limit, "this collective", file.system, ranks)) {
    throw sim::InputError(fmt::format("{}: {}", where, *refusal));
  }
}

std::vector<std::int64_t> workload_sizes(const models::scenario::CollectiveWorkload& workload) {
  return series_sizes(workload.min_size.count, workload.max_size.count, workload.factor);
}

SizeSeries run_size_series(const models::scenario::SystemFile& file,
                           const std::vector<models::BackgroundFlow>& background,
                           const models::scenario::CollectiveWorkload& workload,
                           const SeriesTrace& trace,
                           const std::function<void()>& on_size) {
  SizeSeries series;
  series.system_name = file.name;
  series.gpu_model = file.system.node.gpus.front().model;
  series.request = workload.request;
  series.factor = workload.factor;
  models::Communicator& comm = series.request.comm;
  comm = communicator_of(file, workload);

  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  models::System system(file.system, network);
  models::scenario::apply_faults(file, system, network);
  std::optional<models::CollectiveTrace> calls;
  std::optional<sim::LinkLoadTrace> loads;
  if (trace.trace != nullptr) {
    calls.emplace(*trace.trace, comm);
    loads.emplace(network, *trace.trace, trace.trace->add_process("links"));
    for (const models::LinkFault& fault : file.faults) {
      if (!fault.schedule) {
        trace.trace->add_instant("fault: " + models::fault_text(fault), simulator.now());
      }
    }
  }
  models::start_background(system, network, background);

  const std::vector<std::int64_t> sizes = workload_sizes(workload);
  series.rows.reserve(sizes.size());
  models::CollectiveRequest request = series.request;
  for (const std::int64_t size : sizes) {
    SeriesRow row = row_for(request.op, size, comm.ranks());
    request.size = sim::bytes(row.size);
    const bool traced =
        calls && (trace.sizes.empty() ||
                  std::find(trace.sizes.begin(), trace.sizes.end(), size) != trace.sizes.end());
    if (loads) {
      loads->set_recording(traced, simulator.now());
    }
    row.result =
        models::run_collective(system, network, simulator, request, traced ? &*calls : nullptr);
    series.rows.push_back(row);
    if (on_size) {
      on_size();
    }
  }
  return series;
}

SizeSeries run_calibrated_series(const models::scenario::ScenarioFile& scenario,
                                 const models::scenario::CollectiveWorkload& workload,
                                 const LoadedProfile* profile,
                                 const SeriesTrace& trace,
                                 const std::function<void()>& on_size) {
  if (profile == nullptr) {
    return run_size_series(scenario.system, scenario.background, workload, trace, on_size);
  }
  models::scenario::SystemFile file = scenario.system;
  models::scenario::CollectiveWorkload calibrated = workload;
  apply_profile(*profile, file.system, calibrated.request.calibration);
  const auto times_of = [](const SizeSeries& series) {
    std::vector<double> times;
    times.reserve(series.rows.size());
    for (const SeriesRow& row : series.rows) {
      times.push_back(sim::to_us(row.result.time));
    }
    return times;
  };
  SizeSeries series = run_size_series(file, scenario.background, calibrated, trace, on_size);
  series.profile_path = profile->path;
  series.time_sigma_us = one_sigma_band(
      *profile, file.system, calibrated.request.calibration, times_of(series),
      [&](const models::SystemSpec& system, const models::CollectiveCalibration& calibration) {
        models::scenario::SystemFile moved = file;
        moved.system = system;
        models::scenario::CollectiveWorkload again = calibrated;
        again.request.calibration = calibration;
        return times_of(run_size_series(moved, scenario.background, again, {}));
      });
  std::vector<std::int64_t> sizes;
  sizes.reserve(series.rows.size());
  for (const SeriesRow& row : series.rows) {
    sizes.push_back(row.size);
  }
  warn_outside_range(*profile, std::string(models::op_name(series.request.op)),
                     series.request.comm.nodes, series.request.comm.gpus_per_node, sizes);
  return series;
}

// busbw's band from the time's: busbw is inversely proportional to the time.
double busbw_sigma(const SeriesRow& row, double time_sigma_us) {
  return row.result.busbw_GBps * time_sigma_us / sim::to_us(row.result.time);
}

void print_nccl_tests(std::ostream& out, const SizeSeries& series) {
  const models::CollectiveOp op = series.request.op;
  const models::Communicator& comm = series.request.comm;
  const std::string program = fmt::format("{}_perf", models::op_name(op));
  // sendrecv_perf prints the "sum" it is given but never applies.
  const bool reduces = op == models::CollectiveOp::kAllReduce ||
                       op == models::CollectiveOp::kReduceScatter ||
                       op == models::CollectiveOp::kReduce || op == models::CollectiveOp::kSendRecv;
  // The programs with a root print nccl-tests' default, rank 0.
  const bool rooted = models::is_ring_chain(op) || op == models::CollectiveOp::kGather ||
                      op == models::CollectiveOp::kScatter;
  fmt::print(out, "# railsim {} prediction on {}: {} nodes x {} GPUs\n", kVersion,
             series.system_name, comm.nodes, comm.gpus_per_node);
  fmt::print(out, "# Collective test starting: {}\n", program);
  fmt::print(out,
             "# nThread 1 nGpus 1 minBytes {} maxBytes {} step: {}(factor) warmup iters: 0 "
             "iters: 1 agg iters: 1 validation: 0 graph: 0\n#\n# Using devices\n",
             series.rows.front().size, series.rows.back().size, series.factor);
  for (int r = 0; r < comm.ranks(); ++r) {
    fmt::print(out, "#  Rank {:2d} Group  0 Pid {:6d} on {:>10} device {:2d} [model] NVIDIA {}\n",
               r, 0, fmt::format("node{}", comm.node_of(r)), comm.gpu_of(r), series.gpu_model);
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
  for (const SeriesRow& row : series.rows) {
    const models::CollectiveResult& r = row.result;
    const std::string half =
        fmt::format("  {}  {:6.2f}  {:6.2f}  {:>6}", time_text(sim::to_us(r.time)), r.algbw_GBps,
                    r.busbw_GBps, "N/A");
    fmt::print(out, "{:12d}  {:12d}  {:>8}  {:>6}  {:6d}{}{}\n", row.size, row.count, "float",
               reduces ? "sum" : "none", rooted ? 0 : -1, half, half);
    busbw_sum += r.busbw_GBps;
  }
  fmt::print(out, "# Out of bounds values : 0 OK\n");
  fmt::print(out, "# Avg bus bandwidth    : {:.4f} \n#\n",
             busbw_sum / static_cast<double>(series.rows.size()));
  if (!series.time_sigma_us.empty()) {
    fmt::print(out,
               "# railsim calibration profile {}: one-sigma band of each prediction from its fit\n"
               "#         size     time (us)      +- (us)  busbw (GB/s)   +- (GB/s)\n",
               series.profile_path);
    for (std::size_t i = 0; i < series.rows.size(); ++i) {
      const SeriesRow& row = series.rows[i];
      fmt::print(out, "#   {:12d}  {:12.2f}  {:11.2f}  {:12.2f}  {:10.2f}\n", row.size,
                 sim::to_us(row.result.time), series.time_sigma_us[i], row.result.busbw_GBps,
                 busbw_sigma(row, series.time_sigma_us[i]));
    }
    fmt::print(out, "#\n");
  }
  fmt::print(out, "# railsim choices (algorithm, protocol, channels, execution) per size:\n");
  for (const SeriesRow& row : series.rows) {
    const models::CollectiveResult& r = row.result;
    fmt::print(out, "#   {:12d}  {:<8} {:<6} {:2d}  {}\n", row.size, models::algorithm_label(r),
               models::protocol_name(r.protocol), r.channels, models::execution_name(r.execution));
  }
  fmt::print(out, "#\n# Collective test concluded: {}\n#\n", program);
}

void print_json(std::ostream& out, const SizeSeries& series) {
  nlohmann::ordered_json doc;
  doc["system"] = series.system_name;
  doc["nodes"] = series.request.comm.nodes;
  doc["ranks"] = series.request.comm.ranks();
  doc["op"] = std::string(models::op_name(series.request.op));
  doc["algo"] = requested_algorithm(series.request);
  doc["proto"] = requested_protocol(series.request);
  if (!series.profile_path.empty()) {
    doc["profile"] = series.profile_path;
  }
  doc["rows"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < series.rows.size(); ++i) {
    const SeriesRow& row = series.rows[i];
    const models::CollectiveResult& r = row.result;
    doc["rows"].push_back({{"size_bytes", row.size},
                           {"count", row.count},
                           {"time_us", sim::to_us(r.time)},
                           {"algbw_GBps", r.algbw_GBps},
                           {"busbw_GBps", r.busbw_GBps},
                           {"algo", std::string(models::algorithm_label(r))},
                           {"proto", std::string(models::protocol_name(r.protocol))},
                           {"channels", r.channels},
                           {"exec", std::string(models::execution_name(r.execution))}});
    if (!series.time_sigma_us.empty()) {
      const double sigma = series.time_sigma_us[i];
      // JSON has no infinity: a band the fit could not bound is null.
      const auto finite = [](double v) {
        return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
      };
      doc["rows"].back()["time_sigma_us"] = finite(sigma);
      doc["rows"].back()["busbw_sigma_GBps"] = finite(busbw_sigma(row, sigma));
    }
  }
  out << doc.dump(2) << "\n";
}

void print_csv(std::ostream& out, const SizeSeries& series) {
  const bool band = !series.time_sigma_us.empty();
  std::vector<std::string> header = {"op",    "nodes",   "ranks",      "size_bytes",
                                     "count", "algo",    "proto",      "channels",
                                     "exec",  "time_us", "algbw_GBps", "busbw_GBps"};
  if (band) {
    header.insert(header.end(), {"time_sigma_us", "busbw_sigma_GBps"});
  }
  out << csv_row(header);
  const models::Communicator& comm = series.request.comm;
  for (std::size_t i = 0; i < series.rows.size(); ++i) {
    const SeriesRow& row = series.rows[i];
    const models::CollectiveResult& r = row.result;
    std::vector<std::string> fields = {std::string(models::op_name(series.request.op)),
                                       fmt::format("{}", comm.nodes),
                                       fmt::format("{}", comm.ranks()),
                                       fmt::format("{}", row.size),
                                       fmt::format("{}", row.count),
                                       std::string(models::algorithm_label(r)),
                                       std::string(models::protocol_name(r.protocol)),
                                       fmt::format("{}", r.channels),
                                       std::string(models::execution_name(r.execution)),
                                       fmt::format("{:.3f}", sim::to_us(r.time)),
                                       fmt::format("{:.4f}", r.algbw_GBps),
                                       fmt::format("{:.4f}", r.busbw_GBps)};
    if (band) {
      fields.push_back(fmt::format("{:.3f}", series.time_sigma_us[i]));
      fields.push_back(fmt::format("{:.4f}", busbw_sigma(row, series.time_sigma_us[i])));
    }
    out << csv_row(fields);
  }
}

models::scenario::CollectiveWorkload workload_of(const models::scenario::ScenarioFile& scenario,
                                                 const std::string& path) {
  if (scenario.has_step && !scenario.workload) {
    throw sim::InputError(fmt::format(
        "{0}: no \"workload\" to run: its \"step\" is a training step, which `railsim step {0}` "
        "runs",
        path));
  }
  if (!scenario.workload) {
    throw sim::InputError(path +
                          ": no \"workload\" to run (docs/scenarios.md, Workloads, shows one)");
  }
  return *scenario.workload;
}

void print_series(std::ostream& out, const SizeSeries& series, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    print_json(out, series);
    return;
  }
  if (format == OutputFormat::kCsv) {
    print_csv(out, series);
    return;
  }
  print_nccl_tests(out, series);
}

void run_and_print(std::ostream& out,
                   const models::scenario::ScenarioFile& scenario,
                   const models::scenario::CollectiveWorkload& workload,
                   OutputFormat format,
                   const TraceOptions& trace,
                   const LoadedProfile* profile,
                   std::ostream* progress) {
  std::optional<sim::Trace> recorded;
  if (!trace.path.empty()) {
    recorded.emplace();
  }
  ProgressBar bar(workload_sizes(workload).size(), progress, "size");
  const SizeSeries series =
      run_calibrated_series(scenario, workload, profile,
                            {recorded ? &*recorded : nullptr, trace.sizes}, [&] { bar.advance(); });
  bar.finish();
  if (recorded) {
    write_chrome_trace_file(*recorded, trace.path, trace.written);
  }
  print_series(out, series, format);
}

}  // namespace railsim::tools
