// File: tests/tools/probes/nccl_data_test.cpp
// The host side of railsim-probe-nccl's check: the 16-bit encodings against known bit
// patterns, and each collective's expected result computed here the slow way (every rank's
// input summed or gathered) so that count_wrong is 0 for it and counts each damaged element.
#include "tools/probes/nccl_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace railsim::tools::probes {
namespace {

TEST(NcclData, HalfEncodingsOfKnownValues) {
  EXPECT_EQ(float_to_half(1.0F), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0F), 0xc000);
  EXPECT_EQ(float_to_half(65504.0F), 0x7bff);                          // the largest half
  EXPECT_EQ(float_to_half(65520.0F), 0x7c00);                          // rounds up to infinity
  EXPECT_EQ(float_to_half(std::ldexp(1.0F, -24)), 0x0001);             // the smallest subnormal
  EXPECT_EQ(float_to_half(1.0F + std::ldexp(1.0F, -11)), 0x3c00);      // a tie goes to even
  EXPECT_EQ(float_to_half(1.0F + 3 * std::ldexp(1.0F, -11)), 0x3c02);  // a tie goes to even
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125F);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0F, -24));
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(NcclData, BfloatEncodingsOfKnownValues) {
  EXPECT_EQ(float_to_bfloat16(1.0F), 0x3f80);
  EXPECT_EQ(float_to_bfloat16(-3.0F), 0xc040);
  EXPECT_EQ(float_to_bfloat16(1.0F + std::ldexp(1.0F, -8)), 0x3f80);  // tie to even
  EXPECT_EQ(float_to_bfloat16(1.0F + 3 * std::ldexp(1.0F, -8)), 0x3f82);
  EXPECT_EQ(bfloat16_to_float(0x4049), 3.140625F);
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
}

TEST(NcclData, SmallIntegersSurviveEveryType) {
  for (const DataType type :
       {DataType::kFloat, DataType::kHalf, DataType::kBfloat16, DataType::kDouble}) {
    std::vector<std::byte> bytes(static_cast<std::size_t>(element_bytes(type) * 300));
    for (int i = 0; i < 256; ++i) {
      store_element(type, bytes, i, i);
    }
    for (int i = 0; i < 256; ++i) {
      EXPECT_EQ(load_element(type, bytes, i), i) << type_name(type);
    }
  }
}

TEST(NcclData, ClosedFormSumMatchesTheLoop) {
  for (int nranks = 1; nranks <= 10; ++nranks) {
    for (std::int64_t i = 0; i < 7; ++i) {
      double sum = 0.0;
      for (int r = 0; r < nranks; ++r) {
        sum += input_value(r, i);
      }
      EXPECT_EQ(sum_over_ranks(nranks, i), sum) << nranks << " ranks, element " << i;
    }
  }
}

// What `op` leaves on `rank`, computed from every rank's fill_input.
std::vector<std::byte> reference_result(
    NcclOp op, DataType type, int rank, int nranks, std::int64_t count) {
  std::vector<std::vector<std::byte>> inputs;
  for (int r = 0; r < nranks; ++r) {
    const CollectiveShape shape{op, type, r, nranks, count};
    inputs.emplace_back(static_cast<std::size_t>(shape.send_elements() * element_bytes(type)));
    fill_input(shape, inputs.back());
  }
  const CollectiveShape mine{op, type, rank, nranks, count};
  std::vector<std::byte> result(
      static_cast<std::size_t>(mine.receive_elements() * element_bytes(type)));
  for (std::int64_t i = 0; i < mine.receive_elements(); ++i) {
    double value = 0.0;
    if (op == NcclOp::kAllGather) {
      value = load_element(type, inputs[static_cast<std::size_t>(i / count)], i % count);
    } else {
      const std::int64_t at = op == NcclOp::kReduceScatter ? rank * count + i : i;
      for (const auto& input : inputs) {
        value += load_element(type, input, at);
      }
    }
    store_element(type, result, i, value);
  }
  return result;
}

TEST(NcclData, CorrectResultsHaveNothingWrongAndEachDamageCounts) {
  for (const NcclOp op : {NcclOp::kAllReduce, NcclOp::kAllGather, NcclOp::kReduceScatter}) {
    for (const DataType type :
         {DataType::kFloat, DataType::kHalf, DataType::kBfloat16, DataType::kDouble}) {
      const CollectiveShape shape{op, type, 2, 5, 11};
      std::vector<std::byte> result = reference_result(op, type, 2, 5, 11);
      EXPECT_EQ(count_wrong(shape, result), 0) << op_name(op) << " " << type_name(type);
      store_element(type, result, 0, load_element(type, result, 0) + 1.0);
      store_element(type, result, shape.receive_elements() - 1, -7.0);
      EXPECT_EQ(count_wrong(shape, result), 2) << op_name(op) << " " << type_name(type);
    }
  }
}

TEST(NcclData, SwappedAllGatherChunksAreWrong) {
  const CollectiveShape shape{NcclOp::kAllGather, DataType::kFloat, 0, 2, 4};
  std::vector<std::byte> result = reference_result(NcclOp::kAllGather, DataType::kFloat, 0, 2, 4);
  std::vector<std::byte> swapped(result.begin() + 16, result.end());
  swapped.insert(swapped.end(), result.begin(), result.begin() + 16);
  // v(0, i) = i mod 3 and v(1, i) = (i + 1) mod 3 differ at every element.
  EXPECT_EQ(count_wrong(shape, swapped), 8);
}

TEST(NcclData, ShapesFollowNcclsConventions) {
  const CollectiveShape gather{NcclOp::kAllGather, DataType::kFloat, 3, 4, 10};
  EXPECT_EQ(gather.send_elements(), 10);
  EXPECT_EQ(gather.receive_elements(), 40);
  EXPECT_EQ(gather.in_place_send_offset(), 30);
  EXPECT_EQ(gather.in_place_result_offset(), 0);
  const CollectiveShape scatter{NcclOp::kReduceScatter, DataType::kFloat, 3, 4, 10};
  EXPECT_EQ(scatter.send_elements(), 40);
  EXPECT_EQ(scatter.receive_elements(), 10);
  EXPECT_EQ(scatter.in_place_send_offset(), 0);
  EXPECT_EQ(scatter.in_place_result_offset(), 30);
  const CollectiveShape reduce{NcclOp::kAllReduce, DataType::kFloat, 3, 4, 10};
  EXPECT_EQ(reduce.send_elements(), 10);
  EXPECT_EQ(reduce.receive_elements(), 10);
}

}  // namespace
}  // namespace railsim::tools::probes
