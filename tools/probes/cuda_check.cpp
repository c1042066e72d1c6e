// File: tools/probes/cuda_check.cpp
#include "tools/probes/cuda_check.hpp"

#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>

namespace railsim::tools::probes {

void check_cuda(cudaError_t status, std::string_view call) {
  if (status != cudaSuccess) {
    throw ProbeFailure(fmt::format("{} failed: {} ({})", call, cudaGetErrorString(status),
                                   cudaGetErrorName(status)));
  }
}

void check_nccl(ncclResult_t status, std::string_view call) {
  if (status != ncclSuccess) {
    // NCCL keeps a more precise message for the last failure than its status string.
    const char* last = ncclGetLastError(nullptr);
    throw ProbeFailure(fmt::format(
        "{} failed: {}{}{} (NCCL_DEBUG=WARN says more)", call, ncclGetErrorString(status),
        last != nullptr && *last != '\0' ? ": " : "", last != nullptr ? last : ""));
  }
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  void* data = nullptr;
  check_cuda(cudaMalloc(&data, bytes), fmt::format("cudaMalloc of {} bytes", bytes));
  data_ = static_cast<std::byte*>(data);
}

DeviceBuffer::~DeviceBuffer() { cudaFree(data_); }

}  // namespace railsim::tools::probes
