// File: tools/probes/hex_digit.hpp
// The value of one lower-case hex digit, for the probes' text encodings (GIDs, NCCL's unique
// id); -1 for anything else, so a damaged line is reported rather than misread.
#pragma once

namespace railsim::tools::probes {

constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  return -1;
}

}  // namespace railsim::tools::probes
