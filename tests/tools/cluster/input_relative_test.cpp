// File: tests/tools/cluster/input_relative_test.cpp
// Evidence in a cluster's reports is named from the cluster's folder, however it was typed.
#include "tools/cluster/input_relative.hpp"

#include "tests/scratch_folder.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace railsim::tools {
namespace {

using InputRelative = test::ScratchFolder;

TEST_F(InputRelative, AFolderIsItsOwnBaseAManifestItsFolder) {
  const std::string folder = dir_.string();
  std::ofstream(dir_ / "manifest.json") << "{}";
  EXPECT_EQ(input_folder(folder), folder);
  EXPECT_EQ(input_folder(folder + "//"), folder);
  EXPECT_EQ(input_folder(folder + "/manifest.json"), folder);
  EXPECT_EQ(input_folder("manifest.json"), "");
}

TEST(InputRelativePath, DropsTheFolderAndKeepsTheLine) {
  EXPECT_EQ(relative_to("/data/rdma-4n/perftest/a.txt:13", "/data/rdma-4n"), "perftest/a.txt:13");
  EXPECT_EQ(relative_to("./rdma-4n/topo/n0.txt", "./rdma-4n"), "topo/n0.txt");
  // Not below the folder (a manifest naming logs elsewhere), or no folder: as it was.
  EXPECT_EQ(relative_to("/logs/a.txt:2", "/data/rdma-4n"), "/logs/a.txt:2");
  EXPECT_EQ(relative_to("/data/rdma-4nx/a.txt", "/data/rdma-4n"), "/data/rdma-4nx/a.txt");
  EXPECT_EQ(relative_to("a.txt:1", ""), "a.txt:1");
}

}  // namespace
}  // namespace railsim::tools
