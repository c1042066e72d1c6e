// File: calibrate/fit/measurements.cpp
#include "calibrate/fit/measurements.hpp"

#include "calibrate/parse/text_input.hpp"
#include "models/collective/collective_run.hpp"
#include "models/system/rdma_bench.hpp"
#include "sim/flow_network.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <utility>

namespace railsim::calibrate::fit {

using parse::NcclTestsDevice;
using parse::NcclTestsOutput;
using parse::NcclTestsRow;
using parse::NcclTestsRun;
using parse::PerftestBandwidthRow;
using parse::PerftestKind;
using parse::PerftestLatencyRow;
using parse::PerftestOutput;
using parse::PerftestRun;
using parse::PerftestSetting;
using parse::PerftestVerb;

namespace {

constexpr std::int64_t kPipelinedFromBytes = std::int64_t{32} << 20;

// perftest's "Max inline data : 220[B]" setting; its defaults (DEF_INLINE_WRITE 220,
// DEF_INLINE_SEND_RC_UC 236, perftest_parameters.h) where a release does not print it.
std::int64_t inline_bytes_of(const PerftestRun& run) {
  for (const PerftestSetting& setting : run.settings) {
    if (setting.name == "Max inline data") {
      std::int64_t value = 0;
      const std::string& text = setting.value;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error == std::errc() && end != text.data()) {
        return value;
      }
    }
  }
  return run.verb == PerftestVerb::kSend ? 236 : 220;
}

// Adds the cable of `link` to `crossed` (kept sorted, each once) when it runs between switches.
void note_crossed(const models::System& system,
                  const sim::FlowNetwork& network,
                  sim::LinkId link,
                  std::vector<std::string>& crossed) {
  if (!system.is_spine_link(link) && !system.is_core_link(link)) {
    return;
  }
  const std::string_view name = network.link(system.cable_of(link).first).name;
  const auto at = std::lower_bound(crossed.begin(), crossed.end(), name);
  if (at == crossed.end() || *at != name) {
    crossed.emplace(at, name);
  }
}

// What the log's INFO lines say NCCL ran on, where that is not the fabric a fit describes: TCP
// sockets between nodes, or the network without GPUDirect RDMA. The rows still count (the user
// may mean to fit exactly that); the note says what they measure, citing the line.
void note_transport(const parse::NcclDebugFacts& debug,
                    const std::string& file,
                    MeasurementSet& set) {
  if (debug.network && debug.network->value == "Socket" && debug.hosts.size() > 1) {
    set.notes.push_back(fmt::format(
        "{}: NCCL used TCP sockets between nodes (Using network Socket): the rows across nodes "
        "measure TCP, not the fabric's RDMA, and the fit reads them as the NICs' rates",
        parse::place(file, debug.network->line)));
  }
  const auto net = std::find_if(
      debug.transports.begin(), debug.transports.end(),
      [](const parse::NcclTransport& t) { return t.kind == "NET" && t.detail != "Socket"; });
  const bool gdr = std::any_of(debug.transports.begin(), debug.transports.end(),
                               [](const parse::NcclTransport& t) { return t.gdr; });
  if (net != debug.transports.end() && !gdr) {
    set.notes.push_back(fmt::format(
        "{}: NCCL reached the network without GPUDirect RDMA (via NET/{} without GDRDMA): the "
        "rows across nodes measure staging through host memory; unless --system's design "
        "stages too (gdr_off_nodes, gdr_level), the fit will read it as slow NICs or PCIe",
        parse::place(file, net->line), net->detail));
  }
}

// The run's NCCL variables its predictions cannot apply, each in a note at the run.
void note_unapplied(const std::vector<models::NcclVariable>& variables,
                    models::CollectiveOp op,
                    const models::SystemSpec& design,
                    const std::string& where,
                    MeasurementSet& set) {
  for (const std::string& why : models::nccl_variables_effect(variables, op, design).not_applied) {
    set.notes.push_back(fmt::format("{}: {} (the prediction runs without it)", where, why));
  }
}

}  // namespace

std::optional<models::CollectiveOp> modelled_op(const std::string& name) {
  for (const models::CollectiveOp op : models::kCollectiveOps) {
    if (models::op_name(op) == name) {
      return op;
    }
  }
  return std::nullopt;
}

const char* measured_unit(MeasurementKind kind) {
  return kind == MeasurementKind::kRdmaBandwidth ? "GB/s" : "us";
}

std::vector<models::NcclVariable> run_environment(
    const NcclTestsRun& run, const std::vector<models::NcclVariable>& environment) {
  std::vector<models::NcclVariable> out = environment;
  for (const parse::NcclSetting& s : run.environment) {
    out.push_back({s.name, s.value});
  }
  return out;
}

void add_nccl_tests(const NcclTestsOutput& output,
                    const std::string& file,
                    const models::SystemSpec& design,
                    MeasurementSet& set,
                    const std::vector<models::NcclVariable>& environment) {
  note_transport(output.debug, file, set);
  for (const NcclTestsRun& run : output.runs) {
    const std::optional<models::CollectiveOp> op = modelled_op(run.op);
    if (!op) {
      set.notes.push_back(
          run.op.empty()
              ? fmt::format("{}: a run not used: the log does not name its collective (no "
                            "'Collective test starting' line, as older nccl-tests print none)",
                            parse::place(file, run.line))
              : fmt::format("{}: {} not used: the model does not run {}",
                            parse::place(file, run.line), run.program, run.op));
      continue;
    }
    if (run.devices.empty()) {
      set.notes.push_back(fmt::format(
          "{}: {} not used: no 'Using devices' lines, so its nodes and ranks are unknown",
          parse::place(file, run.line), run.program));
      continue;
    }
    std::set<std::string> hosts;
    for (const NcclTestsDevice& d : run.devices) {
      hosts.insert(d.host);
    }
    const int nodes = static_cast<int>(hosts.size());
    if (run.ranks() % nodes != 0) {
      set.notes.push_back(fmt::format("{}: {} not used: {} ranks do not split evenly over {} hosts",
                                      parse::place(file, run.line), run.program, run.ranks(),
                                      nodes));
      continue;
    }
    const std::vector<models::NcclVariable> variables = run_environment(run, environment);
    note_unapplied(variables, *op, design, parse::place(file, run.line), set);
    for (const NcclTestsRow& row : run.rows) {
      Measurement m;
      m.kind = MeasurementKind::kCollectiveTime;
      m.nccl_environment = variables;
      m.source = parse::place(file, row.line);
      m.op = *op;
      m.nodes = nodes;
      m.gpus_per_node = run.ranks() / nodes;
      m.size_bytes = row.size_bytes;
      m.measured = row.out_of_place.time_us;
      if (m.size_bytes > 0 && m.measured > 0.0) {
        set.rows.push_back(std::move(m));
      }
    }
  }
}

void add_perftest(const PerftestOutput& output, const std::string& file, MeasurementSet& set) {
  for (const PerftestRun& run : output.runs) {
    const std::string where = parse::place(file, run.line);
    if (run.bidirectional) {
      set.notes.push_back(
          fmt::format("{}: {} not used: bidirectional streams are not modelled", where, run.title));
      continue;
    }
    if (run.kind == PerftestKind::kLatency && run.verb == PerftestVerb::kRead) {
      set.notes.push_back(fmt::format(
          "{}: {} not used: ib_read_lat reports the whole round trip of a read, which the model "
          "does not run",
          where, run.title));
      continue;
    }
    if (run.qps > 1) {
      set.notes.push_back(fmt::format("{}: {} not used: {} queue pairs (the model runs one)", where,
                                      run.title, run.qps));
      continue;
    }
    for (const PerftestBandwidthRow& row : run.bw_rows) {
      Measurement m;
      m.kind = MeasurementKind::kRdmaBandwidth;
      m.source = parse::place(file, row.line);
      m.size_bytes = row.size_bytes;
      m.iterations = row.iterations;
      m.measured = parse::to_bandwidth(row.bw_average, run.bw_unit).bytes_per_s * 1e-9;
      if (m.size_bytes > 0 && m.iterations > 0 && m.measured > 0.0) {
        set.rows.push_back(std::move(m));
      }
    }
    for (const PerftestLatencyRow& row : run.lat_rows) {
      Measurement m;
      m.kind = MeasurementKind::kRdmaLatency;
      m.source = parse::place(file, row.line);
      m.size_bytes = row.size_bytes;
      m.iterations = row.iterations;
      m.inline_bytes = inline_bytes_of(run);
      m.measured = row.t_typical_us;
      if (m.size_bytes > 0 && m.measured > 0.0) {
        set.rows.push_back(std::move(m));
      }
    }
  }
}

void place_collective(Measurement& m, std::vector<int> node_ids, std::vector<int> gpu_ids) {
  m.nodes = static_cast<int>(node_ids.size());
  m.gpus_per_node = static_cast<int>(gpu_ids.size());
  m.node_ids = std::move(node_ids);
  m.gpu_ids = std::move(gpu_ids);
}

double predict(const CalibratedModel& model,
               const Measurement& measurement,
               const models::SystemPreparation& prepare,
               std::vector<std::string>* crossed,
               models::RecurrenceMemo* memo) {
  models::SystemSpec spec = model.system;
  const bool placed = !measurement.node_ids.empty();
  // Only the measurement's own nodes are built: the cost of a prediction does not grow with
  // the cluster around them.
  spec.built_nodes = measurement.node_ids;
  if (measurement.kind != MeasurementKind::kCollectiveTime) {
    if (!placed) {
      spec.nodes = std::max(spec.nodes, 2);
    }
    const models::Endpoint from{placed ? measurement.node_ids[0] : 0, measurement.nic,
                                models::kHostMemory};
    const models::Endpoint to{placed ? measurement.node_ids[1] : 1, measurement.nic,
                              models::kHostMemory};
    // The routes of both ways: a stream's acknowledgements and a ping-pong's replies come back.
    const models::SystemPreparation prepared = [&](models::System& system,
                                                   sim::FlowNetwork& network) {
      if (prepare) {
        prepare(system, network);
      }
      for (const auto& [a, b] : {std::pair(from, to), std::pair(to, from)}) {
        for (const std::vector<sim::LinkId>& path : system.routes(a, b)) {
          for (const sim::LinkId link : path) {
            note_crossed(system, network, link, *crossed);
          }
        }
      }
    };
    const models::SystemPreparation& used = crossed ? prepared : prepare;
    if (measurement.kind == MeasurementKind::kRdmaLatency) {
      return models::rdma_write_latency_us(spec, used, from, to, measurement.size_bytes,
                                           measurement.inline_bytes);
    }
    return models::rdma_write_stream(spec, used, from, to, measurement.size_bytes,
                                     measurement.iterations)
               .average_bytes_per_s *
           1e-9;
  }
  if (!placed) {
    spec.nodes = measurement.nodes;
  }
  models::CollectiveRequest request;
  request.op = measurement.op;
  (void)models::apply_nccl_variables(measurement.nccl_environment, request, spec);
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  models::System system(spec, network);
  if (prepare) {
    prepare(system, network);
  }
  request.size = sim::bytes(measurement.size_bytes);
  request.comm = {measurement.nodes, measurement.gpus_per_node, measurement.node_ids,
                  measurement.gpu_ids};
  request.calibration = model.collective;
  request.recurrence_memo = memo;
  // A fit runs every row a hundred times or more: large rows run pipelined, which costs a
  // fraction of the chunk-accurate run and agrees with it within 2% where transfers are
  // bandwidth-bound (docs/validation.md); the others keep the default.
  if (measurement.size_bytes >= kPipelinedFromBytes) {
    request.execution = models::Execution::kPipelined;
  }
  const sim::Duration time = models::run_collective(system, network, simulator, request).time;
  for (std::uint32_t l = 0; crossed && l < network.link_count(); ++l) {
    if (network.counters(sim::LinkId{l}).bytes_carried > 0.0) {
      note_crossed(system, network, sim::LinkId{l}, *crossed);
    }
  }
  return sim::to_us(time);
}

}  // namespace railsim::calibrate::fit
