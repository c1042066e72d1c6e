// File: tools/engine_demo.cpp
// `railsim engine-demo`: three flows converge on one 400 Gb/s port, arriving 5 ms apart, one of
// them capped; prints every rate change and when each flow finished. The expected answer, by
// hand (GB = 10^9 bytes, each path 2 links of 1 us):
//   0-5 ms    f1 alone at 50 GB/s                       (f1 has sent 0.25 GB)
//   5-10 ms   f1, f2 share the port: 25 GB/s each       (f1 0.375, f2 0.125)
//   10-35 ms  f3 capped at 10 GB/s, f1 and f2 20 each   (f3 drains its 0.25 GB at 35 ms)
//   35-40 ms  f1, f2 at 25 each                         (f1 drains its last 0.125 GB at 40 ms)
//   40-45 ms  f2 alone at 50                            (f2 drains at 45 ms)
// and each flow is delivered 2 us after it drains.
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "tools/cli_support/command_line.hpp"
#include "tools/command.hpp"

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>
#include <vector>

namespace railsim::tools {
namespace {

namespace po = boost::program_options;

struct DemoFlow {
  const char* name;
  std::vector<sim::LinkId> path;
  sim::Bytes size;
  sim::Duration start;
  sim::Bandwidth cap;
};

double in_ms(sim::SimTime t) { return sim::to_ms(t.time_since_epoch()); }

std::string path_text(const sim::FlowNetwork& network, const std::vector<sim::LinkId>& path) {
  std::string text;
  for (sim::LinkId link : path) {
    text += text.empty() ? "" : ",";
    text += network.link(link).name;
  }
  return text;
}

}  // namespace

int run_engine_demo(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description options("railsim engine-demo [--help]");
  po::variables_map vm;
  if (!parse_command_line(args, options,
                          "Three flows share one 400 Gb/s port: shows the flow engine's max-min "
                          "rates and finish times.",
                          out, vm)) {
    return 0;
  }

  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const sim::Duration hop = sim::us(1);
  const sim::LinkId a_up = network.add_link({sim::gbps(400), hop, "A>sw"});
  const sim::LinkId b_up = network.add_link({sim::gbps(400), hop, "B>sw"});
  const sim::LinkId c_up = network.add_link({sim::gbps(200), hop, "C>sw"});
  const sim::LinkId d_down = network.add_link({sim::gbps(400), hop, "sw>D"});
  const std::vector<DemoFlow> flows = {
      {"f1", {a_up, d_down}, sim::gb(1), sim::ms(0), sim::kUnboundedBandwidth},
      {"f2", {b_up, d_down}, sim::gb(1), sim::ms(5), sim::kUnboundedBandwidth},
      {"f3", {c_up, d_down}, sim::mb(250), sim::ms(10), sim::gbytes_per_s(10)},
  };

  fmt::print(out, "railsim engine-demo: 3 flows into one 400 Gb/s port (sw>D), 1 us per link\n\n");
  fmt::print(out, "rate changes\n  {:>10}  {:<4}  {:>8}\n", "time (ms)", "flow", "GB/s");
  network.set_rate_observer([&](const sim::RateChange& change) {
    fmt::print(out, "  {:>10.4f}  {:<4}  {:>8.2f}\n", in_ms(change.time), flows[change.tag].name,
               change.rate.in_gbytes_per_s());
  });
  std::vector<sim::FlowRecord> records(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    simulator.schedule_at(sim::at(flows[i].start), [&, i] {
      sim::FlowSpec spec;
      spec.path = flows[i].path;
      spec.size = flows[i].size;
      spec.rate_cap = flows[i].cap;
      spec.tag = i;
      spec.on_complete = [&records, i](const sim::FlowRecord& record) { records[i] = record; };
      network.start_flow(std::move(spec));
    });
  }
  simulator.run();

  fmt::print(out, "\nflows\n  {:<4}  {:<10}  {:>9}  {:>10}  {:>12}  {:>12}  {:>9}\n", "flow",
             "path", "size (GB)", "start (ms)", "drained (ms)", "finish (ms)", "avg GB/s");
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const sim::FlowRecord& r = records[i];
    const double size_gb = static_cast<double>(r.size.count) * 1e-9;
    fmt::print(out, "  {:<4}  {:<10}  {:>9.3f}  {:>10.4f}  {:>12.4f}  {:>12.4f}  {:>9.2f}\n",
               flows[i].name, path_text(network, flows[i].path), size_gb, in_ms(r.start),
               in_ms(r.drained), in_ms(r.end),
               sim::rate_of(r.size, r.end - r.start).in_gbytes_per_s());
  }
  fmt::print(out, "\n{} events, {} sub-problems solved\n", simulator.events_processed(),
             network.solver_stats().solves);
  return 0;
}

}  // namespace railsim::tools
