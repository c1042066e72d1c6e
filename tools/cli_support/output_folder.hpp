// File: tools/cli_support/output_folder.hpp
// Publishing files that belong together (a sweep's results.csv and results.json, a report's
// page and its plots) so that a reader, a kill or a full disk meets the old set or the new one,
// never a mix. The new set goes into a new folder beside the target, under a name of its own
// (".NAME.PID-N.tmp"), with the target's other files linked in (a user's sweep file kept beside
// its results stays); once all of it is on the disk, the two folders are exchanged in one
// rename (renameat2 RENAME_EXCHANGE) and the old one is removed. A folder that holds another
// folder is refused: it is not a folder of outputs, and railsim replaces it as a whole.
//
// A kill before the exchange leaves the old folder as it was, after it the new one; either way
// a hidden ".NAME.PID-N.tmp" folder may be left beside it, which the next run does not read.
#pragma once

#include "tools/cli_support/durable_steps.hpp"

#include <string>
#include <utility>
#include <vector>

namespace railsim::tools {

// A file of the set: its name in the folder and its text.
using OutputEntry = std::pair<std::string, std::string>;

// Creates or replaces `folder` with `files` in it (and the old folder's other files). Throws
// sim::InputError naming `option` and the folder when it cannot; the folder is then as it was.
// `on_step` runs after each step that changes the disk.
void publish_output_folder(const std::string& folder,
                           const std::vector<OutputEntry>& files,
                           const char* option,
                           const StepHook& on_step = {});

// Before any work: throws sim::InputError naming `option` and the folder unless
// publish_output_folder could replace it with `names` in it: absent, or a folder of files only
// that is not the current directory; none of `names` in it one of `inputs`
// (output_checks.hpp); a folder can be created beside it. An empty folder name (the option not
// given) passes.
void check_output_folder(const std::string& folder,
                         const std::vector<std::string>& names,
                         const char* option,
                         const std::vector<std::string>& inputs);

}  // namespace railsim::tools
