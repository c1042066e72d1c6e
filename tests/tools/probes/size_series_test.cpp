// File: tests/tools/probes/size_series_test.cpp
// -b/-e/-f as nccl-tests reads them: suffixes in powers of 1024, a lone -b or -e is one size,
// and every bad value names its option.
#include "tools/probes/size_series.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace railsim::tools::probes {
namespace {

namespace po = boost::program_options;

po::variables_map parse(const std::vector<std::string>& args) {
  po::options_description options;
  add_size_options(options);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  po::notify(vm);
  return vm;
}

constexpr SizeSeries kFallback{8, 8, 2};
constexpr std::int64_t kLimit = std::int64_t{1} << 30;

TEST(SizeSeries, DoublesFromMinToMax) {
  EXPECT_EQ((SizeSeries{2, 16, 2}.sizes()), (std::vector<std::int64_t>{2, 4, 8, 16}));
}

TEST(SizeSeries, StopsBeforeMaxWhenMaxIsNotOnTheProgression) {
  EXPECT_EQ((SizeSeries{3, 100, 4}.sizes()), (std::vector<std::int64_t>{3, 12, 48}));
}

TEST(SizeSeries, ReadsNcclTestsSuffixesAsPowersOf1024) {
  const SizeSeries series =
      sizes_from_options(parse({"-b", "1K", "-e", "1M", "-f", "32"}), kFallback, kLimit);
  EXPECT_EQ(series.sizes(), (std::vector<std::int64_t>{1024, 32768, 1048576}));
}

TEST(SizeSeries, LoneMinIsOneSize) {
  const SizeSeries series = sizes_from_options(parse({"-b", "64K"}), kFallback, kLimit);
  EXPECT_EQ(series.sizes(), (std::vector<std::int64_t>{65536}));
}

TEST(SizeSeries, NoOptionsKeepTheFallback) {
  EXPECT_EQ(sizes_from_options(parse({}), kFallback, kLimit).sizes(),
            (std::vector<std::int64_t>{8}));
}

void expect_error(const std::vector<std::string>& args, const std::string& message) {
  try {
    sizes_from_options(parse(args), kFallback, kLimit);
    FAIL() << "expected an error: " << message;
  } catch (const sim::InputError& error) {
    EXPECT_EQ(error.what(), message);
  }
}

TEST(SizeSeries, BadValuesNameTheirOption) {
  expect_error({"-b", "0"}, "-b: expected a size from 1 to 1073741824 bytes, got 0");
  expect_error({"-e", "2G"}, "-e: expected a size from 1 to 1073741824 bytes, got 2G");
  expect_error({"-b", "64M", "-e", "1M"}, "-b 67108864 is larger than -e 1048576");
  expect_error({"-b", "8", "-e", "64", "-f", "1"}, "-f: expected a factor of at least 2, got 1");
}

TEST(SizeSeries, UnparsableSizeSaysWhatWasExpected) {
  try {
    sizes_from_options(parse({"-b", "12Q"}), kFallback, kLimit);
    FAIL();
  } catch (const sim::InputError& error) {
    EXPECT_TRUE(std::string(error.what()).starts_with("-b: expected a size")) << error.what();
  }
}

}  // namespace
}  // namespace railsim::tools::probes
