// File: calibrate/fit/profile.cpp
#include "calibrate/fit/profile.hpp"

#include "models/collective/collective_types.hpp"
#include "models/fabric/cabling.hpp"
#include "models/hardware/node_spec.hpp"
#include "models/scenario/json_reader.hpp"
#include "sim/bytes.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace railsim::calibrate::fit {
namespace {

using models::scenario::JsonValue;

constexpr const char* kFormatName = "railsim calibration profile";
constexpr int kFormatVersion = 1;

const char* status_name(VariableStatus status) {
  switch (status) {
    case VariableStatus::kFitted:
      return "fitted";
    case VariableStatus::kAtBound:
      return "at_bound";
    case VariableStatus::kNotInformed:
      return "not_informed";
  }
  return "?";
}

const char* kind_name(MeasurementKind kind) {
  switch (kind) {
    case MeasurementKind::kCollectiveTime:
      return "collective_time_us";
    case MeasurementKind::kRdmaBandwidth:
      return "rdma_bandwidth_GBps";
    case MeasurementKind::kRdmaLatency:
      return "rdma_latency_us";
  }
  return "?";
}

// JSON has no infinity: a standard error the data cannot give is null.
nlohmann::ordered_json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

CalibratedRange range_of(const std::vector<RowCheck>& rows) {
  CalibratedRange range;
  std::set<std::string> ops;
  std::set<int> nodes;
  std::set<int> gpus;
  bool any_collective = false;
  for (const RowCheck& row : rows) {
    const Measurement& m = row.measurement;
    if (m.kind == MeasurementKind::kCollectiveTime) {
      ops.insert(std::string(models::op_name(m.op)));
      nodes.insert(m.nodes);
      gpus.insert(m.gpus_per_node);
      range.min_size_bytes =
          any_collective ? std::min(range.min_size_bytes, m.size_bytes) : m.size_bytes;
      range.max_size_bytes = std::max(range.max_size_bytes, m.size_bytes);
      any_collective = true;
    } else {
      range.min_rdma_size_bytes =
          range.rdma ? std::min(range.min_rdma_size_bytes, m.size_bytes) : m.size_bytes;
      range.max_rdma_size_bytes = std::max(range.max_rdma_size_bytes, m.size_bytes);
      range.rdma = true;
    }
  }
  range.ops.assign(ops.begin(), ops.end());
  range.nodes.assign(nodes.begin(), nodes.end());
  range.gpus_per_node.assign(gpus.begin(), gpus.end());
  return range;
}

template <typename T>
nlohmann::ordered_json list(const std::vector<T>& values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const T& v : values) {
    out.push_back(v);
  }
  return out;
}

std::vector<int> int_list(const JsonValue& value, std::int64_t min) {
  std::vector<int> out;
  for (const JsonValue& e : value.elements()) {
    out.push_back(static_cast<int>(e.as_integer(min, 1'000'000)));
  }
  return out;
}

// "3 of the sizes (8 B to 128 B): the profile saw 1024 B to 65536 B", or "" when none is outside.
std::string sizes_outside(const std::vector<std::int64_t>& sizes,
                          std::int64_t min_bytes,
                          std::int64_t max_bytes) {
  std::vector<std::int64_t> outside;
  for (const std::int64_t s : sizes) {
    if (s < min_bytes || s > max_bytes) {
      outside.push_back(s);
    }
  }
  if (outside.empty()) {
    return {};
  }
  const auto [low, high] = std::minmax_element(outside.begin(), outside.end());
  using sim::size_text;
  const std::string which =
      outside.size() == 1 ? size_text(sim::Bytes{*low})
                          : fmt::format("{} of the sizes ({} to {})", outside.size(),
                                        size_text(sim::Bytes{*low}), size_text(sim::Bytes{*high}));
  return fmt::format("{}: the profile saw {} to {}", which, size_text(sim::Bytes{min_bytes}),
                     size_text(sim::Bytes{max_bytes}));
}

}  // namespace

std::string content_hash(std::string_view content) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64 offset basis and prime
  for (const char c : content) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

Profile make_profile(const Calibration& calibration,
                     std::string system,
                     std::string node,
                     std::vector<ProfileInput> inputs) {
  Profile p;
  p.system = std::move(system);
  p.node = std::move(node);
  std::vector<std::size_t> fitted;
  for (std::size_t j = 0; j < calibration.parameters.size(); ++j) {
    const FittedParameter& f = calibration.parameters[j];
    p.parameters.push_back({f.parameter, f.value, f.sigma, f.initial, f.status});
    if (f.status == VariableStatus::kFitted) {
      fitted.push_back(j);
    }
  }
  for (const std::size_t a : fitted) {
    std::vector<double> row;
    row.reserve(fitted.size());
    for (const std::size_t b : fitted) {
      row.push_back(calibration.covariance[a][b]);
    }
    p.covariance.push_back(std::move(row));
  }
  p.method = calibration.linear ? "linear least squares" : "Levenberg-Marquardt";
  p.converged = calibration.converged;
  p.message = calibration.message;
  p.evaluations = calibration.evaluations;
  p.inputs = std::move(inputs);
  p.range = range_of(calibration.rows);
  p.rows = calibration.rows;
  const models::RailMapping rails = calibration.model.system.fabric.rails;
  if (!calibration.cablings.empty() && rails != calibration.cablings.front().rails) {
    p.rails = rails;
  }
  return p;
}

std::string profile_json(const Profile& p) {
  nlohmann::ordered_json doc;
  doc["format"] = kFormatName;
  doc["version"] = kFormatVersion;
  doc["system"] = p.system;
  doc["node"] = p.node;
  if (p.rails) {
    doc["rails"] = models::rail_mapping_key(*p.rails);
  }
  nlohmann::ordered_json parameters = nlohmann::ordered_json::array();
  for (const ProfileParameter& q : p.parameters) {
    parameters.push_back({{"name", q.parameter->name},
                          {"unit", q.parameter->unit},
                          {"value", q.value},
                          {"sigma", number_or_null(q.sigma)},
                          {"status", status_name(q.status)},
                          {"default", q.initial}});
  }
  doc["parameters"] = std::move(parameters);
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const ProfileParameter* q : fitted_parameters(p)) {
    names.push_back(q->parameter->name);
  }
  nlohmann::ordered_json matrix = nlohmann::ordered_json::array();
  for (const auto& row : p.covariance) {
    nlohmann::ordered_json r = nlohmann::ordered_json::array();
    for (const double v : row) {
      r.push_back(number_or_null(v));
    }
    matrix.push_back(std::move(r));
  }
  doc["covariance"] = {{"parameters", std::move(names)}, {"matrix", std::move(matrix)}};
  doc["fit"] = {{"method", p.method},
                {"converged", p.converged},
                {"message", p.message},
                {"evaluations", p.evaluations},
                {"rows", p.rows.size()}};
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const ProfileInput& in : p.inputs) {
    inputs.push_back({{"file", in.file}, {"format", in.format}, {"fnv1a64", in.hash}});
  }
  doc["inputs"] = std::move(inputs);
  const CalibratedRange& r = p.range;
  nlohmann::ordered_json range = {{"ops", list(r.ops)},
                                  {"nodes", list(r.nodes)},
                                  {"gpus_per_node", list(r.gpus_per_node)},
                                  {"min_size_bytes", r.min_size_bytes},
                                  {"max_size_bytes", r.max_size_bytes},
                                  {"rdma", r.rdma},
                                  {"min_rdma_size_bytes", r.min_rdma_size_bytes},
                                  {"max_rdma_size_bytes", r.max_rdma_size_bytes}};
  doc["range"] = std::move(range);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const RowCheck& row : p.rows) {
    const Measurement& m = row.measurement;
    nlohmann::ordered_json j = {{"source", m.source}, {"quantity", kind_name(m.kind)}};
    if (m.kind == MeasurementKind::kCollectiveTime) {
      j["op"] = models::op_name(m.op);
      j["nodes"] = m.nodes;
      j["gpus_per_node"] = m.gpus_per_node;
    }
    j["size_bytes"] = m.size_bytes;
    j["measured"] = m.measured;
    j["predicted"] = row.predicted;
    j["error"] = row.error;
    rows.push_back(std::move(j));
  }
  doc["residuals"] = std::move(rows);
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Profile read_profile(const std::string& path) {
  const models::scenario::JsonDocument document = models::scenario::load_json_file(path);
  const JsonValue root = document.root();
  root.expect_keys({"format", "version", "system", "node", "rails", "parameters", "covariance",
                    "fit", "inputs", "range", "residuals"});
  if (root.at("format").as_string() != kFormatName) {
    throw root.at("format").error(fmt::format("expected \"{}\"", kFormatName));
  }
  (void)root.at("version").as_integer(kFormatVersion, kFormatVersion);
  Profile p;
  p.system = root.at("system").as_string();
  if (const std::optional<JsonValue> node = root.find("node")) {
    p.node = node->as_string();
  }
  if (const std::optional<JsonValue> rails = root.find("rails")) {
    using models::rail_mapping_key;
    using models::RailMapping;
    p.rails = rails->as_enum<RailMapping>(
        {{rail_mapping_key(RailMapping::kAligned), RailMapping::kAligned},
         {rail_mapping_key(RailMapping::kMisaligned), RailMapping::kMisaligned},
         {rail_mapping_key(RailMapping::kTopOfRack), RailMapping::kTopOfRack}});
  }
  for (const JsonValue& e : root.at("parameters").elements()) {
    e.expect_keys({"name", "unit", "value", "sigma", "status", "default"});
    ProfileParameter q;
    const JsonValue name = e.at("name");
    q.parameter = find_model_parameter(name.as_string());
    if (q.parameter == nullptr) {
      throw name.error(fmt::format("unknown parameter \"{}\"", name.as_string()));
    }
    q.value = e.at("value").as_number(q.parameter->lower, q.parameter->upper);
    const JsonValue sigma = e.at("sigma");
    q.sigma = sigma.is_null() ? std::numeric_limits<double>::infinity() : sigma.as_number(0.0);
    q.initial = e.at("default").as_number();
    q.status =
        e.at("status").as_enum<VariableStatus>({{"fitted", VariableStatus::kFitted},
                                                {"at_bound", VariableStatus::kAtBound},
                                                {"not_informed", VariableStatus::kNotInformed}});
    p.parameters.push_back(q);
  }
  const JsonValue covariance = root.at("covariance");
  covariance.expect_keys({"parameters", "matrix"});
  const std::size_t n = fitted_parameters(p).size();
  const JsonValue matrix = covariance.at("matrix");
  if (covariance.at("parameters").size() != n || matrix.size() != n) {
    throw covariance.error(
        fmt::format("expected a {} x {} matrix, one row per fitted parameter", n, n));
  }
  for (const JsonValue& row : matrix.elements()) {
    if (row.size() != n) {
      throw row.error(fmt::format("expected {} numbers", n));
    }
    std::vector<double> values;
    for (const JsonValue& v : row.elements()) {
      values.push_back(v.is_null() ? std::numeric_limits<double>::infinity() : v.as_number());
    }
    p.covariance.push_back(std::move(values));
  }
  const JsonValue fit = root.at("fit");
  p.method = fit.at("method").as_string();
  p.converged = fit.at("converged").as_bool();
  p.message = fit.at("message").as_string();
  for (const JsonValue& e : root.at("inputs").elements()) {
    p.inputs.push_back(
        {e.at("file").as_string(), e.at("format").as_string(), e.at("fnv1a64").as_string()});
  }
  const JsonValue range = root.at("range");
  for (const JsonValue& e : range.at("ops").elements()) {
    p.range.ops.push_back(e.as_string());
  }
  p.range.nodes = int_list(range.at("nodes"), 1);
  p.range.gpus_per_node = int_list(range.at("gpus_per_node"), 1);
  p.range.min_size_bytes = range.at("min_size_bytes").as_integer(0);
  p.range.max_size_bytes = range.at("max_size_bytes").as_integer(0);
  p.range.rdma = range.at("rdma").as_bool();
  p.range.min_rdma_size_bytes = range.at("min_rdma_size_bytes").as_integer(0);
  p.range.max_rdma_size_bytes = range.at("max_rdma_size_bytes").as_integer(0);
  return p;
}

void apply_profile(const Profile& profile, CalibratedModel& model) {
  if (profile.rails) {
    models::FabricSpec& fabric = model.system.fabric;
    const int rails = static_cast<int>(models::compute_nic_indices(model.system.node).size());
    if (const std::optional<std::string> problem =
            *profile.rails == models::RailMapping::kTopOfRack
                ? models::top_of_rack_problem(fabric.nodes_per_leaf, fabric.planes, rails)
                : std::nullopt) {
      throw sim::InputError(fmt::format(
          "the profile found the rails cabled top-of-rack, which this fabric cannot be: {}",
          *problem));
    }
    fabric.rails = *profile.rails;
  }
  for (const ProfileParameter& q : profile.parameters) {
    if (q.status != VariableStatus::kNotInformed) {
      q.parameter->set(model, q.value);
    }
  }
}

std::vector<const ProfileParameter*> fitted_parameters(const Profile& profile) {
  std::vector<const ProfileParameter*> out;
  for (const ProfileParameter& q : profile.parameters) {
    if (q.status == VariableStatus::kFitted) {
      out.push_back(&q);
    }
  }
  return out;
}

std::vector<std::string> outside_range(const Profile& profile,
                                       const std::string& op,
                                       int nodes,
                                       int gpus_per_node,
                                       const std::vector<std::int64_t>& sizes) {
  const CalibratedRange& r = profile.range;
  std::vector<std::string> out;
  const auto seen = [](const auto& values) { return fmt::format("{}", fmt::join(values, ", ")); };
  if (r.ops.empty()) {
    out.emplace_back("the profile was fitted without any collective");
    return out;
  }
  if (std::find(r.ops.begin(), r.ops.end(), op) == r.ops.end()) {
    out.push_back(fmt::format("{}: the profile saw {}", op, seen(r.ops)));
  }
  if (std::find(r.nodes.begin(), r.nodes.end(), nodes) == r.nodes.end()) {
    out.push_back(fmt::format("{} nodes: the profile saw {}", nodes, seen(r.nodes)));
  }
  if (std::find(r.gpus_per_node.begin(), r.gpus_per_node.end(), gpus_per_node) ==
      r.gpus_per_node.end()) {
    out.push_back(
        fmt::format("{} GPUs per node: the profile saw {}", gpus_per_node, seen(r.gpus_per_node)));
  }
  if (std::string s = sizes_outside(sizes, r.min_size_bytes, r.max_size_bytes); !s.empty()) {
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> outside_rdma_range(const Profile& profile,
                                            const std::vector<std::int64_t>& sizes) {
  const CalibratedRange& r = profile.range;
  if (!r.rdma) {
    return {"the profile was fitted without any perftest row"};
  }
  std::string s = sizes_outside(sizes, r.min_rdma_size_bytes, r.max_rdma_size_bytes);
  return s.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::move(s)};
}

}  // namespace railsim::calibrate::fit
