// File: tools/probes/nccl_benchmark.cpp
#include "tools/probes/nccl_benchmark.hpp"

#include "tools/probes/probe_run.hpp"
#include "tools/probes/unique_id_file.hpp"

#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstring>
#include <exception>
#include <thread>
#include <unistd.h>

namespace railsim::tools::probes {
namespace {

static_assert(sizeof(ncclUniqueId) == kUniqueIdBytes, "NCCL_UNIQUE_ID_BYTES changed");

ncclDataType_t nccl_type(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return ncclFloat32;
    case DataType::kHalf:
      return ncclFloat16;
    case DataType::kBfloat16:
      return ncclBfloat16;
    case DataType::kDouble:
      return ncclFloat64;
  }
  return ncclFloat32;
}

int pick_device(const NcclOptions& options) {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount (is there a GPU and its driver?)");
  if (count == 0) {
    throw ProbeFailure("no CUDA device on this host");
  }
  const int device = options.device.value_or(options.rank % count);
  if (device >= count) {
    throw ProbeFailure(
        fmt::format("--device: there is no GPU {} (this host has {})", device, count));
  }
  return device;
}

ncclUniqueId exchange_unique_id(const NcclOptions& options) {
  ncclUniqueId id{};
  UniqueIdBytes bytes{};
  if (options.rank == 0) {
    check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    std::memcpy(bytes.data(), id.internal, bytes.size());
    write_unique_id_file(options.id_file, bytes, options.nranks);
    return id;
  }
  bytes = wait_for_unique_id_file(options.id_file, options.nranks, options.id_timeout,
                                  std::chrono::milliseconds(100));
  std::memcpy(id.internal, bytes.data(), bytes.size());
  return id;
}

RankInfo describe_self(int rank, int device) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) {
    std::strcpy(host.data(), "unknown");
  }
  RankInfo info;
  info.rank = rank;
  info.pid = getpid();
  info.host = host.data();
  info.device = device;
  info.bus_id =
      fmt::format("{:04x}:{:02x}:{:02x}", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  info.model = prop.name;
  return info;
}

}  // namespace

NcclSession::NcclSession(const NcclOptions& options) : options_(options) {
  device_ = pick_device(options);
  check_cuda(cudaSetDevice(device_), "cudaSetDevice");
  const ncclUniqueId id = exchange_unique_id(options);
  check_nccl(ncclCommInitRank(&comm_, options.nranks, id, options.rank), "ncclCommInitRank");
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
}

NcclSession::~NcclSession() {
  if (comm_ != nullptr) {
    // After a failure the other ranks may never answer; destroying would wait for them.
    if (std::uncaught_exceptions() > 0) {
      ncclCommAbort(comm_);
    } else {
      ncclCommDestroy(comm_);
    }
  }
  if (start_ != nullptr) {
    cudaEventDestroy(start_);
  }
  if (stop_ != nullptr) {
    cudaEventDestroy(stop_);
  }
  if (stream_ != nullptr) {
    cudaStreamDestroy(stream_);
  }
}

void NcclSession::wait() const {
  for (;;) {
    const cudaError_t status = cudaStreamQuery(stream_);
    if (status == cudaSuccess) {
      return;
    }
    if (status != cudaErrorNotReady) {
      check_cuda(status, "a collective on the stream");
    }
    ncclResult_t async = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
    check_nccl(async, "a collective (asynchronous error)");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void NcclSession::launch(const void* send, void* receive, std::int64_t count) const {
  const auto n = static_cast<std::size_t>(count);
  const ncclDataType_t type = nccl_type(options_.type);
  switch (options_.op) {
    case NcclOp::kAllReduce:
      check_nccl(ncclAllReduce(send, receive, n, type, ncclSum, comm_, stream_), "ncclAllReduce");
      return;
    case NcclOp::kAllGather:
      check_nccl(ncclAllGather(send, receive, n, type, comm_, stream_), "ncclAllGather");
      return;
    case NcclOp::kReduceScatter:
      check_nccl(ncclReduceScatter(send, receive, n, type, ncclSum, comm_, stream_),
                 "ncclReduceScatter");
      return;
  }
}

double NcclSession::slowest_rank(double value) const {
  DeviceBuffer scalar(sizeof(double));
  check_cuda(cudaMemcpy(scalar.get(), &value, sizeof(value), cudaMemcpyHostToDevice), "cudaMemcpy");
  check_nccl(ncclAllReduce(scalar.get(), scalar.get(), 1, ncclFloat64, ncclMax, comm_, stream_),
             "ncclAllReduce (the slowest rank's time)");
  wait();
  check_cuda(cudaMemcpy(&value, scalar.get(), sizeof(value), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return value;
}

std::int64_t NcclSession::sum_over_ranks(std::int64_t value) const {
  DeviceBuffer scalar(sizeof(std::int64_t));
  check_cuda(cudaMemcpy(scalar.get(), &value, sizeof(value), cudaMemcpyHostToDevice), "cudaMemcpy");
  check_nccl(ncclAllReduce(scalar.get(), scalar.get(), 1, ncclInt64, ncclSum, comm_, stream_),
             "ncclAllReduce (the #wrong total)");
  wait();
  check_cuda(cudaMemcpy(&value, scalar.get(), sizeof(value), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return value;
}

std::vector<RankInfo> NcclSession::gather_rank_infos() const {
  const auto mine = encode_rank_info(describe_self(options_.rank, device_));
  DeviceBuffer send(kRankInfoBytes);
  DeviceBuffer all(kRankInfoBytes * static_cast<std::size_t>(options_.nranks));
  check_cuda(cudaMemcpy(send.get(), mine.data(), mine.size(), cudaMemcpyHostToDevice),
             "cudaMemcpy");
  check_nccl(ncclAllGather(send.get(), all.get(), kRankInfoBytes, ncclUint8, comm_, stream_),
             "ncclAllGather (the ranks' descriptions)");
  wait();
  std::vector<std::byte> records(all.size());
  check_cuda(cudaMemcpy(records.data(), all.get(), all.size(), cudaMemcpyDeviceToHost),
             "cudaMemcpy");
  std::vector<RankInfo> infos;
  infos.reserve(static_cast<std::size_t>(options_.nranks));
  for (std::size_t at = 0; at < records.size(); at += kRankInfoBytes) {
    infos.push_back(decode_rank_info(std::span(records).subspan(at, kRankInfoBytes)));
  }
  return infos;
}

NcclPlacementResult NcclSession::measure_placement(const CollectiveShape& shape,
                                                   std::byte* send,
                                                   std::byte* receive) const {
  const auto element = static_cast<std::size_t>(element_bytes(shape.type));
  NcclPlacementResult result;
  if (options_.check) {
    std::vector<std::byte> host(static_cast<std::size_t>(shape.send_elements()) * element);
    fill_input(shape, host);
    check_cuda(cudaMemcpy(send, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    launch(send, receive, shape.count);
    wait();
    host.resize(static_cast<std::size_t>(shape.receive_elements()) * element);
    check_cuda(cudaMemcpy(host.data(), receive, host.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    result.wrong = sum_over_ranks(count_wrong(shape, host));
  }
  for (int i = 0; i < options_.warmup; ++i) {
    launch(send, receive, shape.count);
  }
  wait();
  check_cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
  for (int i = 0; i < options_.iterations; ++i) {
    launch(send, receive, shape.count);
  }
  check_cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  wait();
  float elapsed_ms = 0.0F;
  check_cuda(cudaEventElapsedTime(&elapsed_ms, start_, stop_), "cudaEventElapsedTime");
  const double mean_us = static_cast<double>(elapsed_ms) * 1e3 / options_.iterations;
  result.time_us = slowest_rank(mean_us);
  return result;
}

NcclRow NcclSession::measure(const RowShape& row_shape,
                             const DeviceBuffer& send,
                             const DeviceBuffer& receive) {
  const CollectiveShape shape{options_.op, options_.type, options_.rank, options_.nranks,
                              row_shape.count};
  const auto element = element_bytes(options_.type);
  NcclRow row;
  row.size_bytes = row_shape.size_bytes;
  row.count = row_shape.count;
  row.out_of_place = measure_placement(shape, send.get(), receive.get());
  std::byte* buffer = receive.get();
  // NCCL's in-place calls: AllGather sends from its own chunk of the output, ReduceScatter
  // leaves its result in its own chunk of the input.
  std::byte* in_send = buffer + shape.in_place_send_offset() * element;
  std::byte* in_receive = buffer + shape.in_place_result_offset() * element;
  row.in_place = measure_placement(shape, in_send, in_receive);
  return row;
}

}  // namespace railsim::tools::probes
