// File: tools/probes/nccl_data.cpp
#include "tools/probes/nccl_data.hpp"

#include "sim/assert.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace railsim::tools::probes {
namespace {

template <typename T>
T load(std::span<const std::byte> bytes, std::int64_t index) {
  T value{};
  std::memcpy(&value, bytes.data() + index * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return value;
}

template <typename T>
void store(std::span<std::byte> bytes, std::int64_t index, T value) {
  std::memcpy(bytes.data() + index * static_cast<std::int64_t>(sizeof(T)), &value, sizeof(T));
}

// Relative rounding of one operation in `type`: half the distance between 1 and the next value.
double unit_roundoff(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return std::ldexp(1.0, -24);
    case DataType::kHalf:
      return std::ldexp(1.0, -11);
    case DataType::kBfloat16:
      return std::ldexp(1.0, -8);
    case DataType::kDouble:
      return std::ldexp(1.0, -53);
  }
  RAILSIM_UNREACHABLE("a DataType without a precision");
}

double expected_value(const CollectiveShape& shape, std::int64_t index) {
  switch (shape.op) {
    case NcclOp::kAllReduce:
      return sum_over_ranks(shape.nranks, index);
    case NcclOp::kAllGather:
      // Chunk k of the result is rank k's input.
      return input_value(static_cast<int>(index / shape.count), index % shape.count);
    case NcclOp::kReduceScatter:
      return sum_over_ranks(shape.nranks, shape.rank * shape.count + index);
  }
  RAILSIM_UNREACHABLE("an NcclOp without a result");
}

}  // namespace

std::string_view op_name(NcclOp op) {
  switch (op) {
    case NcclOp::kAllReduce:
      return "all_reduce";
    case NcclOp::kAllGather:
      return "all_gather";
    case NcclOp::kReduceScatter:
      return "reduce_scatter";
  }
  RAILSIM_UNREACHABLE("an NcclOp without a name");
}

std::string_view type_name(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return "float";
    case DataType::kHalf:
      return "half";
    case DataType::kBfloat16:
      return "bfloat16";
    case DataType::kDouble:
      return "double";
  }
  RAILSIM_UNREACHABLE("a DataType without a name");
}

std::int64_t element_bytes(DataType type) {
  switch (type) {
    case DataType::kFloat:
      return 4;
    case DataType::kHalf:
    case DataType::kBfloat16:
      return 2;
    case DataType::kDouble:
      return 8;
  }
  RAILSIM_UNREACHABLE("a DataType without a size");
}

std::uint16_t float_to_half(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000U);
  const std::uint32_t exponent = (bits >> 23) & 0xffU;
  std::uint32_t mantissa = bits & 0x7fffffU;
  if (exponent == 0xff) {  // infinity stays infinity; NaN stays a (quiet) NaN
    return static_cast<std::uint16_t>(sign | 0x7c00U | (mantissa != 0 ? 0x200U : 0U));
  }
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 0x1f) {
    return static_cast<std::uint16_t>(sign | 0x7c00U);
  }
  if (e <= 0) {
    // A subnormal half (or zero): shift the mantissa with its implicit bit into place.
    if (e < -10) {
      return sign;
    }
    mantissa |= 0x800000U;
    const auto shift = static_cast<std::uint32_t>(14 - e);
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1U << shift) - 1U);
    const std::uint32_t halfway = 1U << (shift - 1U);
    if (rest > halfway || (rest == halfway && (half & 1U) != 0)) {
      ++half;
    }
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffU;
  // A carry out of the mantissa moves into the exponent, which is the right rounding too.
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0)) {
    ++half;
  }
  return static_cast<std::uint16_t>(sign | half);
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = (static_cast<std::uint32_t>(bits) & 0x8000U) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fU;
  const std::uint32_t mantissa = bits & 0x3ffU;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) {
    return std::bit_cast<float>(sign | 0x7f800000U | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

std::uint16_t float_to_bfloat16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffU) > 0x7f800000U) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x40U);  // NaN: keep it a quiet NaN
  }
  const std::uint32_t rounding = 0x7fffU + ((bits >> 16) & 1U);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

float bfloat16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

double load_element(DataType type, std::span<const std::byte> bytes, std::int64_t index) {
  switch (type) {
    case DataType::kFloat:
      return load<float>(bytes, index);
    case DataType::kHalf:
      return half_to_float(load<std::uint16_t>(bytes, index));
    case DataType::kBfloat16:
      return bfloat16_to_float(load<std::uint16_t>(bytes, index));
    case DataType::kDouble:
      return load<double>(bytes, index);
  }
  RAILSIM_UNREACHABLE("a DataType without a layout");
}

void store_element(DataType type, std::span<std::byte> bytes, std::int64_t index, double value) {
  switch (type) {
    case DataType::kFloat:
      store(bytes, index, static_cast<float>(value));
      return;
    case DataType::kHalf:
      store(bytes, index, float_to_half(static_cast<float>(value)));
      return;
    case DataType::kBfloat16:
      store(bytes, index, float_to_bfloat16(static_cast<float>(value)));
      return;
    case DataType::kDouble:
      store(bytes, index, value);
      return;
  }
  RAILSIM_UNREACHABLE("a DataType without a layout");
}

double input_value(int rank, std::int64_t index) { return static_cast<double>((rank + index) % 3); }

double sum_over_ranks(int nranks, std::int64_t index) {
  // Each full cycle of three ranks contributes 0 + 1 + 2; the remaining ranks start over.
  const int cycles = nranks / 3;
  double sum = 3.0 * cycles;
  for (int k = 3 * cycles; k < nranks; ++k) {
    sum += input_value(k, index);
  }
  return sum;
}

std::int64_t CollectiveShape::send_elements() const {
  return op == NcclOp::kReduceScatter ? count * nranks : count;
}

std::int64_t CollectiveShape::receive_elements() const {
  return op == NcclOp::kAllGather ? count * nranks : count;
}

std::int64_t CollectiveShape::in_place_send_offset() const {
  return op == NcclOp::kAllGather ? rank * count : 0;
}

std::int64_t CollectiveShape::in_place_result_offset() const {
  return op == NcclOp::kReduceScatter ? rank * count : 0;
}

void fill_input(const CollectiveShape& shape, std::span<std::byte> send) {
  RAILSIM_ASSERT(
      static_cast<std::int64_t>(send.size()) >= shape.send_elements() * element_bytes(shape.type),
      "a send buffer smaller than the collective's input");
  for (std::int64_t i = 0; i < shape.send_elements(); ++i) {
    store_element(shape.type, send, i, input_value(shape.rank, i));
  }
}

std::int64_t count_wrong(const CollectiveShape& shape, std::span<const std::byte> result) {
  RAILSIM_ASSERT(static_cast<std::int64_t>(result.size()) >=
                     shape.receive_elements() * element_bytes(shape.type),
                 "a result smaller than the collective's output");
  // Each of the nranks - 1 additions may round once; the values here are exact far beyond
  // that, so the margin only matters for very many ranks in the 16-bit types.
  const double tolerance = unit_roundoff(shape.type) * shape.nranks;
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < shape.receive_elements(); ++i) {
    const double expected = expected_value(shape, i);
    const double got = load_element(shape.type, result, i);
    if (!(std::abs(got - expected) <= tolerance * std::max(1.0, std::abs(expected)))) {
      ++wrong;
    }
  }
  return wrong;
}

}  // namespace railsim::tools::probes
