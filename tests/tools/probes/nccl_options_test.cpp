// File: tests/tools/probes/nccl_options_test.cpp
// railsim-probe-nccl's arguments: nccl-tests' defaults and names, the rank checks, and the
// documented error for each kind of bad argument (all before CUDA is touched).
#include "tools/probes/nccl_options.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace railsim::tools::probes {
namespace {

// The options every run needs: rank 1 of 4.
std::vector<std::string> place() {
  return {"--rank", "1", "--nranks", "4", "--id-file", "/shared/id"};
}

std::vector<std::string> with_place(std::vector<std::string> args) {
  const std::vector<std::string> first = place();
  args.insert(args.begin(), first.begin(), first.end());
  return args;
}

NcclOptions parse(const std::vector<std::string>& args) {
  std::ostringstream out;
  const std::optional<NcclOptions> options = parse_nccl_options(args, out);
  EXPECT_TRUE(options.has_value());
  return options.value_or(NcclOptions{});
}

std::string error_of(const std::vector<std::string>& args) {
  std::ostringstream out;
  try {
    parse_nccl_options(args, out);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "no error";
}

TEST(NcclOptions, NcclTestsDefaults) {
  const NcclOptions o = parse(place());
  EXPECT_EQ(o.rank, 1);
  EXPECT_EQ(o.nranks, 4);
  EXPECT_EQ(o.id_file, "/shared/id");
  EXPECT_FALSE(o.device.has_value());
  EXPECT_EQ(o.op, NcclOp::kAllReduce);
  EXPECT_EQ(o.sizes.sizes(), (std::vector<std::int64_t>{32 << 20}));
  EXPECT_EQ(o.iterations, 20);
  EXPECT_EQ(o.warmup, 5);
  EXPECT_EQ(o.type, DataType::kFloat);
  EXPECT_TRUE(o.check);
}

TEST(NcclOptions, EveryOption) {
  const NcclOptions o = parse(with_place({"--device", "3",  "--op",         "reduce_scatter",
                                          "-b",       "8M", "-e",           "1G",
                                          "-f",       "8",  "-n",           "50",
                                          "-w",       "2",  "-d",           "bfloat16",
                                          "-c",       "0",  "--id-timeout", "5"}));
  EXPECT_EQ(o.device, 3);
  EXPECT_EQ(o.op, NcclOp::kReduceScatter);
  EXPECT_EQ(o.sizes.sizes(), (std::vector<std::int64_t>{8 << 20, 64 << 20, 512 << 20}));
  EXPECT_EQ(o.iterations, 50);
  EXPECT_EQ(o.warmup, 2);
  EXPECT_EQ(o.type, DataType::kBfloat16);
  EXPECT_FALSE(o.check);
  EXPECT_EQ(o.id_timeout, std::chrono::seconds(5));
}

TEST(NcclOptions, HelpNeedsNoOtherOption) {
  std::ostringstream out;
  EXPECT_FALSE(parse_nccl_options({"--help"}, out).has_value());
  EXPECT_NE(out.str().find("usage: railsim-probe-nccl --rank R --nranks N --id-file PATH"),
            std::string::npos);
}

TEST(NcclOptions, BadArgumentsSayWhatWasExpected) {
  EXPECT_EQ(error_of({"--nranks", "2", "--id-file", "x"}), "--rank is required (see --help)");
  EXPECT_EQ(error_of({"--rank", "0", "--id-file", "x"}), "--nranks is required (see --help)");
  EXPECT_EQ(error_of({"--rank", "0", "--nranks", "2"}), "--id-file is required (see --help)");
  EXPECT_EQ(error_of({"--rank", "2", "--nranks", "2", "--id-file", "x"}),
            "--rank: expected an integer from 0 to 1, got 2");
  EXPECT_EQ(error_of({"--rank", "0", "--nranks", "0", "--id-file", "x"}),
            "--nranks: expected an integer from 1 to 1048576, got 0");
  EXPECT_EQ(error_of(with_place({"--op", "allreduce"})),
            "--op: expected one of all_reduce, all_gather, reduce_scatter, got 'allreduce' (did "
            "you mean 'all_reduce'?)");
  EXPECT_EQ(error_of(with_place({"-d", "int8"})),
            "-d: expected one of float, half, bfloat16, double, got 'int8'");
  EXPECT_EQ(error_of(with_place({"-n", "0"})), "-n: expected an integer from 1 to 1000000, got 0");
  EXPECT_EQ(error_of(with_place({"-c", "2"})), "-c: expected an integer from 0 to 1, got 2");
  EXPECT_EQ(error_of(with_place({"-b", "1M", "-e", "1K"})), "-b 1048576 is larger than -e 1024");
  EXPECT_EQ(error_of(with_place({"-f", "2"})), "-f: a step factor needs -b and -e");
  // Four ranks of float: an AllGather row needs 16 bytes.
  EXPECT_EQ(error_of(with_place({"--op", "all_gather", "-b", "8", "-e", "8"})),
            "-e: 8 bytes is less than one float element on every rank (16 bytes), so there is "
            "nothing to measure");
}

TEST(NcclOptions, RowsRoundDownToWholeElementsAndDropRepeats) {
  // AllReduce of double: 12 B holds one element (8 B); 3 ranks of AllGather: 24 B per element.
  EXPECT_EQ(row_shapes(NcclOp::kAllReduce, DataType::kDouble, 3, SizeSeries{12, 48, 2}).size(), 3U);
  const std::vector<RowShape> gather =
      row_shapes(NcclOp::kAllGather, DataType::kDouble, 3, SizeSeries{8, 64, 2});
  // 8 and 16 hold none; 32 -> 1 element (24 B); 64 -> 2 elements (48 B).
  ASSERT_EQ(gather.size(), 2U);
  EXPECT_EQ(gather[0].size_bytes, 24);
  EXPECT_EQ(gather[0].count, 1);
  EXPECT_EQ(gather[1].size_bytes, 48);
  EXPECT_EQ(gather[1].count, 2);
}

}  // namespace
}  // namespace railsim::tools::probes
