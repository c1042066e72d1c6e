// File: tools/probes/qp_endpoint.cpp
// Fields are "key=value" separated by single spaces, in a fixed order; numbers in hex with a
// 0x prefix, the GID as 32 hex digits. Decoding is strict: a peer that prints something else
// is not one to connect a queue pair to.
#include "tools/probes/qp_endpoint.hpp"

#include "tools/probes/hex_digit.hpp"
#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <vector>

namespace railsim::tools::probes {
namespace {

constexpr std::string_view kMagic = "railsim-probe-verbs/1";
constexpr std::uint64_t k24Bits = 0xffffff;

std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) {
      break;
    }
    text.remove_prefix(space + 1);
  }
  return words;
}

[[noreturn]] void fail(std::string_view what) {
  throw ProbeFailure(fmt::format("malformed out-of-band message from the peer: {}", what));
}

std::string_view value_of(std::string_view word, std::string_view key) {
  if (!word.starts_with(key) || word.size() <= key.size() + 1 || word[key.size()] != '=') {
    fail(fmt::format("expected '{}=' and a value, got '{}'", key, word));
  }
  return word.substr(key.size() + 1);
}

std::uint64_t hex_field(std::string_view word, std::string_view key, std::uint64_t max) {
  const std::string_view text = value_of(word, key);
  std::uint64_t value = 0;
  const char* first = text.data() + 2;
  const char* last = text.data() + text.size();
  if (!text.starts_with("0x") || text.size() == 2) {
    fail(fmt::format("expected {} as a hex number such as 0x1f, got '{}'", key, text));
  }
  const auto [end, error] = std::from_chars(first, last, value, 16);
  if (error != std::errc() || end != last || value > max) {
    fail(fmt::format("expected {} as a hex number up to {:#x}, got '{}'", key, max, text));
  }
  return value;
}

}  // namespace

std::string gid_text(const std::array<std::uint8_t, 16>& gid) {
  std::string text;
  for (std::size_t i = 0; i < gid.size(); i += 2) {
    text += fmt::format("{}{:02x}{:02x}", i == 0 ? "" : ":", gid[i], gid[i + 1]);
  }
  return text;
}

std::string encode_endpoint(const QpEndpoint& endpoint) {
  std::string gid;
  for (const std::uint8_t byte : endpoint.gid) {
    gid += fmt::format("{:02x}", byte);
  }
  return fmt::format(
      "{} lid={:#06x} qpn={:#08x} psn={:#08x} rkey={:#010x} addr={:#018x} len={:#x} "
      "gid={} settings={}",
      kMagic, endpoint.lid, endpoint.qp_num, endpoint.psn, endpoint.rkey, endpoint.addr,
      endpoint.buffer_bytes, gid, endpoint.settings);
}

QpEndpoint decode_endpoint(std::string_view line) {
  const std::vector<std::string_view> words = split_spaces(line);
  if (words.empty() || words[0] != kMagic) {
    fail(
        fmt::format("expected it to start with '{}' (is the peer railsim-probe-verbs of this "
                    "version?), got '{}'",
                    kMagic, line.substr(0, std::min<std::size_t>(line.size(), 40))));
  }
  constexpr std::size_t kWords = 9;
  if (words.size() != kWords) {
    fail(fmt::format("expected {} fields, got {}", kWords, words.size()));
  }
  QpEndpoint endpoint;
  endpoint.lid = static_cast<std::uint16_t>(hex_field(words[1], "lid", 0xffff));
  endpoint.qp_num = static_cast<std::uint32_t>(hex_field(words[2], "qpn", k24Bits));
  endpoint.psn = static_cast<std::uint32_t>(hex_field(words[3], "psn", k24Bits));
  endpoint.rkey = static_cast<std::uint32_t>(
      hex_field(words[4], "rkey", std::numeric_limits<std::uint32_t>::max()));
  endpoint.addr = hex_field(words[5], "addr", std::numeric_limits<std::uint64_t>::max());
  endpoint.buffer_bytes = hex_field(words[6], "len", std::numeric_limits<std::uint64_t>::max());
  const std::string_view gid = value_of(words[7], "gid");
  if (gid.size() != 2 * endpoint.gid.size()) {
    fail(fmt::format("expected gid as 32 hex digits, got '{}'", gid));
  }
  for (std::size_t i = 0; i < endpoint.gid.size(); ++i) {
    const int high = hex_digit(gid[2 * i]);
    const int low = hex_digit(gid[2 * i + 1]);
    if (high < 0 || low < 0) {
      fail(fmt::format("expected gid as 32 lower-case hex digits, got '{}'", gid));
    }
    endpoint.gid[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  endpoint.settings = std::string(value_of(words[8], "settings"));
  return endpoint;
}

}  // namespace railsim::tools::probes
