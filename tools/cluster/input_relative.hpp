// File: tools/cluster/input_relative.hpp
// Paths in a cluster's reports relative to the folder of its manifest (or the folder given):
// "perftest/node0__node1__write_bw__mlx5_0.txt:13" rather than the whole path of the run, so a
// report reads the same wherever the logs lie.
#pragma once

#include <string>

namespace railsim::tools {

// The folder that a cluster's logs are named from: `source` itself when it is a folder, else the
// folder of the manifest it names.
std::string input_folder(const std::string& source);

// `text` (a path, perhaps followed by ":line") without the leading `folder` and its slash; as it
// is when it does not start with them.
std::string relative_to(const std::string& text, const std::string& folder);

}  // namespace railsim::tools
