// File: tools/probes/nccl_benchmark.hpp
// NcclSession: this process's GPU, its NCCL communicator and a stream, set up from the
// unique-id file; and the measurement of one table row: each placement (out-of-place, then
// in-place) checked once against the known result (nccl_data.hpp) when asked, then -w untimed
// calls and -n calls timed by two CUDA events around them. A row's time is the slowest rank's
// mean, since a collective is done when its last rank is; #wrong sums every rank's count.
#pragma once

#include "tools/probes/cuda_check.hpp"
#include "tools/probes/nccl_options.hpp"
#include "tools/probes/nccl_report.hpp"
#include "tools/probes/rank_info.hpp"

#include <cstdint>
#include <cuda_runtime.h>
#include <nccl.h>
#include <vector>

namespace railsim::tools::probes {

class NcclSession {
 public:
  // Picks the GPU, exchanges the unique id through the file and joins the communicator.
  explicit NcclSession(const NcclOptions& options);
  NcclSession(const NcclSession&) = delete;
  NcclSession& operator=(const NcclSession&) = delete;
  ~NcclSession();

  // Every rank's RankInfo, in rank order (a collective call: all ranks must make it).
  std::vector<RankInfo> gather_rank_infos() const;

  // One row, for buffers of at least shape.size_bytes each (a collective call).
  NcclRow measure(const RowShape& shape, const DeviceBuffer& send, const DeviceBuffer& receive);

  int device() const { return device_; }

 private:
  void launch(const void* send, void* receive, std::int64_t count) const;
  // Waits for the stream, failing (rather than hanging) when NCCL reports an error.
  void wait() const;
  double slowest_rank(double value) const;
  std::int64_t sum_over_ranks(std::int64_t value) const;
  // `send` gets this rank's input and `receive` holds the result, wherever they lie (in-place:
  // inside one buffer, as NCCL's conventions place them).
  NcclPlacementResult measure_placement(const CollectiveShape& shape,
                                        std::byte* send,
                                        std::byte* receive) const;

  const NcclOptions& options_;
  int device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace railsim::tools::probes
