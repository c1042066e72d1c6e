// File: tools/strict_option.cpp
#include "tools/strict_option.hpp"

namespace railsim::tools {

void add_strict_option(boost::program_options::options_description& options, bool& strict) {
  options.add_options()(
      "strict", boost::program_options::bool_switch(&strict),
      "an implausible reading (a busbw above any link, a latency above a day, a CPU id above "
      "2^20) is an error; without it the reading is left out with a warning");
}

}  // namespace railsim::tools
