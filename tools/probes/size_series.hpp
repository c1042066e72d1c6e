// File: tools/probes/size_series.hpp
// SizeSeries: the message sizes a probe measures, as nccl-tests and perftest name them: -b MIN
// -e MAX -f FACTOR (sizes MIN, MIN*F, ... up to MAX), sizes with nccl-tests' suffixes ("8",
// "64K", "1G", powers of 1024; models/scenario/quantity.hpp).
#pragma once

#include <boost/program_options.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace railsim::tools::probes {

struct SizeSeries {
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;
  std::int64_t factor = 2;  // >= 2, so a series always ends

  // MIN, MIN*F, ... while <= MAX; MAX itself only when it is on that progression.
  std::vector<std::int64_t> sizes() const;
};

// Adds -b/--minbytes, -e/--maxbytes and -f/--stepfactor (values as text, for parse_size).
void add_size_options(boost::program_options::options_description& options);

// The series the options give, or `fallback` where -b and -e are both absent; -b or -e alone
// sets both ends (one size). Fails (sim::InputError naming the option) on a size that does not
// parse, one outside [1, limit_bytes], MIN > MAX or a factor below 2.
SizeSeries sizes_from_options(const boost::program_options::variables_map& vm,
                              const SizeSeries& fallback,
                              std::int64_t limit_bytes);

// A size for `option` ("-b"), parsed as nccl-tests does and checked against [1, limit_bytes].
std::int64_t parse_size_option(std::string_view option,
                               std::string_view text,
                               std::int64_t limit_bytes);

}  // namespace railsim::tools::probes
