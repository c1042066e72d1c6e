// File: models/scenario/quantity.hpp
// Parsers of the quantity strings that scenario files and the CLI use: "400Gbps", "1.5us", "64M",
// "2:1". Each returns a sim strong type or throws a plain sim::InputError that says what was
// expected and what was found; the caller adds where (a ScenarioError's file and JSON pointer, or
// a CLI option). Ranges beyond the sign (zero, upper bounds) are the caller's to check.
#pragma once

#include "sim/bandwidth.hpp"
#include "sim/bytes.hpp"
#include "sim/time.hpp"

#include <string_view>

namespace railsim::models::scenario {

// What each parser expects, as its messages say it, for callers whose input is not even a string.
inline constexpr std::string_view kBandwidthExpected =
    R"(a bandwidth such as "400Gbps" or "50GB/s")";
inline constexpr std::string_view kDurationExpected = R"(a duration such as "1.5us" or "200ns")";
inline constexpr std::string_view kSizeExpected = R"(a size such as "64M", "1GiB" or "4096")";
inline constexpr std::string_view kRatioExpected = R"(a ratio such as "2:1" or "1.5")";

// Numbers below are non-negative decimals: digits with an optional fraction ("2", "2.", "0.5",
// ".5"), and, except in sizes, an optional exponent ("1.6e3"). No sign, no "inf" or "nan", no
// spaces before or after; spaces may separate the number from its unit ("400 Gbps").

// A rate, its unit required:
//   bits per second, powers of 1000:   bps  Kbps  Mbps  Gbps  Tbps    b/s  Kb/s  Mb/s  Gb/s  Tb/s
//   bytes per second, powers of 1000:  Bps  KBps  MBps  GBps  TBps    B/s  KB/s  MB/s  GB/s  TB/s
//   bytes per second, powers of 1024:                                      KiB/s MiB/s GiB/s TiB/s
// "b" is a bit and "B" a byte, always; the prefix letter may be either case ("kbps" = "Kbps"),
// since no rate is quoted in milli-units. "400Gbps" = 50e9 bytes/s = "50GB/s".
sim::Bandwidth parse_bandwidth(std::string_view text);

// A time span, its unit required: ps, ns, us (or "µs", "μs"), ms or s, case-sensitive, rounded to
// the nearest picosecond ("1.5ns" = 1500 ps, "0.4ps" = 0 ps). Beyond +/-106 days is an error.
sim::Duration parse_duration(std::string_view text);

// A size as nccl-tests reads -b and -e, its unit optional:
//   none or B: bytes;  K M G T (either case) and KiB MiB GiB TiB: powers of 1024;
//   KB MB GB TB: powers of 1000.
// Fractions are allowed only where the size is a whole number of bytes ("1.5K" = 1536; "0.3K",
// 307.2 bytes, is an error), computed exactly; sizes beyond int64 are errors.
sim::Bytes parse_size(std::string_view text);

// A ratio as oversubscription is written: "2:1" = 2.0, "3:2" = 1.5, or one number, "2" = 2.0.
// Spaces may surround the colon; a zero denominator is an error.
double parse_ratio(std::string_view text);

}  // namespace railsim::models::scenario
