// File: models/workload/work_limit.cpp
#include "models/workload/work_limit.hpp"

#include <fmt/format.h>

#include <array>

namespace railsim::models {

double step_phase_bytes(double phases, double ranks) {
  return phases * (kStepPhaseBytes + kStepPhaseBytesPerRank * ranks);
}

std::string memory_text(double bytes) {
  constexpr std::array<const char*, 7> kUnits = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  std::size_t unit = 0;
  while (bytes >= 1000.0 && unit + 1 < kUnits.size()) {
    bytes /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.3g} {}", bytes, kUnits[unit]);
}

namespace {

// "8 GiB" for a whole number of GiB (how the limit is usually given), memory_text otherwise.
std::string limit_text(std::int64_t bytes) {
  constexpr std::int64_t kGib = std::int64_t{1} << 30;
  if (bytes % kGib == 0) {
    return fmt::format("{} GiB", bytes / kGib);
  }
  return memory_text(static_cast<double>(bytes));
}

// "800000", "1.4e+10": whole counts up to a million, two significant digits beyond.
std::string count_text(double count) {
  return count < 1e6 ? fmt::format("{:.0f}", count) : fmt::format("{:.2g}", count);
}

// The GPUs of `system`, in doubles: a mistyped node count times the GPUs need not fit an int.
double gpu_count(const SystemSpec& system) {
  return static_cast<double>(system.nodes) * static_cast<double>(system.node.gpus.size());
}

}  // namespace

std::optional<std::string> beyond_limit(const WorkLimit& limit,
                                        std::string_view subject,
                                        double count,
                                        std::string_view things,
                                        double bytes) {
  if (bytes <= static_cast<double>(limit.max_memory_bytes)) {
    return std::nullopt;
  }
  return fmt::format("{} would create {} {} (about {}; the limit, --max-memory, is {})", subject,
                     count_text(count), things, memory_text(bytes),
                     limit_text(limit.max_memory_bytes));
}

std::optional<std::string> system_beyond_limit(const WorkLimit& limit,
                                               std::string_view subject,
                                               const SystemSpec& system) {
  const double gpus = gpu_count(system);
  return beyond_limit(limit, subject, gpus, "GPUs", gpus * kSystemGpuBytes);
}

std::optional<std::string> collective_beyond_limit(const WorkLimit& limit,
                                                   std::string_view subject,
                                                   const SystemSpec& system,
                                                   double ranks) {
  const double gpus = gpu_count(system);
  return beyond_limit(limit, subject, ranks,
                      fmt::format("ranks on a system of {} GPUs", count_text(gpus)),
                      gpus * kSystemGpuBytes + ranks * kCollectiveRankBytes);
}

}  // namespace railsim::models
