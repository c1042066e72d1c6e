// File: calibrate/check/rdma_pair_check.cpp
#include "calibrate/check/rdma_pair_check.hpp"

#include "calibrate/check/population_outliers.hpp"
#include "calibrate/parse/text_input.hpp"
#include "models/system/rdma_bench.hpp"
#include "sim/bytes.hpp"
#include "sim/median.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

namespace railsim::calibrate::check {

using fit::CalibratedModel;
using parse::PairEvidence;
using parse::PerftestBandwidthRow;
using parse::PerftestKind;
using parse::PerftestLatencyRow;
using parse::PerftestRun;
using parse::PerftestVerb;

namespace {

std::string value_text(const PairFigure& f, double v) {
  return f.bandwidth ? fmt::format("{:.2f} GB/s", v) : fmt::format("{:.3f} us", v);
}

std::string test_name(const PairFigure& f) {
  return fmt::format("{} at {}", f.pair->test, sim::size_text(sim::Bytes{f.size}));
}

// What the population allows a pair of it.
std::string population_bound(const PairFigure& f, double m, double allowed) {
  return f.bandwidth ? fmt::format(">= {:.2f} GB/s (the pairs' median {:.2f} less {:.2f})",
                                   m - allowed, m, allowed)
                     : fmt::format("<= {:.3f} us (the pairs' median {:.3f} plus {:.3f})",
                                   m + allowed, m, allowed);
}

std::string ends_of(const PairFigure& f) {
  return fmt::format("{}/{}.{}", f.pair->node_a, f.pair->node_b, f.device);
}

// Against the model: the median of a population (a fault on a few pairs is the outlier test's),
// or each pair of a population too small for it. Latencies are not: the model's ib_write_lat is
// 23% fast on the CX-6 fixture (docs/hardware.md).
void check_against_model(const std::vector<PairFigure>& figures,
                         double median,
                         const CalibratedModel& model,
                         std::vector<Finding>& out) {
  const PairFigure& first = figures.front();
  const std::optional<double> modelled = model_pair_figure(first, model);
  if (!modelled || !first.bandwidth) {
    return;
  }
  const double floor = *modelled * (1.0 - kRdmaBandwidthTolerance);
  const auto judge = [&](const std::string& element, const std::string& evidence, double v,
                         const std::string& what) {
    const bool ok = v >= floor;
    out.push_back({CheckLayer::kRdma, "bandwidth vs model", element, evidence,
                   fmt::format(">= {:.2f} GB/s ({:.0f}% of the model's {:.2f} GB/s)", floor,
                               100.0 * (1.0 - kRdmaBandwidthTolerance), *modelled),
                   fmt::format("{}{:.2f} GB/s", what, v), ok ? Verdict::kPass : Verdict::kFail,
                   ok ? Severity::kNone : Severity::kMajor,
                   ok ? ""
                      : "slower than the design's NIC and PCIe path allow: check the NICs' PCIe "
                        "width and speed (lspci -vv LnkSta), their firmware, the MTU, and the "
                        "CPU frequency governor perftest warns of"});
  };
  if (static_cast<int>(figures.size()) >= kOutlierMinMembers) {
    judge(test_name(first), first.pair->log.file, median,
          fmt::format("the median of {} pairs: ", figures.size()));
    return;
  }
  for (const PairFigure& f : figures) {
    judge(f.pair->node_a + "/" + f.pair->node_b, parse::place(f.pair->log.file, f.line), f.value,
          "");
  }
}

// One population: every pair of one test at one size.
void check_population(const std::vector<PairFigure>& figures,
                      const CalibratedModel& model,
                      std::vector<Finding>& out) {
  const PairFigure& first = figures.front();
  std::vector<double> values;
  values.reserve(figures.size());
  for (const PairFigure& f : figures) {
    values.push_back(f.value);
  }
  check_against_model(figures, sim::median(values), model, out);
  if (static_cast<int>(figures.size()) < kOutlierMinMembers) {
    return;
  }
  std::vector<PopulationMember> members;
  members.reserve(figures.size());
  for (const PairFigure& f : figures) {
    members.push_back(
        {{f.pair->node_a + "." + f.device, f.pair->node_b + "." + f.device}, f.value});
  }
  const PopulationVerdict v = find_outliers(members, first.bandwidth);
  const std::string bound = population_bound(first, v.median, v.allowed);
  for (const BlamedEnd& end : v.blamed) {
    std::vector<std::string> seen;
    seen.reserve(end.members.size());
    for (const std::size_t i : end.members) {
      seen.push_back(value_text(figures[i], figures[i].value));
    }
    const PairFigure& worst = figures[*std::max_element(
        end.members.begin(), end.members.end(), [&](std::size_t a, std::size_t b) {
          return first.bandwidth ? figures[a].value > figures[b].value
                                 : figures[a].value < figures[b].value;
        })];
    const std::string nic = end.end.substr(end.end.find('.') + 1);
    out.push_back(
        {CheckLayer::kRdma, "pair vs population", end.end,
         parse::place(worst.pair->log.file, worst.line), bound,
         fmt::format("all {} of its pairs: {}", end.members.size(), fmt::join(seen, ", ")),
         Verdict::kFail, Severity::kMajor,
         first.bandwidth
             ? fmt::format("every pair through {} is slow: check its port's error "
                           "counters (perfquery -x, mlxlink -d {} -c), its cable, and "
                           "the switch port it is in",
                           end.end, nic)
             : fmt::format("every pair through {} takes longer: more switch hops than "
                           "its peers (a cable in another leaf than its rail's: compare "
                           "ibnetdiscover with the cabling plan), or a slow port",
                           end.end)});
  }
  for (const std::size_t i : v.unexplained) {
    const PairFigure& f = figures[i];
    out.push_back({CheckLayer::kRdma, "pair vs population", ends_of(f),
                   parse::place(f.pair->log.file, f.line), bound, value_text(f, f.value),
                   Verdict::kFail, Severity::kMajor,
                   "slow only between these two nodes: rerun it to rule out a transient, then "
                   "check the switch path between them (the leaf and spine ports ECMP picks)"});
  }
  if (v.blamed.empty() && v.unexplained.empty()) {
    out.push_back({CheckLayer::kRdma, "pair vs population", test_name(first), first.pair->log.file,
                   bound,
                   fmt::format("all {} pairs within it (median {})", figures.size(),
                               value_text(first, v.median)),
                   Verdict::kPass, Severity::kNone, ""});
  }
}

}  // namespace

std::optional<double> model_pair_figure(const PairFigure& f, const CalibratedModel& model) {
  if (f.run->verb != PerftestVerb::kWrite || f.run->bidirectional || f.run->qps > 1) {
    return std::nullopt;
  }
  const std::optional<int> nic = models::compute_nic_named(model.system.node, f.device);
  if (!nic) {
    return std::nullopt;
  }
  models::SystemSpec spec = model.system;
  spec.nodes = std::max(spec.nodes, 2);
  const models::Endpoint from{0, *nic, models::kHostMemory};
  const models::Endpoint to{1, *nic, models::kHostMemory};
  if (f.bandwidth) {
    return models::rdma_write_stream(spec, {}, from, to, f.size, f.iterations).average_bytes_per_s *
           1e-9;
  }
  return models::rdma_write_latency_us(spec, {}, from, to, f.size);
}

std::optional<PairFigure> pair_figure(const PairEvidence& pair) {
  for (const PerftestRun& run : pair.log.output.runs) {
    PairFigure f{&pair, &run, run.device};
    f.bandwidth = run.kind == PerftestKind::kBandwidth;
    if (f.bandwidth && !run.bw_rows.empty()) {
      const PerftestBandwidthRow& row = run.bw_rows.back();
      f.size = row.size_bytes;
      f.iterations = row.iterations;
      f.value = parse::to_bandwidth(row.bw_average, run.bw_unit).in_gbytes_per_s();
      f.line = row.line;
      return f;
    }
    if (!f.bandwidth && !run.lat_rows.empty()) {
      const PerftestLatencyRow& row = run.lat_rows.front();
      f.size = row.size_bytes;
      f.iterations = row.iterations;
      f.value = row.t_typical_us;
      f.line = row.line;
      return f;
    }
  }
  return std::nullopt;
}

void check_rdma_pairs(const std::vector<PairEvidence>& pairs,
                      const CalibratedModel& model,
                      std::vector<Finding>& out) {
  // Populations in the order their first pair appears.
  std::vector<std::vector<PairFigure>> populations;
  std::map<std::tuple<std::string, std::int64_t, bool>, std::size_t> index;
  for (const PairEvidence& pair : pairs) {
    const std::optional<PairFigure> f = pair_figure(pair);
    if (!f) {
      out.push_back({CheckLayer::kRdma, "pair vs population", pair.node_a + "/" + pair.node_b,
                     pair.log.file, "", "", Verdict::kSkipped, Severity::kNone,
                     "the log has no result rows"});
      continue;
    }
    const auto key = std::make_tuple(pair.test, f->size, f->run->bidirectional);
    const auto [it, added] = index.try_emplace(key, populations.size());
    if (added) {
      populations.emplace_back();
    }
    populations[it->second].push_back(*f);
  }
  for (const std::vector<PairFigure>& population : populations) {
    check_population(population, model, out);
  }
}

}  // namespace railsim::calibrate::check
