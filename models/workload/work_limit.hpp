// File: models/workload/work_limit.hpp
// WorkLimit: the memory one request may take, and the estimates the readers check against it
// before they build anything, so that a step of 10^10 gradient buckets or a collective over a
// million ranks is refused in milliseconds with its size in the message ("this step would create
// 1.4e+10 buckets (about 860 TB)") instead of exhausting the machine. `--max-memory` on the
// commands that build a system sets the ceiling.
#pragma once

#include "models/system/system.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace railsim::models {

// 8 GiB: the steps railsim ships take under 1 GiB, and a laptop has twice this.
inline constexpr std::int64_t kDefaultMaxMemoryBytes = std::int64_t{8} << 30;

struct WorkLimit {
  std::int64_t max_memory_bytes = kDefaultMaxMemoryBytes;  // bytes, > 0
};

// What a step costs per phase, measured as peak resident memory of `railsim step` (Release,
// g++ 12) on data-parallel steps of 1,000 and 5,000 buckets (two phases each) on 16 DGX H100
// nodes with 1 and with 8 GPUs each: 10.5 KB per bucket at 16 ranks and 63.5 KB at 128, so a
// bucket costs about 2.9 KB plus 475 B per rank of its AllReduce, and a phase half of that. The
// per-rank part is the phase's runs and the collective's per-rank state, kept to the end of the
// step for its report.
inline constexpr double kStepPhaseBytes = 1.5e3;
inline constexpr double kStepPhaseBytesPerRank = 240.0;

// The bytes `phases` phases over `ranks` ranks each are estimated to take.
double step_phase_bytes(double phases, double ranks);

// What a system and one collective over it take, measured as peak resident memory (Release, g++
// 12) on DGX H100 systems of 1,000 to 4,096 nodes: `railsim topo` (the system alone) 6.1 KB per
// GPU, and `railsim collective` (ring AllReduce of 1 GiB, pipelined, the leanest way a collective
// runs) 23 KB more per rank. A chunk-accurate run takes up to seven times that per rank, so the
// estimate is a floor: what it refuses could not have run.
inline constexpr double kSystemGpuBytes = 6.1e3;
inline constexpr double kCollectiveRankBytes = 23e3;

// The refusal when `bytes` (the estimate for `count` `things` that `subject` would create) is
// beyond the limit, such as "this step would create 1.4e+10 buckets (about 860 TB; the limit,
// --max-memory, is 8 GiB)"; nullopt when it fits.
std::optional<std::string> beyond_limit(const WorkLimit& limit,
                                        std::string_view subject,
                                        double count,
                                        std::string_view things,
                                        double bytes);

// beyond_limit for building `system`: "this system would create 1.6e+06 GPUs (about 9.76 GB;
// ...)".
std::optional<std::string> system_beyond_limit(const WorkLimit& limit,
                                               std::string_view subject,
                                               const SystemSpec& system);

// beyond_limit for a collective over `ranks` ranks of `system`, the system included: "this
// collective would create 800000 ranks on a system of 800000 GPUs (about 23.3 GB; ...)".
std::optional<std::string> collective_beyond_limit(const WorkLimit& limit,
                                                   std::string_view subject,
                                                   const SystemSpec& system,
                                                   double ranks);

// "860 TB", "1.2 GB", "512 B": bytes in powers of 1000, three significant digits.
std::string memory_text(double bytes);

}  // namespace railsim::models
