// File: tools/cli_support/output_file.hpp
// Writing an output file all or nothing. The output goes to a temporary file beside the target,
// created exclusively under a name of its own (".NAME.PID-N.tmp"), is flushed to the disk, and
// only then is renamed over the target. A reader, a kill or a full disk meets the old file or the
// new one, never part of one; two runs never share a temporary, and a user's own NAME.tmp is
// never touched.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace railsim::tools {

// Throws sim::InputError naming `option` and the path when the file cannot be written; the
// target is then as it was and no temporary is left.
void write_output_file(const std::string& path, const std::string& text, const char* option);

// The same for output written as a stream (a trace of many megabytes): `write` fills it. What
// `write` throws reaches the caller once the temporary is removed.
void write_output_file(const std::string& path,
                       const std::function<void(std::ostream&)>& write,
                       const char* option);

}  // namespace railsim::tools
