// File: tests/models/scenario/quantity_test.cpp
// Every unit of every quantity parser, its rounding, and each way it rejects a string. Expected
// values are worked out by hand in the comments: a bit is 1/8 byte, K M G T are 10^3..10^12 in
// rates and 2^10..2^40 in nccl-tests sizes.
#include "models/scenario/quantity.hpp"

#include "sim/input_error.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace railsim::models::scenario {
namespace {

// The message parse(text) throws, or "" if it throws nothing.
template <class Parse>
std::string rejection(Parse parse, std::string_view text) {
  try {
    parse(text);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "";
}

double rate(std::string_view text) { return parse_bandwidth(text).bytes_per_s; }

std::int64_t picos(std::string_view text) { return parse_duration(text).count(); }

std::int64_t size(std::string_view text) { return parse_size(text).count; }

std::string bandwidth_error(std::string_view text) { return rejection(parse_bandwidth, text); }

std::string duration_error(std::string_view text) { return rejection(parse_duration, text); }

std::string size_error(std::string_view text) { return rejection(parse_size, text); }

std::string ratio_error(std::string_view text) { return rejection(parse_ratio, text); }

TEST(Quantity, GbpsIsGigabitsPerSecond) {
  // 400e9 bits/s / 8 = 50e9 bytes/s: one direction of a 400G port.
  EXPECT_DOUBLE_EQ(rate("400Gbps"), 50e9);
  EXPECT_EQ(parse_bandwidth("400Gbps"), sim::gbps(400));
}

TEST(Quantity, BitRatesUsePowersOf1000) {
  // 8 bits are one byte, so 8 x 10^(3k) bits/s = 10^(3k) bytes/s.
  EXPECT_DOUBLE_EQ(rate("8bps"), 1.0);
  EXPECT_DOUBLE_EQ(rate("8Kbps"), 1e3);
  EXPECT_DOUBLE_EQ(rate("8Mbps"), 1e6);
  EXPECT_DOUBLE_EQ(rate("8Gbps"), 1e9);
  EXPECT_DOUBLE_EQ(rate("8Tbps"), 1e12);
  EXPECT_DOUBLE_EQ(rate("8b/s"), 1.0);
  EXPECT_DOUBLE_EQ(rate("8Kb/s"), 1e3);
  EXPECT_DOUBLE_EQ(rate("8Mb/s"), 1e6);
  EXPECT_DOUBLE_EQ(rate("8Gb/s"), 1e9);
  EXPECT_DOUBLE_EQ(rate("8Tb/s"), 1e12);
  EXPECT_DOUBLE_EQ(rate("1bps"), 0.125);
}

TEST(Quantity, ByteRatesUsePowersOf1000) {
  EXPECT_DOUBLE_EQ(rate("1B/s"), 1.0);
  EXPECT_DOUBLE_EQ(rate("1KB/s"), 1e3);
  EXPECT_DOUBLE_EQ(rate("1MB/s"), 1e6);
  EXPECT_DOUBLE_EQ(rate("50GB/s"), 50e9);
  EXPECT_DOUBLE_EQ(rate("1TB/s"), 1e12);
  EXPECT_DOUBLE_EQ(rate("1Bps"), 1.0);
  EXPECT_DOUBLE_EQ(rate("1KBps"), 1e3);
  EXPECT_DOUBLE_EQ(rate("1MBps"), 1e6);
  EXPECT_DOUBLE_EQ(rate("1GBps"), 1e9);
  EXPECT_DOUBLE_EQ(rate("1TBps"), 1e12);
  EXPECT_EQ(parse_bandwidth("50GB/s"), parse_bandwidth("400Gbps"));
}

TEST(Quantity, BinaryByteRatesUsePowersOf1024) {
  EXPECT_DOUBLE_EQ(rate("1KiB/s"), 1024.0);
  EXPECT_DOUBLE_EQ(rate("1MiB/s"), 1048576.0);        // 2^20
  EXPECT_DOUBLE_EQ(rate("1GiB/s"), 1073741824.0);     // 2^30
  EXPECT_DOUBLE_EQ(rate("1TiB/s"), 1099511627776.0);  // 2^40
  EXPECT_NE(bandwidth_error("1iB/s"), "");            // a binary unit needs its prefix
}

TEST(Quantity, RatePrefixesMayBeEitherCaseButBitAndByteMayNot) {
  EXPECT_DOUBLE_EQ(rate("400gbps"), rate("400Gbps"));
  EXPECT_DOUBLE_EQ(rate("8kbps"), 1e3);
  EXPECT_DOUBLE_EQ(rate("8mb/s"), 1e6);  // no rate is quoted in millibits
  EXPECT_DOUBLE_EQ(rate("1tB/s"), 1e12);
  // "b" against "B" is a factor of 8: 1 Gbps = 0.125 GB/s.
  EXPECT_DOUBLE_EQ(rate("1Gbps") * 8.0, rate("1GBps"));
  EXPECT_NE(bandwidth_error("1GBPS"), "");
}

TEST(Quantity, RatesTakeFractionsExponentsAndASpaceBeforeTheUnit) {
  EXPECT_DOUBLE_EQ(rate("400 Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(rate("12.5GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(rate(".5GB/s"), 0.5e9);
  EXPECT_DOUBLE_EQ(rate("2.GB/s"), 2e9);
  EXPECT_DOUBLE_EQ(rate("1.6e3Gbps"), 200e9);  // 1600 Gbps / 8
  EXPECT_DOUBLE_EQ(rate("4E+2Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(rate("0Gbps"), 0.0);  // zero is the caller's to reject
}

TEST(Quantity, BandwidthWithoutAUnitIsRejectedWithAnExample) {
  EXPECT_EQ(bandwidth_error("400"),
            R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "400")");
  EXPECT_EQ(bandwidth_error(""), R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "")");
}

TEST(Quantity, BandwidthRejectionsSayWhy) {
  EXPECT_EQ(bandwidth_error("-5Gbps"),
            R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "-5Gbps" (negative))");
  EXPECT_EQ(bandwidth_error("400Gbit/s"),
            R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "400Gbit/s" )"
            R"((unknown unit "Gbit/s"; did you mean "Gb/s"?))");
  EXPECT_EQ(bandwidth_error("400furlongs"),
            R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "400furlongs" )"
            R"((unknown unit "furlongs"))");
  // 1e999 is beyond a double; 1e308 Tbps is within one but its bytes/s (1.25e319) are not.
  EXPECT_EQ(bandwidth_error("1e999Gbps"),
            R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "1e999Gbps" )"
            R"((number out of range))");
  EXPECT_EQ(bandwidth_error("1e308Tbps"),
            R"(expected a bandwidth such as "400Gbps" or "50GB/s", got "1e308Tbps" )"
            R"((number out of range))");
}

TEST(Quantity, BandwidthRejectsWhatIsNotANonNegativeNumber) {
  for (const std::string_view text :
       {"Gbps", "+400Gbps", "nanGbps", "NaNGbps", "infGbps", "infinityGbps", " 400Gbps", "400Gbps ",
        "400 ", ".Gbps", "1e5", "0x10Gbps", "400Gbps/s", "400 Gb ps", "4,00Gbps"}) {
    EXPECT_NE(bandwidth_error(text), "") << text;
  }
}

TEST(Quantity, DurationsTakeEveryUnit) {
  EXPECT_EQ(picos("7ps"), 7);
  EXPECT_EQ(picos("7ns"), 7'000);
  EXPECT_EQ(picos("7us"), 7'000'000);
  EXPECT_EQ(picos("7\u00b5s"), 7'000'000);  // MICRO SIGN
  EXPECT_EQ(picos("7\u03bcs"), 7'000'000);  // GREEK SMALL LETTER MU
  EXPECT_EQ(picos("7ms"), 7'000'000'000);
  EXPECT_EQ(picos("7s"), 7'000'000'000'000);
  EXPECT_EQ(picos("0s"), 0);
  EXPECT_EQ(picos("100 ns"), 100'000);
  EXPECT_EQ(picos("1e3ns"), 1'000'000);
  EXPECT_EQ(parse_duration("1.5us"), sim::us(1.5));
}

TEST(Quantity, DurationsRoundToTheNearestPicosecond) {
  EXPECT_EQ(picos("1.5ns"), 1'500);
  EXPECT_EQ(picos("0.4ps"), 0);
  EXPECT_EQ(picos("0.5ps"), 1);  // halves round away from zero
  EXPECT_EQ(picos("2.6ps"), 3);
  EXPECT_EQ(picos("1.0004ns"), 1'000);  // 1000.4 ps
  EXPECT_EQ(picos("1.0006ns"), 1'001);  // 1000.6 ps
  EXPECT_EQ(picos("0.0000015ms"), 1'500);
}

TEST(Quantity, DurationsBeyondTheSimulatedRangeAreRejected) {
  // int64 picoseconds reach 9.22e18 ps = 9.22e6 s, about 106 days.
  EXPECT_EQ(picos("9000000s"), 9'000'000'000'000'000'000);
  const std::string expected = R"(expected a duration such as "1.5us" or "200ns", got "10000000s" )"
                               "(beyond the simulated range of +/-106 days)";
  EXPECT_EQ(duration_error("10000000s"), expected);
  EXPECT_NE(duration_error("9223372036854775808ps"), "");  // 2^63 ps
  EXPECT_NE(duration_error("1e300ms"), "");
}

TEST(Quantity, DurationRejectionsSayWhy) {
  EXPECT_EQ(duration_error("5"), R"(expected a duration such as "1.5us" or "200ns", got "5")");
  EXPECT_EQ(duration_error("5sec"), R"(expected a duration such as "1.5us" or "200ns", got "5sec" )"
                                    R"((unknown unit "sec"; expected ps, ns, us, ms or s))");
  EXPECT_EQ(duration_error("-1us"),
            R"(expected a duration such as "1.5us" or "200ns", got "-1us" (negative))");
  for (const std::string_view text : {"us", "5MS", "5Us", "5 us ", "nanus", "1h"}) {
    EXPECT_NE(duration_error(text), "") << text;
  }
}

TEST(Quantity, SizesWithoutAUnitAreBytes) {
  EXPECT_EQ(size("8"), 8);
  EXPECT_EQ(size("8B"), 8);
  EXPECT_EQ(size("0"), 0);
  EXPECT_EQ(size("007"), 7);
}

TEST(Quantity, SizeLettersArePowersOf1024AsInNcclTests) {
  EXPECT_EQ(size("1K"), 1'024);
  EXPECT_EQ(size("64M"), 67'108'864);        // 64 x 2^20
  EXPECT_EQ(size("8G"), 8'589'934'592);      // 8 x 2^30
  EXPECT_EQ(size("1T"), 1'099'511'627'776);  // 2^40
  EXPECT_EQ(size("1k"), 1'024);              // nccl-tests takes either case
  EXPECT_EQ(size("64m"), 67'108'864);
  EXPECT_EQ(size("8g"), 8'589'934'592);
  EXPECT_EQ(size("1t"), 1'099'511'627'776);
  EXPECT_EQ(size("64 M"), 67'108'864);
  EXPECT_EQ(parse_size("1G"), sim::gib(1));
}

TEST(Quantity, SizeIecUnitsArePowersOf1024AndSiUnitsOf1000) {
  EXPECT_EQ(size("1KiB"), 1'024);
  EXPECT_EQ(size("1MiB"), 1'048'576);
  EXPECT_EQ(size("1GiB"), 1'073'741'824);
  EXPECT_EQ(size("1TiB"), 1'099'511'627'776);
  EXPECT_EQ(size("1KB"), 1'000);
  EXPECT_EQ(size("1MB"), 1'000'000);
  EXPECT_EQ(size("1GB"), 1'000'000'000);
  EXPECT_EQ(size("1TB"), 1'000'000'000'000);
  for (const std::string_view text : {"1kB", "1kiB", "1Kb", "1KIB", "1b", "1iB", "1KiBs"}) {
    EXPECT_NE(size_error(text), "") << text;
  }
}

TEST(Quantity, SizeFractionsMustComeToWholeBytes) {
  EXPECT_EQ(size("1.5K"), 1'536);  // 1.5 x 1024
  EXPECT_EQ(size(".5KiB"), 512);
  EXPECT_EQ(size("1.5KB"), 1'500);
  EXPECT_EQ(size("2.25M"), 2'359'296);  // 2.25 x 1048576
  EXPECT_EQ(size("0.001KB"), 1);
  EXPECT_EQ(size("0.0009765625K"), 1);  // 2^-10 x 2^10, exact in decimal
  EXPECT_EQ(size("1.000B"), 1);
  const std::string expected =
      R"(expected a size such as "64M", "1GiB" or "4096", got "0.3K" (not a whole number of bytes))";
  EXPECT_EQ(size_error("0.3K"), expected);      // 307.2 bytes
  EXPECT_NE(size_error("1.5"), "");             // 1.5 bytes
  EXPECT_NE(size_error("0.0001KB"), "");        // 0.1 bytes
  EXPECT_NE(size_error("0.00048828125K"), "");  // 2^-11 x 2^10 = 0.5 bytes
}

TEST(Quantity, SizesBeyondInt64AreRejected) {
  // int64 holds 2^63 - 1 = 9223372036854775807; 8388607 T = (2^23 - 1) x 2^40 fits, 2^23 T does
  // not.
  EXPECT_EQ(size("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(size("8388607T"), 9'223'370'937'343'148'032);
  const std::string too_large =
      R"(expected a size such as "64M", "1GiB" or "4096", got "8388608T" )"
      "(more than 2^63-1 bytes)";
  EXPECT_EQ(size_error("8388608T"), too_large);
  EXPECT_NE(size_error("9223372036854775808"), "");
  EXPECT_NE(size_error("99999999999999999999"), "");  // beyond uint64 too
  EXPECT_NE(size_error("8388607.9999999T"), "");
}

TEST(Quantity, SizeRejectionsSayWhy) {
  EXPECT_EQ(size_error("-1K"),
            R"(expected a size such as "64M", "1GiB" or "4096", got "-1K" (negative))");
  EXPECT_EQ(size_error("1X"),
            R"(expected a size such as "64M", "1GiB" or "4096", got "1X" (unknown unit "X"; )"
            "expected B, K, M, G, T, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
  for (const std::string_view text :
       {"", "K", "1e3", "1K ", " 1K", "+1K", "1.5.K", "inf", "1,024"}) {
    EXPECT_NE(size_error(text), "") << text;
  }
}

TEST(Quantity, SizeTextIsTheLargestBinaryUnitThatDividesAndReadsBack) {
  EXPECT_EQ(sim::size_text(sim::Bytes{8388608}), "8 MiB");
  EXPECT_EQ(sim::size_text(sim::Bytes{3072}), "3 KiB");
  EXPECT_EQ(sim::size_text(sim::Bytes{1536}), "1536 B");
  EXPECT_EQ(sim::size_text(sim::Bytes{0}), "0 B");
  EXPECT_EQ(sim::size_text(sim::Bytes{std::int64_t{8} << 40}), "8 TiB");
  EXPECT_EQ(sim::size_text(sim::Bytes{std::int64_t{1} << 50}), "1024 TiB");
  for (const std::int64_t bytes : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{3} << 30,
                                   std::int64_t{5} << 42, std::int64_t{1} << 50}) {
    EXPECT_EQ(parse_size(sim::size_text(sim::Bytes{bytes})).count, bytes);
  }
}

TEST(Quantity, RatiosAreColonPairsOrOneNumber) {
  EXPECT_DOUBLE_EQ(parse_ratio("2:1"), 2.0);
  EXPECT_DOUBLE_EQ(parse_ratio("1:1"), 1.0);
  EXPECT_DOUBLE_EQ(parse_ratio("3:2"), 1.5);
  EXPECT_DOUBLE_EQ(parse_ratio("2"), 2.0);
  EXPECT_DOUBLE_EQ(parse_ratio("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(parse_ratio("2 : 1"), 2.0);
  EXPECT_DOUBLE_EQ(parse_ratio("0:1"), 0.0);  // the range is the caller's to check
}

TEST(Quantity, RatioRejectionsSayWhy) {
  EXPECT_EQ(ratio_error("2:0"),
            R"(expected a ratio such as "2:1" or "1.5", got "2:0" (zero denominator))");
  EXPECT_EQ(ratio_error("two"), R"(expected a ratio such as "2:1" or "1.5", got "two")");
  EXPECT_EQ(ratio_error("2:-1"),
            R"(expected a ratio such as "2:1" or "1.5", got "2:-1" (negative))");
  for (const std::string_view text :
       {"", ":1", "2:", "2:1:1", "-2:1", "2x", "2/1", "2:1 ", "a:b"}) {
    EXPECT_NE(ratio_error(text), "") << text;
  }
}

}  // namespace
}  // namespace railsim::models::scenario
