// File: tests/fuzz/check_manifest_fuzzer.cpp
// A cluster manifest (docs/acceptance.md) as `railsim check` and `diagnose` read it, with the
// logs it names. The manifest is written three folders below a scratch folder whose data/ is
// tests/data, so the shipped manifests' "../../../data/..." paths (the seeds) find their logs.
#include "tests/fuzz/fuzz_support.hpp"

#include "calibrate/parse/cluster_evidence.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string manifest_path() {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / ("railsim-fuzz-check-" + std::to_string(getpid()));
  const fs::path folder = root / "a" / "b" / "c";
  fs::create_directories(folder);
  std::error_code ignored;
  fs::create_directory_symlink(fs::path(RAILSIM_SOURCE_DIR) / "tests" / "data", root / "data",
                               ignored);
  return (folder / "manifest.json").string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string kPath = manifest_path();
  {
    std::ofstream out(kPath, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  return railsim::fuzz::expect_clean(
      [&] { static_cast<void>(railsim::calibrate::parse::read_cluster_evidence(kPath)); });
}
