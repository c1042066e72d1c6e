// File: tools/probes/unique_id_file.cpp
#include "tools/probes/unique_id_file.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/output_file.hpp"
#include "tools/probes/hex_digit.hpp"
#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace railsim::tools::probes {
namespace {

constexpr std::string_view kMagic = "railsim-nccl-id/1";

}  // namespace

std::string encode_unique_id(const UniqueIdBytes& id, int nranks) {
  std::string text = fmt::format("{} nranks={} ", kMagic, nranks);
  for (const std::byte b : id) {
    text += fmt::format("{:02x}", static_cast<unsigned>(b));
  }
  return text + "\n";
}

UniqueIdBytes decode_unique_id(const std::string& text, int nranks, const std::string& path) {
  const auto fail = [&](std::string_view what) -> void {
    throw ProbeFailure(fmt::format("{}: {}", path, what));
  };
  std::istringstream words(text);
  std::string magic;
  std::string ranks;
  std::string hex;
  words >> magic >> ranks >> hex;
  if (magic != kMagic) {
    fail(fmt::format("expected a unique-id file written by railsim-probe-nccl ('{} ...')", kMagic));
  }
  const std::string expected_ranks = fmt::format("nranks={}", nranks);
  if (ranks != expected_ranks) {
    fail(
        fmt::format("written for a run with {}, this one has --nranks {} (a file left by "
                    "another run? remove it, or use a new path per run)",
                    ranks, nranks));
  }
  UniqueIdBytes id{};
  if (hex.size() != 2 * id.size()) {
    fail(fmt::format("expected {} hex digits of id, got {}", 2 * id.size(), hex.size()));
  }
  for (std::size_t i = 0; i < id.size(); ++i) {
    const int high = hex_digit(hex[2 * i]);
    const int low = hex_digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      fail("expected the id as lower-case hex digits");
    }
    id[i] = static_cast<std::byte>(high * 16 + low);
  }
  return id;
}

void write_unique_id_file(const std::string& path, const UniqueIdBytes& id, int nranks) {
  try {
    write_output_file(path, encode_unique_id(id, nranks), "--id-file");
  } catch (const sim::InputError& error) {
    throw ProbeFailure(error.what());
  }
}

UniqueIdBytes wait_for_unique_id_file(const std::string& path,
                                      int nranks,
                                      std::chrono::milliseconds timeout,
                                      std::chrono::milliseconds interval) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::ifstream in(path);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      return decode_unique_id(text.str(), nranks, path);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      throw ProbeFailure(fmt::format(
          "{} did not appear within {} s (has rank 0 started, and do all ranks see this path?)",
          path, static_cast<double>(timeout.count()) / 1000.0));
    }
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace railsim::tools::probes
