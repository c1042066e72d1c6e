// File: tools/probes/size_series.cpp
#include "tools/probes/size_series.hpp"

#include "models/scenario/quantity.hpp"
#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <limits>
#include <string>

namespace railsim::tools::probes {

namespace po = boost::program_options;

std::vector<std::int64_t> SizeSeries::sizes() const {
  std::vector<std::int64_t> out;
  for (std::int64_t size = min_bytes; size <= max_bytes; size *= factor) {
    out.push_back(size);
    // The next step would overflow int64 before it could pass max_bytes.
    if (size > std::numeric_limits<std::int64_t>::max() / factor) {
      break;
    }
  }
  return out;
}

void add_size_options(po::options_description& options) {
  options.add_options()("minbytes,b", po::value<std::string>(), "smallest size (8, 64K, 1M, ...)")(
      "maxbytes,e", po::value<std::string>(), "largest size")(
      "stepfactor,f", po::value<std::int64_t>(), "multiply the size by this between steps (>= 2)");
}

std::int64_t parse_size_option(std::string_view option,
                               std::string_view text,
                               std::int64_t limit_bytes) {
  std::int64_t bytes = 0;
  try {
    bytes = models::scenario::parse_size(text).count;
  } catch (const sim::InputError& error) {
    throw sim::InputError(fmt::format("{}: {}", option, error.what()));
  }
  if (bytes < 1 || bytes > limit_bytes) {
    throw sim::InputError(
        fmt::format("{}: expected a size from 1 to {} bytes, got {}", option, limit_bytes, text));
  }
  return bytes;
}

SizeSeries sizes_from_options(const po::variables_map& vm,
                              const SizeSeries& fallback,
                              std::int64_t limit_bytes) {
  SizeSeries series = fallback;
  const bool has_min = vm.count("minbytes") > 0;
  const bool has_max = vm.count("maxbytes") > 0;
  if (has_min) {
    series.min_bytes = parse_size_option("-b", vm["minbytes"].as<std::string>(), limit_bytes);
  }
  if (has_max) {
    series.max_bytes = parse_size_option("-e", vm["maxbytes"].as<std::string>(), limit_bytes);
  }
  if (has_min && !has_max) {
    series.max_bytes = series.min_bytes;
  }
  if (has_max && !has_min) {
    series.min_bytes = series.max_bytes;
  }
  if (vm.count("stepfactor")) {
    series.factor = vm["stepfactor"].as<std::int64_t>();
  }
  if (series.factor < 2) {
    throw sim::InputError(
        fmt::format("-f: expected a factor of at least 2, got {}", series.factor));
  }
  if (series.min_bytes > series.max_bytes) {
    throw sim::InputError(
        fmt::format("-b {} is larger than -e {}", series.min_bytes, series.max_bytes));
  }
  return series;
}

}  // namespace railsim::tools::probes
