// File: tools/step/step_evaluation.cpp
#include "tools/step/step_evaluation.hpp"

#include "models/system/background_traffic.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

namespace railsim::tools {
namespace {

namespace sc = models::scenario;

// The nodes a link name mentions: "n3.mlx5_0>leaf4" and "leaf4>n3.mlx5_0" are node 3's.
std::vector<int> nodes_named(const std::string& link) {
  static const std::regex node_prefix(R"((?:^|>)n(\d+)\.)");
  std::vector<int> nodes;
  for (auto it = std::sregex_iterator(link.begin(), link.end(), node_prefix);
       it != std::sregex_iterator(); ++it) {
    nodes.push_back(std::stoi((*it)[1].str()));
  }
  return nodes;
}

// The link faults of one list, one item per place they were written (a PCIe element's two).
void add_link_items(const std::vector<models::LinkFault>& faults,
                    const std::string& file,
                    bool in_system_file,
                    const StepScenario& base,
                    std::vector<FaultItem>& items) {
  std::vector<std::string> pointers;
  for (const models::LinkFault& fault : faults) {
    if (std::find(pointers.begin(), pointers.end(), fault.json_pointer) == pointers.end()) {
      pointers.push_back(fault.json_pointer);
    }
  }
  for (const std::string& pointer : pointers) {
    FaultItem item;
    item.where = fmt::format("{}: {}", file, pointer);
    item.alone = base;
    std::vector<models::LinkFault>& target =
        in_system_file ? item.alone.system.faults : item.alone.faults.links;
    for (const models::LinkFault& fault : faults) {
      if (fault.json_pointer != pointer) {
        continue;
      }
      item.label += (item.label.empty() ? "" : " + ") + models::fault_text(fault);
      for (const int node : nodes_named(fault.link)) {
        if (std::find(item.nodes.begin(), item.nodes.end(), node) == item.nodes.end()) {
          item.nodes.push_back(node);
        }
      }
      target.push_back(fault);
    }
    items.push_back(std::move(item));
  }
}

}  // namespace

StepRun run_step_scenario(const StepScenario& scenario) {
  sc::SystemFile file = scenario.system;
  for (const int node : scenario.faults.gdr_off_nodes) {
    if (std::find(file.system.gdr_off_nodes.begin(), file.system.gdr_off_nodes.end(), node) ==
        file.system.gdr_off_nodes.end()) {
      file.system.gdr_off_nodes.push_back(node);
    }
  }
  for (const sc::PcieMove& move : scenario.faults.moved) {
    models::move_pcie_device(file.system, move.node, move.element, move.parent);
  }
  sc::SystemFile fault_file;
  fault_file.file = scenario.faults.file;
  fault_file.faults = scenario.faults.links;

  sim::Simulator simulator;
  sim::FlowNetwork network(simulator);
  models::System system(file.system, network);
  sc::apply_faults(file, system, network);
  sc::apply_faults(fault_file, system, network);
  models::start_background(system, network, scenario.background);
  sc::schedule_faults(file.file, file.faults, network, simulator);
  sc::schedule_faults(fault_file.file, fault_file.faults, network, simulator);

  models::StepOptions options = scenario.options;
  const auto timed = [](const std::vector<models::LinkFault>& faults) {
    return std::any_of(faults.begin(), faults.end(),
                       [](const models::LinkFault& f) { return f.schedule.has_value(); });
  };
  options.reuse_identical_calls = !timed(file.faults) && !timed(fault_file.faults);
  options.stragglers.insert(options.stragglers.end(), scenario.faults.stragglers.begin(),
                            scenario.faults.stragglers.end());
  std::vector<models::StepWorkload> jobs = {scenario.workload};
  jobs.insert(jobs.end(), scenario.co_jobs.begin(), scenario.co_jobs.end());
  std::vector<models::StepResult> results =
      models::run_steps(system, network, simulator, jobs, options);
  StepRun run;
  run.result = std::move(results.front());
  run.co_results.assign(std::make_move_iterator(results.begin() + 1),
                        std::make_move_iterator(results.end()));
  run.link_names.reserve(network.link_count());
  run.link_capacity.reserve(network.link_count());
  run.fabric_link.reserve(network.link_count());
  for (std::uint32_t l = 0; l < network.link_count(); ++l) {
    const sim::LinkId link{l};
    run.link_names.emplace_back(network.link(link).name);
    run.link_capacity.push_back(network.link(link).capacity.bytes_per_s);
    run.fabric_link.push_back(system.is_node_port_link(link) || system.is_spine_link(link) ||
                              system.is_core_link(link));
  }
  return run;
}

StepScenario healthy(const StepScenario& scenario) {
  StepScenario out = scenario;
  out.system.faults.clear();
  out.faults = {};
  out.faults.file = scenario.faults.file;
  return out;
}

std::vector<FaultItem> fault_items(const StepScenario& scenario) {
  const StepScenario base = healthy(scenario);
  std::vector<FaultItem> items;
  add_link_items(scenario.system.faults, scenario.system.file, true, base, items);
  add_link_items(scenario.faults.links, scenario.faults.file, false, base, items);
  for (std::size_t i = 0; i < scenario.faults.stragglers.size(); ++i) {
    const models::Straggler& s = scenario.faults.stragglers[i];
    FaultItem item;
    item.label = fmt::format("n{}.gpu{} compute x{:g}", s.node, s.gpu, s.compute_scale);
    item.where = fmt::format("{}: straggler {}", scenario.faults.file, i);
    item.nodes = {s.node};
    item.alone = base;
    item.alone.faults.stragglers = {s};
    items.push_back(std::move(item));
  }
  for (const int node : scenario.faults.gdr_off_nodes) {
    FaultItem item;
    item.label = fmt::format("GPUDirect RDMA off on node {}", node);
    item.where = fmt::format("{}: gdr_off_node {}", scenario.faults.file, node);
    item.nodes = {node};
    item.alone = base;
    item.alone.faults.gdr_off_nodes = {node};
    items.push_back(std::move(item));
  }
  for (const sc::PcieMove& move : scenario.faults.moved) {
    FaultItem item;
    item.label = fmt::format("n{}.{} below {}", move.node, move.element,
                             models::pcie_parent_name(move.parent));
    item.where = fmt::format("{}: pcie n{}.{}", scenario.faults.file, move.node, move.element);
    item.nodes = {move.node};
    item.alone = base;
    item.alone.faults.moved = {move};
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<StepScenario> jobs_alone(const StepScenario& scenario) {
  std::vector<StepScenario> out;
  out.reserve(1 + scenario.co_jobs.size());
  StepScenario first = scenario;
  first.co_jobs.clear();
  out.push_back(first);
  for (const models::StepWorkload& job : scenario.co_jobs) {
    StepScenario alone = first;
    alone.workload = job;
    out.push_back(std::move(alone));
  }
  return out;
}

}  // namespace railsim::tools
