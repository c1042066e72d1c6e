// File: tools/probes/rank_info.cpp
#include "tools/probes/rank_info.hpp"

#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

namespace railsim::tools::probes {
namespace {

std::string without_separators(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n' || c == '\0'; }, ' ');
  return text;
}

template <typename T>
T integer(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw ProbeFailure(
        fmt::format("a rank's description from the AllGather is damaged: '{}' is no number", text));
  }
  return value;
}

}  // namespace

std::array<std::byte, kRankInfoBytes> encode_rank_info(const RankInfo& info) {
  const std::string head = fmt::format("{}\t{}\t{}\t{}\t", info.rank, info.pid, info.device,
                                       without_separators(info.bus_id));
  std::string host = without_separators(info.host);
  std::string model = without_separators(info.model);
  // One byte stays zero, so a record always ends inside its kRankInfoBytes.
  const std::size_t room = kRankInfoBytes - 1 - head.size() - 1;
  if (host.size() + model.size() > room) {
    model.resize(room > host.size() ? room - host.size() : 0);
    host.resize(std::min(host.size(), room));
  }
  const std::string text = head + host + "\t" + model;
  std::array<std::byte, kRankInfoBytes> record{};
  std::transform(text.begin(), text.end(), record.begin(),
                 [](char c) { return static_cast<std::byte>(c); });
  return record;
}

RankInfo decode_rank_info(std::span<const std::byte> record) {
  std::string text;
  for (const std::byte b : record) {
    if (b == std::byte{0}) {
      break;
    }
    text += static_cast<char>(b);
  }
  std::vector<std::string_view> fields;
  std::string_view rest = text;
  for (std::size_t tab = rest.find('\t'); tab != std::string_view::npos; tab = rest.find('\t')) {
    fields.push_back(rest.substr(0, tab));
    rest.remove_prefix(tab + 1);
  }
  fields.push_back(rest);
  constexpr std::size_t kFields = 6;
  if (fields.size() != kFields || text.size() >= kRankInfoBytes) {
    throw ProbeFailure(fmt::format(
        "a rank's description from the AllGather is damaged: expected {} fields, got {}", kFields,
        fields.size()));
  }
  RankInfo info;
  info.rank = integer<int>(fields[0]);
  info.pid = integer<std::int64_t>(fields[1]);
  info.device = integer<int>(fields[2]);
  info.bus_id = std::string(fields[3]);
  info.host = std::string(fields[4]);
  info.model = std::string(fields[5]);
  return info;
}

void print_rank_line(std::ostream& out, const RankInfo& info) {
  fmt::print(out, "#  Rank {:2} Group  0 Pid {:6} on {:>10} device {:2} [{}] {}\n", info.rank,
             info.pid, info.host, info.device, info.bus_id, info.model);
}

}  // namespace railsim::tools::probes
