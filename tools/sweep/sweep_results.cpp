// File: tools/sweep/sweep_results.cpp
// The CSV and JSON forms of a sweep's results, and reading the JSON form back. Numbers are
// written in their shortest round-trip form, so reading a file back and writing it again gives
// the same bytes.
#include "tools/sweep/sweep_results.hpp"

#include "models/scenario/json_reader.hpp"
#include "sim/input_error.hpp"
#include "tools/cli_support/csv_row.hpp"
#include "tools/cli_support/output_folder.hpp"
#include "tools/sweep/sweep_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <system_error>

namespace railsim::tools::sweep {
namespace {

using Json = nlohmann::ordered_json;

std::string metric_text(const MetricValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    return fmt::format("{}", *i);
  }
  if (const auto* d = std::get_if<double>(&value)) {
    return fmt::format("{}", *d);  // fmt's shortest round-trip form
  }
  return csv_field(std::get<std::string>(value));
}

// JSON has no NaN or infinity: nlohmann writes them as null, which reads back as NaN.
Json metric_json(const MetricValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

MetricValue metric_of(const Json& value, const std::string& where) {
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw sim::InputError(where + ": integer out of range");
  }
  if (value.is_number_integer()) {
    return value.get<std::int64_t>();
  }
  if (value.is_number_float()) {
    return value.get<double>();
  }
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_null()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  throw sim::InputError(where + ": expected a number or a string, got " + value.type_name());
}

// The member `key` of `object`, of the type `check` accepts; an InputError naming `file` and
// `key` otherwise.
const Json& member(const Json& object,
                   const std::string& key,
                   bool (Json::*check)() const noexcept,
                   const std::string& file) {
  const auto it = object.find(key);
  if (it == object.end() || !((*it).*check)()) {
    throw sim::InputError(fmt::format(
        "{}: not the results.json of a railsim sweep (\"{}\" missing or of the wrong type)", file,
        key));
  }
  return *it;
}

ResultRow row_of(const Json& row,
                 const std::vector<std::string>& parameters,
                 const std::string& where) {
  if (!row.is_object()) {
    throw sim::InputError(where + ": expected an object");
  }
  ResultRow out;
  out.point = member(row, "point", &Json::is_number_unsigned, where).get<std::size_t>();
  const std::set<std::string> names(parameters.begin(), parameters.end());
  out.cells.reserve(parameters.size());
  for (const std::string& name : parameters) {
    const auto it = row.find(name);
    if (it == row.end()) {
      throw sim::InputError(fmt::format("{}: no value of parameter \"{}\"", where, name));
    }
    out.cells.push_back(it->dump());
  }
  for (const auto& item : row.items()) {
    if (item.key() != "point" && names.count(item.key()) == 0) {
      out.metrics.push_back({item.key(), metric_of(item.value(), where + "/" + item.key())});
    }
  }
  return out;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  Shard shard;
  const auto number = [&](std::size_t from, std::size_t to, int& value) {
    const char* first = text.data() + from;
    const char* last = text.data() + to;
    const auto [end, error] = std::from_chars(first, last, value);
    return error == std::errc() && end == last && first != last;
  };
  if (slash == std::string::npos || !number(0, slash, shard.index) ||
      !number(slash + 1, text.size(), shard.count) || shard.index < 1 ||
      shard.index > shard.count) {
    throw sim::InputError(fmt::format(
        "--shard: expected K/N with 1 <= K <= N (such as $SLURM_ARRAY_TASK_ID/4), got '{}'", text));
  }
  return shard;
}

std::string shard_text(const Shard& shard) {
  return fmt::format("{}/{}", shard.index, shard.count);
}

bool shard_runs(const Shard& shard, std::size_t point) {
  return point % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index - 1);
}

std::vector<std::string> metric_names(const SweepResults& results) {
  std::set<std::string> reserved(results.parameters.begin(), results.parameters.end());
  reserved.insert("point");
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const ResultRow& row : results.rows) {
    for (const Metric& metric : row.metrics) {
      if (reserved.count(metric.name) != 0) {
        throw sim::InputError(fmt::format(
            "metric \"{}\" has the name of a parameter or of the point column: rename the "
            "parameter",
            metric.name));
      }
      if (seen.insert(metric.name).second) {
        names.push_back(metric.name);
      }
    }
  }
  return names;
}

std::string cell_text(const std::string& cell_json) {
  const Json cell = Json::parse(cell_json);
  return cell.is_string() ? cell.get<std::string>() : cell.dump();
}

std::string results_csv(const SweepResults& results) {
  const std::vector<std::string> metrics = metric_names(results);
  std::string out = "point";
  for (const std::string& name : results.parameters) {
    out += ',';
    out += csv_field(name);
  }
  for (const std::string& name : metrics) {
    out += ',';
    out += csv_field(name);
  }
  out += "\n";
  for (const ResultRow& row : results.rows) {
    out += fmt::format("{}", row.point);
    for (const std::string& cell : row.cells) {
      out += ',';
      out += csv_field(cell_text(cell));
    }
    for (const std::string& name : metrics) {
      out += ",";
      for (const Metric& metric : row.metrics) {
        if (metric.name == name) {
          out += metric_text(metric.value);
          break;
        }
      }
    }
    out += "\n";
  }
  return out;
}

std::string rows_hash(const SweepResults& results) { return fnv1a_64_hex(results_csv(results)); }

std::string results_json(const SweepResults& results) {
  Json doc;
  doc["sweep"] = results.sweep;
  doc["sweep_hash"] = results.sweep_hash;
  doc["shard"] = results.shard ? Json(shard_text(*results.shard)) : Json(nullptr);
  doc["parameters"] = results.parameters;
  doc["metrics"] = metric_names(results);
  doc["points"] = results.points;
  doc["rows_hash"] = rows_hash(results);
  Json rows = Json::array();
  for (const ResultRow& row : results.rows) {
    Json object;
    object["point"] = row.point;
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      object[results.parameters[i]] = Json::parse(row.cells[i]);
    }
    for (const Metric& metric : row.metrics) {
      object[metric.name] = metric_json(metric.value);
    }
    rows.push_back(std::move(object));
  }
  doc["rows"] = std::move(rows);
  return doc.dump(2) + "\n";
}

SweepResults parse_results_json(std::string_view text, const std::string& file) {
  // Read first by the scenario reader, which names the place of a syntax error and refuses a
  // key given twice or nesting deeper than kMaxJsonDepth before anything walks the document.
  static_cast<void>(models::scenario::parse_json(text, file));
  const Json doc = Json::parse(text);
  if (!doc.is_object()) {
    throw sim::InputError(file + ": not the results.json of a railsim sweep");
  }
  SweepResults out;
  out.sweep = member(doc, "sweep", &Json::is_string, file).get<std::string>();
  out.sweep_hash = member(doc, "sweep_hash", &Json::is_string, file).get<std::string>();
  const Json& shard = member(doc, "shard", &Json::is_primitive, file);
  if (!shard.is_null()) {
    if (!shard.is_string()) {
      throw sim::InputError(file + ": \"shard\": expected \"K/N\" or null");
    }
    out.shard = parse_shard(shard.get<std::string>());
  }
  for (const Json& name : member(doc, "parameters", &Json::is_array, file)) {
    if (!name.is_string()) {
      throw sim::InputError(file + ": \"parameters\": expected names");
    }
    out.parameters.push_back(name.get<std::string>());
  }
  out.points = member(doc, "points", &Json::is_number_unsigned, file).get<std::size_t>();
  const std::string hash = member(doc, "rows_hash", &Json::is_string, file).get<std::string>();
  const Json& rows = member(doc, "rows", &Json::is_array, file);
  out.rows.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out.rows.push_back(row_of(rows[i], out.parameters, fmt::format("{}: /rows/{}", file, i)));
  }
  if (rows_hash(out) != hash) {
    throw sim::InputError(fmt::format(
        "{}: /rows: the rows do not match their rows_hash {}: the file was changed after the "
        "sweep wrote it; run the sweep (or its shard) again",
        file, hash));
  }
  return out;
}

void write_results(const std::string& folder, const SweepResults& results) {
  publish_output_folder(
      folder, {{"results.csv", results_csv(results)}, {"results.json", results_json(results)}},
      "--out");
}

}  // namespace railsim::tools::sweep
