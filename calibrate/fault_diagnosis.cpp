// File: calibrate/fault_diagnosis.cpp
#include "calibrate/fault_diagnosis.hpp"

#include "models/hardware/path_class.hpp"
#include "models/scenario/system_file.hpp"
#include "models/system/system.hpp"
#include "sim/flow_network.hpp"
#include "sim/hash_mix.hpp"
#include "sim/input_error.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

namespace railsim::calibrate {
namespace {

constexpr double kImpossible = std::numeric_limits<double>::infinity();

// The fitted scale's search interval and its resolution: finer than measurement noise matters.
// A link that keeps more than 90% of its rate is within what check accepts (rdma_pair_check.hpp)
// and no fault; letting the fit go above it would have it explain noise.
constexpr double kLowestScale = 0.02;
constexpr double kHighestScale = 0.9;
constexpr int kFitIterations = 16;

// Explanations whose predictions all agree within 1% cannot be told apart by measurements whose
// noise is of that order (perftest's run-to-run spread is ~0.5%, nccl-tests' ~1%).
constexpr double kEquivalentLogError = 0.01;

bool is_rate(FaultKind kind) {
  return kind == FaultKind::kNicPort || kind == FaultKind::kNicPcie ||
         kind == FaultKind::kSwitchCable;
}

const models::Nic& nic_of(const models::NodeSpec& node, int compute_nic) {
  return node.nics.at(static_cast<std::size_t>(
      models::compute_nic_indices(node).at(static_cast<std::size_t>(compute_nic))));
}

// Both directions of the cable whose upward link is named `up`.
std::pair<std::string, std::string> cable_names(const models::System& system,
                                                const sim::FlowNetwork& network,
                                                const std::string& up) {
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkId link{l};
    if (network.link(link).name == up) {
      return {up, network.link(system.cable_of(link).second).name};
    }
  }
  throw sim::InputError(fmt::format("the system has no cable {}", up));
}

// The links a port, PCIe, cable or down fault changes, as the system names them.
std::vector<models::scenario::LinkFault> link_faults(const models::System& system,
                                                     const sim::FlowNetwork& network,
                                                     const ElementFault& f) {
  std::string up;
  std::string down;
  if (f.kind == FaultKind::kSwitchCable) {
    std::tie(up, down) = cable_names(system, network, f.cable);
  } else if (f.kind == FaultKind::kNicPcie) {
    const models::Nic& nic = nic_of(system.spec().node, f.nic);
    std::tie(up, down) = models::pcie_link_names(system.spec().node, f.node, nic.name);
  } else {
    const models::Nic& nic = nic_of(system.spec().node, f.nic);
    const std::string port = fmt::format("n{}.{}", f.node, nic.name);
    const std::string leaf = fmt::format("leaf{}", system.leaf_of(f.node, f.nic));
    up = port + ">" + leaf;
    down = leaf + ">" + port;
  }
  std::vector<models::scenario::LinkFault> links(2);
  links[0].link = up;
  links[1].link = down;
  for (models::scenario::LinkFault& link : links) {
    link.rate_scale = f.scale;
    link.down = f.kind == FaultKind::kNicDown;
  }
  return links;
}

// The node's two cables exchanged in the rail table: an aligned design (NIC i on rail i) is
// written out as its explicit table first.
void swap_cables(models::SystemSpec& system, const ElementFault& f) {
  models::FabricSpec& fabric = system.fabric;
  if (fabric.rails == models::RailMapping::kAligned) {
    const auto nics = static_cast<int>(models::compute_nic_indices(system.node).size());
    std::vector<int> aligned(static_cast<std::size_t>(nics));
    std::iota(aligned.begin(), aligned.end(), 0);
    fabric.cabling.assign(static_cast<std::size_t>(system.nodes), aligned);
    fabric.rails = models::RailMapping::kExplicit;
  }
  std::vector<int>& rails = fabric.cabling.at(static_cast<std::size_t>(f.node));
  std::swap(rails.at(static_cast<std::size_t>(f.nic)),
            rails.at(static_cast<std::size_t>(f.other_nic)));
}

// Where compute NIC `compute_nic` sits in a slot of the other socket: a root port of the first
// host bridge of another socket than its own; nothing on a server of one socket.
std::optional<models::PcieParent> other_socket_slot(const models::NodeSpec& node, int compute_nic) {
  const auto socket_of_numa = [&node](int numa) {
    return node.numa_nodes.at(static_cast<std::size_t>(numa)).socket;
  };
  const int nic = models::compute_nic_indices(node).at(static_cast<std::size_t>(compute_nic));
  const int own = socket_of_numa(models::numa_of(node, {models::DeviceRef::Kind::kNic, nic}));
  for (std::size_t b = 0; b < node.host_bridges.size(); ++b) {
    if (socket_of_numa(node.host_bridges[b].numa) != own) {
      return models::PcieParent{models::PcieParent::Kind::kHostBridge, static_cast<int>(b)};
    }
  }
  return std::nullopt;
}

// Whether the fault can change the measurement: it lies on the measurement's path. `crossed`:
// the switch cables the measurement's traffic crosses in the design (predict's).
bool touches(const ElementFault& f, const Measurement& m, const std::vector<std::string>& crossed) {
  if (f.kind == FaultKind::kSwitchCable) {
    return std::binary_search(crossed.begin(), crossed.end(), f.cable);
  }
  if (f.kind == FaultKind::kFewerUplinks || f.kind == FaultKind::kStaticEcmp ||
      f.kind == FaultKind::kEcmpDraw) {
    return !crossed.empty();
  }
  const bool collective = m.kind == MeasurementKind::kCollectiveTime;
  const bool its_nic =
      f.nic == m.nic || (f.kind == FaultKind::kCablesSwapped && f.other_nic == m.nic);
  if (!collective &&
      (f.kind == FaultKind::kGdrOff || f.kind == FaultKind::kNicOtherSocket || !its_nic)) {
    return false;  // perftest runs in host memory of its NIC's socket, over its own NIC
  }
  if (m.node_ids.empty()) {
    return f.node < (collective ? m.nodes : 2);
  }
  return std::find(m.node_ids.begin(), m.node_ids.end(), f.node) != m.node_ids.end();
}

// A NIC down cannot have carried an RDMA pair that was measured over it.
bool contradicted(const ElementFault& f, const Measurement& m) {
  return f.kind == FaultKind::kNicDown && m.kind != MeasurementKind::kCollectiveTime &&
         touches({FaultKind::kNicPort, f.node, f.nic, 1.0}, m, {});
}

double log_error(double measured, double predicted) {
  const double e = std::log(measured / predicted);
  return e * e;
}

struct Context {
  const CalibratedModel& model;
  const std::vector<Measurement>& measurements;
  const std::vector<double>& healthy;
  const std::vector<std::vector<std::string>>& crossed;  // per measurement, as predict gives
};

Explanation explain(const Context& c, std::vector<ElementFault> faults) {
  Explanation e{std::move(faults), c.healthy, 0.0, 0.0};
  const FaultedDesign faulty = with_faults(c.model, e.faults);
  for (std::size_t i = 0; i < c.measurements.size(); ++i) {
    const Measurement& m = c.measurements[i];
    if (std::any_of(e.faults.begin(), e.faults.end(),
                    [&m](const ElementFault& f) { return contradicted(f, m); })) {
      e.sse = kImpossible;
      return e;
    }
    if (std::none_of(e.faults.begin(), e.faults.end(),
                     [&](const ElementFault& f) { return touches(f, m, c.crossed[i]); })) {
      continue;  // the design's own prediction stands
    }
    try {
      e.predicted[i] = predict(faulty.model, m, faulty.prepare);
    } catch (const sim::InputError&) {
      e.sse = kImpossible;  // the fault leaves the measurement no way to run
      return e;
    }
  }
  for (std::size_t i = 0; i < c.measurements.size(); ++i) {
    e.sse += log_error(c.measurements[i].measured, e.predicted[i]);
  }
  return e;
}

// Runs `work(i)` for i in [0, count) with the options' loop; results go by index, so the
// outcome does not depend on its order or threads.
void for_each_index(std::size_t count,
                    const DiagnosisOptions& options,
                    const std::function<void(std::size_t)>& work) {
  if (options.for_each) {
    options.for_each(count, work);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    work(i);
  }
}

// Golden-section search of the scale in [lo, hi] that minimises the single fault's SSE.
Explanation fit_scale(const Context& c, ElementFault f, double lo, double hi) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  const auto at = [&](double scale) {
    f.scale = scale;
    return explain(c, {f});
  };
  double x1 = hi - ratio * (hi - lo);
  double x2 = lo + ratio * (hi - lo);
  Explanation e1 = at(x1);
  Explanation e2 = at(x2);
  for (int i = 0; i < kFitIterations; ++i) {
    if (e1.sse <= e2.sse) {
      hi = x2;
      x2 = x1;
      e2 = std::move(e1);
      x1 = hi - ratio * (hi - lo);
      e1 = at(x1);
    } else {
      lo = x1;
      x1 = x2;
      e1 = std::move(e2);
      x2 = lo + ratio * (hi - lo);
      e2 = at(x2);
    }
  }
  return e1.sse <= e2.sse ? e1 : e2;
}

// `cables`: the switch cables some measurement crosses, sorted.
std::vector<ElementFault> fault_space(const models::SystemSpec& system,
                                      const std::vector<std::string>& cables,
                                      const DiagnosisOptions& options) {
  const int nics = static_cast<int>(models::compute_nic_indices(system.node).size());
  const bool swappable = system.fabric.rails != models::RailMapping::kMisaligned;
  std::vector<ElementFault> space;
  for (int node = 0; node < system.nodes; ++node) {
    for (int nic = 0; nic < nics; ++nic) {
      for (const FaultKind kind : {FaultKind::kNicPort, FaultKind::kNicPcie}) {
        for (const double scale : options.scales) {
          space.push_back({kind, node, nic, scale});
        }
      }
      space.push_back({FaultKind::kNicDown, node, nic, 1.0});
      if (other_socket_slot(system.node, nic)) {
        space.push_back({FaultKind::kNicOtherSocket, node, nic, 1.0});
      }
      for (int other = nic + 1; other < nics && swappable; ++other) {
        space.push_back({FaultKind::kCablesSwapped, node, nic, 1.0, other});
      }
    }
    space.push_back({FaultKind::kGdrOff, node, 0, 1.0});
  }
  for (const std::string& cable : cables) {
    for (const double scale : options.scales) {
      space.push_back({FaultKind::kSwitchCable, 0, 0, scale, 0, cable});
    }
  }
  if (!cables.empty()) {
    // A leaf left without an uplink is no candidate: explain() finds the system impossible.
    for (const double kept : {0.5, 0.25}) {
      space.push_back({FaultKind::kFewerUplinks, 0, 0, kept});
    }
    if (system.fabric.routing == models::Routing::kAdaptive) {
      space.push_back({FaultKind::kStaticEcmp});
    }
    for (int draw = 1; draw <= kEcmpDraws && system.fabric.routing == models::Routing::kEcmp;
         ++draw) {
      ElementFault f{FaultKind::kEcmpDraw};
      f.draw = draw;
      space.push_back(f);
    }
  }
  return space;
}

bool same_element(const ElementFault& a, const ElementFault& b) {
  return a.kind == b.kind && a.node == b.node && a.cable == b.cable && a.draw == b.draw &&
         (a.kind == FaultKind::kGdrOff || (a.nic == b.nic && a.other_nic == b.other_nic));
}

// The interval around a grid scale the fit searches: to the neighbouring grid scales.
std::pair<double, double> bracket(const std::vector<double>& scales, double scale) {
  std::vector<double> grid = scales;
  grid.push_back(kLowestScale);
  grid.push_back(kHighestScale);
  std::sort(grid.begin(), grid.end());
  const auto at =
      static_cast<std::size_t>(std::find(grid.begin(), grid.end(), scale) - grid.begin());
  return {grid[at == 0 ? 0 : at - 1], grid[std::min(at + 1, grid.size() - 1)]};
}

// Whether two explanations predict every measurement alike, within what noise can decide.
bool equivalent(const Explanation& a, const Explanation& b) {
  if (a.faults.size() != b.faults.size()) {
    return false;  // the simpler one is the explanation; the other adds a fault for nothing
  }
  for (std::size_t i = 0; i < a.predicted.size(); ++i) {
    if (std::abs(std::log(a.predicted[i] / b.predicted[i])) > kEquivalentLogError) {
      return false;
    }
  }
  return true;
}

}  // namespace

FaultedDesign with_faults(const CalibratedModel& design, const std::vector<ElementFault>& faults) {
  FaultedDesign faulty{design, {}};
  std::vector<ElementFault> on_links;
  for (const ElementFault& f : faults) {
    if (f.kind == FaultKind::kGdrOff) {
      faulty.model.system.gdr_off_nodes.push_back(f.node);
    } else if (f.kind == FaultKind::kCablesSwapped) {
      swap_cables(faulty.model.system, f);
    } else if (f.kind == FaultKind::kNicOtherSocket) {
      models::SystemSpec& system = faulty.model.system;
      models::move_pcie_device(system, f.node, nic_of(system.node, f.nic).name,
                               other_socket_slot(system.node, f.nic).value());
    } else if (f.kind == FaultKind::kFewerUplinks) {
      faulty.model.system.fabric.oversubscription /= f.scale;
    } else if (f.kind == FaultKind::kStaticEcmp) {
      faulty.model.system.fabric.routing = models::Routing::kEcmp;
    } else if (f.kind == FaultKind::kEcmpDraw) {
      // Another seed of the same hash: each flow's path drawn anew, independently of the design's.
      faulty.model.system.fabric.ecmp_seed =
          sim::hash_mix(design.system.fabric.ecmp_seed, static_cast<std::uint64_t>(f.draw));
    } else {
      on_links.push_back(f);
    }
  }
  if (!on_links.empty()) {
    faulty.prepare = [on_links](models::System& system, sim::FlowNetwork& network) {
      models::scenario::SystemFile file{"", system.spec(), {}, "railsim diagnose"};
      for (const ElementFault& f : on_links) {
        if (f.kind != FaultKind::kSwitchCable && !system.built(f.node)) {
          continue;  // on a node the measurement does not run on (predict builds only its own)
        }
        const std::vector<models::scenario::LinkFault> links = link_faults(system, network, f);
        file.faults.insert(file.faults.end(), links.begin(), links.end());
      }
      models::scenario::apply_faults(file, system, network);
    };
  }
  return faulty;
}

std::string fault_name(const ElementFault& f,
                       const models::NodeSpec& node,
                       const std::vector<std::string>& hosts) {
  const std::string host = static_cast<std::size_t>(f.node) < hosts.size()
                               ? hosts[static_cast<std::size_t>(f.node)]
                               : fmt::format("n{}", f.node);
  if (f.kind == FaultKind::kGdrOff) {
    return host + " GPUDirect RDMA off";
  }
  if (f.kind == FaultKind::kSwitchCable) {
    return fmt::format("cable {} at {:.0f}%", f.cable, 100.0 * f.scale);
  }
  if (f.kind == FaultKind::kFewerUplinks) {
    return fmt::format("leaf uplinks at {:.0f}% of the design's", 100.0 * f.scale);
  }
  if (f.kind == FaultKind::kStaticEcmp) {
    return "static ECMP instead of adaptive routing";
  }
  if (f.kind == FaultKind::kEcmpDraw) {
    return fmt::format("ECMP collisions (hash draw {})", f.draw);
  }
  const std::string nic = fmt::format("{}.{}", host, nic_of(node, f.nic).name);
  if (f.kind == FaultKind::kNicDown) {
    return nic + " down";
  }
  if (f.kind == FaultKind::kCablesSwapped) {
    return fmt::format("{} and {} cables swapped", nic, nic_of(node, f.other_nic).name);
  }
  if (f.kind == FaultKind::kNicOtherSocket) {
    return nic + " on the other socket";
  }
  return fmt::format("{} {} at {:.0f}%", nic, f.kind == FaultKind::kNicPort ? "port" : "PCIe",
                     100.0 * f.scale);
}

std::string fault_next_step(const ElementFault& f) {
  switch (f.kind) {
    case FaultKind::kNicPort:
      return "the port's rate and error counters (ibstat, perfquery -x: symbol and link "
             "recovery errors), then reseat or replace the cable";
    case FaultKind::kNicPcie:
      return "the NIC's PCIe link (lspci -vv: LnkSta against LnkCap)";
    case FaultKind::kNicDown:
      return "the port's state (ibstat: State Active, Physical state LinkUp) and NCCL_DEBUG=INFO's "
             "list of NICs";
    case FaultKind::kCablesSwapped:
      return "which leaf each of the two ports is cabled to (ibnetdiscover, or the cable labels) "
             "against the design's rails";
    case FaultKind::kGdrOff:
      return "GPUDirect RDMA on the node (nvidia-peermem loaded; NCCL_DEBUG=INFO shows GDRDMA on "
             "its NICs)";
    case FaultKind::kNicOtherSocket:
      return "the NIC's slot: its NUMA node (/sys/class/infiniband/<device>/device/numa_node) and "
             "its row of nvidia-smi topo -m (SYS from the GPU it should serve) against the "
             "design";
    case FaultKind::kSwitchCable:
      return "both ends' port counters and rate (perfquery -x on the two switch ports: symbol "
             "and link recovery errors; ibnetdiscover or ibdiagnet for the link's width and "
             "speed), then reseat or replace the cable";
    case FaultKind::kFewerUplinks:
      return "the cables in service between each leaf and the spines (ibnetdiscover, or the "
             "switches' port states) against the design's uplinks";
    case FaultKind::kStaticEcmp:
      return "whether the switches route adaptively (the subnet manager's routing engine and "
             "adaptive-routing settings; ibdiagnet's routing report)";
    case FaultKind::kEcmpDraw:
      return "the uplinks' load while the job runs (the switches' port counters): flows hashed "
             "onto the same uplinks; more queue pairs per connection "
             "(NCCL_IB_QPS_PER_CONNECTION) or adaptive routing spread them";
  }
  return "";
}

std::vector<std::string> fault_entries(const ElementFault& f, const models::SystemSpec& system) {
  if (f.kind == FaultKind::kGdrOff) {
    return {fmt::format(R"({{"gdr_off_node": {}}})", f.node)};
  }
  if (f.kind == FaultKind::kNicOtherSocket) {
    return {fmt::format(R"({{"pcie": "n{}.{}", "parent": "{}"}})", f.node,
                        nic_of(system.node, f.nic).name,
                        models::pcie_parent_name(other_socket_slot(system.node, f.nic).value()))};
  }
  if (f.kind == FaultKind::kCablesSwapped || f.kind == FaultKind::kFewerUplinks ||
      f.kind == FaultKind::kStaticEcmp || f.kind == FaultKind::kEcmpDraw) {
    return {};
  }
  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  const models::System built(system, network);
  std::vector<std::string> entries;
  for (const models::scenario::LinkFault& link : link_faults(built, network, f)) {
    entries.push_back(link.down ? fmt::format(R"({{"link": "{}", "down": true}})", link.link)
                                : fmt::format(R"({{"link": "{}", "rate_scale": {:.3f}}})",
                                              link.link, link.rate_scale));
  }
  return entries;
}

Diagnosis diagnose(const CalibratedModel& model,
                   const MeasurementSet& set,
                   const DiagnosisOptions& options) {
  Diagnosis d;
  d.notes = set.notes;
  // The design's own prediction of each measurement; one it cannot run is set aside.
  std::vector<std::optional<double>> as_designed(set.rows.size());
  std::vector<std::vector<std::string>> crossed_by_row(set.rows.size());
  std::vector<std::string> why(set.rows.size());
  for_each_index(set.rows.size(), options, [&](std::size_t i) {
    try {
      as_designed[i] = predict(model, set.rows[i], {}, &crossed_by_row[i]);
    } catch (const sim::InputError& e) {
      why[i] = e.what();
    }
  });
  std::vector<std::vector<std::string>> crossed;
  std::vector<std::string> cables;
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    if (as_designed[i]) {
      d.measurements.push_back(set.rows[i]);
      d.design.push_back(*as_designed[i]);
      cables.insert(cables.end(), crossed_by_row[i].begin(), crossed_by_row[i].end());
      crossed.push_back(std::move(crossed_by_row[i]));
    } else {
      d.notes.push_back(fmt::format("{}: not used: {}", set.rows[i].source, why[i]));
    }
  }
  if (d.measurements.empty()) {
    throw sim::InputError(d.notes.empty()
                              ? std::string("nothing to diagnose: no measurements")
                              : fmt::format("nothing to diagnose: the model runs none of the "
                                            "measurements ({} set aside, the first {})",
                                            d.notes.size(), d.notes.front()));
  }
  const Context c{model, d.measurements, d.design, crossed};
  std::sort(cables.begin(), cables.end());
  cables.erase(std::unique(cables.begin(), cables.end()), cables.end());

  const std::vector<ElementFault> space = fault_space(model.system, cables, options);
  std::vector<Explanation> singles(space.size());
  for_each_index(space.size(), options,
                 [&](std::size_t i) { singles[i] = explain(c, {space[i]}); });
  // The best scale of each element (fault_space lists an element's scales one after another),
  // best elements first.
  std::vector<Explanation> best;
  for (Explanation& e : singles) {
    if (best.empty() || !same_element(best.back().faults[0], e.faults[0])) {
      best.push_back(std::move(e));
    } else if (e.sse < best.back().sse) {
      best.back() = std::move(e);
    }
  }
  std::stable_sort(best.begin(), best.end(),
                   [](const Explanation& a, const Explanation& b) { return a.sse < b.sse; });
  const std::size_t fitted = std::min(best.size(), static_cast<std::size_t>(options.fitted));
  const auto fits = static_cast<std::size_t>(std::count_if(
      best.begin(), best.begin() + static_cast<std::ptrdiff_t>(fitted),
      [](const Explanation& e) { return is_rate(e.faults[0].kind) && e.sse < kImpossible; }));
  for_each_index(fitted, options, [&](std::size_t i) {
    const ElementFault& f = best[i].faults[0];
    if (is_rate(f.kind) && best[i].sse < kImpossible) {
      const auto [lo, hi] = bracket(options.scales, f.scale);
      Explanation e = fit_scale(c, f, lo, hi);
      if (e.sse < best[i].sse) {
        best[i] = std::move(e);
      }
    }
  });
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < fitted; ++a) {
    for (std::size_t b = a + 1; b < fitted; ++b) {
      pairs.emplace_back(a, b);
    }
  }
  std::vector<Explanation> paired(pairs.size());
  for_each_index(pairs.size(), options, [&](std::size_t i) {
    paired[i] = explain(c, {best[pairs[i].first].faults[0], best[pairs[i].second].faults[0]});
  });

  // The criterion's price of a fault, from the number of candidate elements (header).
  const double per_fault = 2.0 * std::max(1.0, std::log(static_cast<double>(best.size())));
  d.ranked.push_back(explain(c, {}));
  d.ranked.insert(d.ranked.end(), std::make_move_iterator(best.begin()),
                  std::make_move_iterator(best.end()));
  d.ranked.insert(d.ranked.end(), std::make_move_iterator(paired.begin()),
                  std::make_move_iterator(paired.end()));
  // The fit evaluates two points, then one per iteration.
  d.candidates = static_cast<int>(1 + singles.size() + fits * (kFitIterations + 2) + paired.size());
  const auto n = static_cast<double>(d.measurements.size());
  d.ranked.erase(std::remove_if(d.ranked.begin(), d.ranked.end(),
                                [](const Explanation& e) { return !(e.sse < kImpossible); }),
                 d.ranked.end());
  for (Explanation& e : d.ranked) {
    // A floor on SSE / n well below any real measurement's noise keeps the log finite.
    e.criterion =
        n * std::log(std::max(e.sse / n, 1e-12)) + per_fault * static_cast<double>(e.faults.size());
  }
  std::stable_sort(
      d.ranked.begin(), d.ranked.end(),
      [](const Explanation& a, const Explanation& b) { return a.criterion < b.criterion; });
  // Groups of equivalent explanations, numbered in rank order by their best member.
  std::vector<const Explanation*> heads;
  for (Explanation& e : d.ranked) {
    const auto head = std::find_if(heads.begin(), heads.end(),
                                   [&](const Explanation* h) { return equivalent(*h, e); });
    e.group = static_cast<int>(head - heads.begin());
    if (head == heads.end()) {
      heads.push_back(&e);
    }
  }
  std::stable_sort(d.ranked.begin(), d.ranked.end(),
                   [](const Explanation& a, const Explanation& b) { return a.group < b.group; });
  return d;
}

}  // namespace railsim::calibrate
