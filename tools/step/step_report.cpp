// File: tools/step/step_report.cpp
#include "tools/step/step_report.hpp"

#include "models/collective/collective_types.hpp"
#include "models/collective/execution.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

namespace railsim::tools {
namespace {

double ms(sim::Duration d) { return sim::to_ms(d); }

double ms_since(sim::SimTime t, sim::SimTime origin) { return ms(t - origin); }

// How many times `baseline` a time is; 1 for a baseline of zero (a step with nothing to do).
double ratio(sim::Duration time, sim::Duration baseline) {
  return baseline > sim::Duration{} ? sim::to_seconds(time) / sim::to_seconds(baseline) : 1.0;
}

double slowdown(const StepReport& report) {
  return ratio(report.run.result.step_time, report.healthy_step_time);
}

// "rank 17" for compute, "dp group 3" for a collective or send.
std::string instance_of(const models::StepWorkload& workload, const models::PhaseRun& run) {
  const int comm = models::communicator_of(workload.phases[static_cast<std::size_t>(run.phase)]);
  if (comm >= 0) {
    return fmt::format("{} group {}", workload.communicators[static_cast<std::size_t>(comm)].name,
                       run.instance);
  }
  return fmt::format("rank {}", run.instance);
}

// Phases "backward.0" ... "backward.99" are one entry of the table: the part before the dot.
std::string family(const std::string& name) { return name.substr(0, name.find('.')); }

void print_critical_path(std::ostream& out,
                         const models::StepWorkload& workload,
                         const StepReport& report) {
  const double step_ms = ms(report.run.result.step_time);
  out << "# critical path by phase family (time each held it)\n";
  out << fmt::format("#  {:<24} {:<15} {:>7} {:>11} {:>7}\n", "family", "kind", "phases", "ms",
                     "share");
  for (const FamilyCost& f : critical_families(workload, report.run.result)) {
    out << fmt::format("   {:<24} {:<15} {:>7} {:>11.3f} {:>6.1f}%\n", f.family, f.kind, f.phases,
                       f.ms, step_ms > 0.0 ? 100.0 * f.ms / step_ms : 0.0);
  }
  out << "# critical path (each entry waited for the one before it)\n";
  out << fmt::format("#  {:<24} {:<15} {:>11} {:>11}  {}\n", "phase", "kind", "start_ms", "end_ms",
                     "on");
  for (const CriticalEntry& e : critical_entries(workload, report)) {
    out << fmt::format("   {:<24} {:<15} {:>11.3f} {:>11.3f}  {}\n", e.name, e.kind, e.start_ms,
                       e.end_ms, e.on);
  }
}

}  // namespace

sim::SimTime step_origin(const models::StepResult& result) {
  sim::SimTime origin = result.runs.empty() ? sim::SimTime{} : result.runs.front().ready;
  for (const models::PhaseRun& run : result.runs) {
    origin = std::min(origin, run.ready);
  }
  return origin;
}

std::string phase_kind(const models::StepWorkload& workload, const models::PhaseRun& run) {
  const auto& task = workload.phases[static_cast<std::size_t>(run.phase)].task;
  if (const auto* collective = std::get_if<models::CollectiveTask>(&task)) {
    return std::string(models::op_name(collective->request.op));
  }
  return std::holds_alternative<models::SendTask>(task) ? "send" : "compute";
}

std::vector<CriticalEntry> critical_entries(const models::StepWorkload& workload,
                                            const StepReport& report) {
  const models::StepResult& result = report.run.result;
  const sim::SimTime origin = step_origin(result);
  std::vector<CriticalEntry> entries;
  const std::vector<int>& path = result.critical_path;
  for (std::size_t i = 0; i < path.size();) {
    const models::PhaseRun& first = result.runs[static_cast<std::size_t>(path[i])];
    const std::string& first_name = workload.phases[static_cast<std::size_t>(first.phase)].name;
    const std::string kind = phase_kind(workload, first);
    std::size_t j = i + 1;
    while (j < path.size()) {
      const models::PhaseRun& next = result.runs[static_cast<std::size_t>(path[j])];
      if (phase_kind(workload, next) != kind ||
          family(workload.phases[static_cast<std::size_t>(next.phase)].name) !=
              family(first_name)) {
        break;
      }
      ++j;
    }
    const models::PhaseRun& last = result.runs[static_cast<std::size_t>(path[j - 1])];
    const std::string& last_name = workload.phases[static_cast<std::size_t>(last.phase)].name;
    CriticalEntry entry;
    entry.name = j - i == 1 ? first_name
                            : fmt::format("{}..{} ({})", first_name,
                                          last_name.substr(last_name.find('.') + 1), j - i);
    entry.kind = kind;
    entry.start_ms = ms_since(first.start, origin);
    entry.end_ms = ms_since(last.end, origin);
    entry.on = instance_of(workload, first);
    if (first.collective) {
      const models::CollectiveResult& c = *first.collective;
      entry.on += fmt::format(", {} {} {}ch {:.1f} GB/s busbw", models::algorithm_label(c),
                              models::protocol_name(c.protocol), c.channels, c.busbw_GBps);
    }
    if (first.busiest_link) {
      entry.on += fmt::format(", busiest link {} ({:.0f}%)",
                              report.run.link_names[first.busiest_link->index],
                              100.0 * first.busiest_utilisation);
    }
    entries.push_back(std::move(entry));
    i = j;
  }
  return entries;
}

std::vector<FamilyCost> critical_families(const models::StepWorkload& workload,
                                          const models::StepResult& result) {
  std::vector<FamilyCost> out;
  for (const int index : result.critical_path) {
    const models::PhaseRun& run = result.runs[static_cast<std::size_t>(index)];
    const std::string name = family(workload.phases[static_cast<std::size_t>(run.phase)].name);
    const std::string kind = phase_kind(workload, run);
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const FamilyCost& f) { return f.family == name && f.kind == kind; });
    if (it == out.end()) {
      out.push_back({name, kind, 0, 0.0});
      it = out.end() - 1;
    }
    ++it->phases;
    it->ms += ms(run.end - run.start);
  }
  std::sort(out.begin(), out.end(), [](const FamilyCost& a, const FamilyCost& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.family < b.family;
  });
  return out;
}

void print_step_table(std::ostream& out,
                      const models::StepWorkload& workload,
                      const StepReport& report) {
  const models::StepResult& result = report.run.result;
  out << fmt::format("# railsim step: {} on {}: {} nodes, {} GPU{} each, {} ranks, {} phases\n",
                     report.workload, report.system, workload.nodes.size(), workload.gpus_per_node,
                     workload.gpus_per_node == 1 ? "" : "s", workload.ranks(),
                     workload.phases.size());
  out << fmt::format("  step time            {:12.3f} ms\n", ms(result.step_time));
  out << fmt::format("  healthy step time    {:12.3f} ms   slowdown {:.4f}x\n",
                     ms(report.healthy_step_time), slowdown(report));
  out << fmt::format("  comm wait fraction   {:12.4f}      (GPUs not computing, rank average)\n",
                     result.comm_wait_fraction());
  std::vector<int> ranks(result.compute_time.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  std::stable_sort(ranks.begin(), ranks.end(),
                   [&](int a, int b) { return result.idle_time(a) < result.idle_time(b); });
  if (!ranks.empty()) {
    const int least = ranks.front();
    const int median = ranks[ranks.size() / 2];
    const int most = ranks.back();
    out << fmt::format(
        "  rank idle time       min {:.3f} ms (rank {}), median {:.3f} ms, max {:.3f} ms (rank "
        "{})\n",
        ms(result.idle_time(least)), least, ms(result.idle_time(median)),
        ms(result.idle_time(most)), most);
  }
  print_critical_path(out, workload, report);
  if (!report.faults.empty()) {
    out << "# faults (each alone against the healthy run)\n";
    out << fmt::format("#  {:<44} {:>8} {:>14} {:>9}  {}\n", "fault", "nodes", "step_time_ms",
                       "slowdown", "written at");
    for (const FaultCost& f : report.faults) {
      const std::string nodes =
          f.nodes.empty() ? std::string("fabric") : fmt::format("{}", fmt::join(f.nodes, ","));
      out << fmt::format("   {:<44} {:>8} {:>14.3f} {:>8.4f}x  {}\n", f.label, nodes,
                         ms(f.step_time), ratio(f.step_time, report.healthy_step_time), f.where);
    }
  }
  if (!report.jobs.empty()) {
    out << "# jobs sharing the fabric (the first is the one above)\n";
    out << fmt::format("#  {:<24} {:>12} {:>14} {:>14} {:>9}\n", "job", "nodes", "step_time_ms",
                       "alone_ms", "sharing");
    for (const JobCost& job : report.jobs) {
      out << fmt::format("   {:<24} {:>12} {:>14.3f} {:>14.3f} {:>8.4f}x\n", job.name,
                         fmt::format("{}", fmt::join(job.nodes, ",")), ms(job.step_time),
                         ms(job.alone_step_time), ratio(job.step_time, job.alone_step_time));
    }
  }
  if (report.link_scale > 0.0) {
    out << fmt::format("# fabric links ranked by the step time each costs at {:g}x its rate\n",
                       report.link_scale);
    out << fmt::format("#  {:<32} {:>14} {:>10}\n", "link", "step_time_ms", "cost_ms");
    for (const LinkCost& l : report.link_costs) {
      out << fmt::format("   {:<32} {:>14.3f} {:>10.3f}\n", l.link, ms(l.step_time),
                         ms(l.step_time - report.healthy_step_time));
    }
  }
}

void print_step_json(std::ostream& out,
                     const models::StepWorkload& workload,
                     const StepReport& report) {
  const models::StepResult& result = report.run.result;
  const sim::SimTime origin = step_origin(result);
  nlohmann::ordered_json doc;
  doc["workload"] = report.workload;
  doc["system"] = report.system;
  doc["nodes"] = workload.nodes.size();
  doc["ranks"] = workload.ranks();
  doc["step_time_ms"] = ms(result.step_time);
  doc["healthy_step_time_ms"] = ms(report.healthy_step_time);
  doc["slowdown"] = slowdown(report);
  doc["comm_wait_fraction"] = result.comm_wait_fraction();
  doc["rank_idle_ms"] = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < result.compute_time.size(); ++r) {
    doc["rank_idle_ms"].push_back(ms(result.idle_time(static_cast<int>(r))));
  }
  doc["critical_families"] = nlohmann::ordered_json::array();
  for (const FamilyCost& f : critical_families(workload, result)) {
    doc["critical_families"].push_back(
        {{"family", f.family}, {"kind", f.kind}, {"phases", f.phases}, {"ms", f.ms}});
  }
  doc["critical_path"] = nlohmann::ordered_json::array();
  for (const int index : result.critical_path) {
    const models::PhaseRun& run = result.runs[static_cast<std::size_t>(index)];
    nlohmann::ordered_json entry = {
        {"phase", workload.phases[static_cast<std::size_t>(run.phase)].name},
        {"kind", phase_kind(workload, run)},
        {"on", instance_of(workload, run)},
        {"start_ms", ms_since(run.start, origin)},
        {"end_ms", ms_since(run.end, origin)}};
    if (run.collective) {
      const models::CollectiveResult& c = *run.collective;
      entry["algo"] = std::string(models::algorithm_label(c));
      entry["proto"] = std::string(models::protocol_name(c.protocol));
      entry["channels"] = c.channels;
      entry["busbw_GBps"] = c.busbw_GBps;
    }
    if (models::communicator_of(workload.phases[static_cast<std::size_t>(run.phase)]) >= 0) {
      entry["busiest_link"] =
          run.busiest_link ? nlohmann::ordered_json(report.run.link_names[run.busiest_link->index])
                           : nlohmann::ordered_json(nullptr);
      entry["busiest_link_utilisation"] = run.busiest_utilisation;
    }
    doc["critical_path"].push_back(std::move(entry));
  }
  doc["faults"] = nlohmann::ordered_json::array();
  for (const FaultCost& f : report.faults) {
    doc["faults"].push_back({{"fault", f.label},
                             {"where", f.where},
                             {"nodes", f.nodes},
                             {"alone_step_time_ms", ms(f.step_time)},
                             {"alone_slowdown", ratio(f.step_time, report.healthy_step_time)}});
  }
  if (!report.jobs.empty()) {
    doc["jobs"] = nlohmann::ordered_json::array();
    for (const JobCost& job : report.jobs) {
      doc["jobs"].push_back({{"job", job.name},
                             {"nodes", job.nodes},
                             {"step_time_ms", ms(job.step_time)},
                             {"alone_step_time_ms", ms(job.alone_step_time)},
                             {"sharing_slowdown", ratio(job.step_time, job.alone_step_time)}});
    }
  }
  if (report.link_scale > 0.0) {
    doc["link_rate_scale"] = report.link_scale;
    doc["link_costs"] = nlohmann::ordered_json::array();
    for (const LinkCost& l : report.link_costs) {
      doc["link_costs"].push_back({{"link", l.link},
                                   {"step_time_ms", ms(l.step_time)},
                                   {"cost_ms", ms(l.step_time - report.healthy_step_time)}});
    }
  }
  out << doc.dump(2) << "\n";
}

}  // namespace railsim::tools
