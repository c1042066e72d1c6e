// File: tools/strict_option.hpp
// `--strict` on the commands that read tool outputs (parse, calibrate, check, diagnose): an
// implausible reading (calibrate/parse/plausibility.hpp) is an error instead of a warning.
#pragma once

#include <boost/program_options.hpp>

namespace railsim::tools {

// Adds --strict to `options`; parsing sets `strict` when it is given.
void add_strict_option(boost::program_options::options_description& options, bool& strict);

}  // namespace railsim::tools
