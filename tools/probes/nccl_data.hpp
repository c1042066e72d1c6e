// File: tools/probes/nccl_data.hpp
// The data of railsim-probe-nccl's collectives: the element types (-d), their host encodings
// (IEEE half and bfloat16 converted here, since no CUDA code runs on the host side), the values
// each rank contributes, and the check of a result against the values a correct collective
// must produce (the #wrong column).
//
// Rank r's input element i is v(r, i) = (r + i) mod 3: small integers, so every partial sum of
// up to 128 ranks is exact even in bfloat16 (8 significant bits), and element-dependent, so a
// chunk delivered to the wrong place is caught, not only a wrong sum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace railsim::tools::probes {

enum class NcclOp { kAllReduce, kAllGather, kReduceScatter };

enum class DataType { kFloat, kHalf, kBfloat16, kDouble };

// "all_reduce", ...: as nccl-tests' programs are named, without "_perf".
std::string_view op_name(NcclOp op);

// "float", "half", "bfloat16", "double": as nccl-tests prints the type column.
std::string_view type_name(DataType type);

std::int64_t element_bytes(DataType type);

// IEEE 754 binary16 and bfloat16 bits of `value`, rounded to nearest, ties to even; and back.
std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(std::uint16_t bits);

// Element `index` of `bytes` (host order), and the other way.
double load_element(DataType type, std::span<const std::byte> bytes, std::int64_t index);
void store_element(DataType type, std::span<std::byte> bytes, std::int64_t index, double value);

// v(rank, i), and the sum over ranks 0..nranks-1 of v(k, i), in closed form.
double input_value(int rank, std::int64_t index);
double sum_over_ranks(int nranks, std::int64_t index);

// The shape of one collective call: `count` elements per rank as nccl-tests' count column
// gives it (AllReduce: the whole vector; AllGather: what each rank sends; ReduceScatter: what
// each rank receives).
struct CollectiveShape {
  NcclOp op = NcclOp::kAllReduce;
  DataType type = DataType::kFloat;
  int rank = 0;
  int nranks = 1;
  std::int64_t count = 0;

  std::int64_t send_elements() const;
  std::int64_t receive_elements() const;
  // Where, in elements, the send buffer starts inside the receive buffer for an in-place call
  // (NCCL's convention): AllGather rank * count; 0 for the others.
  std::int64_t in_place_send_offset() const;
  // Where this rank's result starts inside the buffer of an in-place ReduceScatter, which is
  // the send buffer: rank * count; 0 for the others.
  std::int64_t in_place_result_offset() const;
};

// Writes this rank's input into `send` (send_elements() elements).
void fill_input(const CollectiveShape& shape, std::span<std::byte> send);

// How many of the receive_elements() elements in `result` differ from what a correct
// collective produces by more than the rounding the type allows.
std::int64_t count_wrong(const CollectiveShape& shape, std::span<const std::byte> result);

}  // namespace railsim::tools::probes
