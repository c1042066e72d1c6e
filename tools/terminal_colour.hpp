// File: tools/terminal_colour.hpp
// Colour for what a person reads on a terminal (a failed check in red), never in a file, a pipe
// or a log: only on the process's own stdout when it is a terminal and NO_COLOR (no-color.org)
// is unset.
#pragma once

#include <ostream>
#include <string>

namespace railsim::tools {

// Whether text written to `out` may carry colour.
bool colour_on(const std::ostream& out);

// `text` in bold red when `colour`, else as it is.
std::string failure_text(const std::string& text, bool colour);

}  // namespace railsim::tools
