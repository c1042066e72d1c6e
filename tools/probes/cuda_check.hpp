// File: tools/probes/cuda_check.hpp
// The CUDA runtime and NCCL calls' statuses as ProbeFailures that name the call and say what
// went wrong, and DeviceBuffer, GPU memory owned by one object.
#pragma once

#include <cstddef>
#include <cuda_runtime.h>
#include <nccl.h>
#include <string_view>

namespace railsim::tools::probes {

void check_cuda(cudaError_t status, std::string_view call);
void check_nccl(ncclResult_t status, std::string_view call);

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  std::byte* get() const { return data_; }

  std::size_t size() const { return bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace railsim::tools::probes
