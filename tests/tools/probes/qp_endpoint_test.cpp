// File: tests/tools/probes/qp_endpoint_test.cpp
// The out-of-band message: every field survives encode/decode at its limits, and a damaged or
// foreign line is refused with the field it concerns.
#include "tools/probes/qp_endpoint.hpp"

#include "tools/probes/probe_run.hpp"

#include <gtest/gtest.h>

#include <string>

namespace railsim::tools::probes {
namespace {

QpEndpoint sample() {
  QpEndpoint e;
  e.lid = 0x40;
  e.qp_num = 0x038d;
  e.psn = 0xb5f720;
  e.rkey = 0x1fffcd;
  e.addr = 0x007da37cbc1000;
  e.buffer_bytes = 8 << 20;
  e.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x0c, 0x42, 0xa1, 0x03, 0x00, 0x7d, 0xd2, 0x01};
  e.settings = "test=both,iters=5000/1000";
  return e;
}

TEST(QpEndpoint, RoundTrips) {
  const QpEndpoint e = sample();
  const std::string line = encode_endpoint(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(decode_endpoint(line), e);
}

TEST(QpEndpoint, RoundTripsTheLargestValues) {
  QpEndpoint e = sample();
  e.lid = 0xffff;
  e.qp_num = 0xffffff;
  e.psn = 0xffffff;
  e.rkey = 0xffffffff;
  e.addr = 0xffffffffffffffff;
  e.gid.fill(0xff);
  EXPECT_EQ(decode_endpoint(encode_endpoint(e)), e);
}

TEST(QpEndpoint, PrintsAsReadableText) {
  EXPECT_EQ(encode_endpoint(sample()),
            "railsim-probe-verbs/1 lid=0x0040 qpn=0x00038d psn=0xb5f720 rkey=0x001fffcd "
            "addr=0x00007da37cbc1000 len=0x800000 gid=fe800000000000000c42a103007dd201 "
            "settings=test=both,iters=5000/1000");
  EXPECT_EQ(gid_text(sample().gid), "fe80:0000:0000:0000:0c42:a103:007d:d201");
}

std::string error_of(const std::string& line) {
  try {
    decode_endpoint(line);
  } catch (const ProbeFailure& error) {
    return error.what();
  }
  return "no error";
}

std::string with(std::string line, const std::string& from, const std::string& to) {
  line.replace(line.find(from), from.size(), to);
  return line;
}

TEST(QpEndpoint, RefusesDamagedLines) {
  const std::string good = encode_endpoint(sample());
  EXPECT_NE(
      error_of("SSH-2.0-OpenSSH_9.2").find("expected it to start with 'railsim-probe-verbs/1'"),
      std::string::npos);
  EXPECT_NE(error_of(with(good, "qpn=0x00038d", "qpn=0x1000000"))
                .find("qpn as a hex number up to 0xffffff"),
            std::string::npos);
  EXPECT_NE(error_of(with(good, "psn=0xb5f720", "psn=b5f720")).find("psn as a hex number"),
            std::string::npos);
  EXPECT_NE(error_of(with(good, "rkey=", "rkye=")).find("expected 'rkey=' and a value"),
            std::string::npos);
  EXPECT_NE(error_of(with(good, "gid=fe80", "gid=fe8")).find("gid as 32 hex digits"),
            std::string::npos);
  EXPECT_NE(error_of(with(good, "gid=fe80", "gid=FE80")).find("lower-case"), std::string::npos);
  EXPECT_NE(error_of(good + " extra=1").find("expected 9 fields, got 10"), std::string::npos);
  EXPECT_NE(
      error_of(with(good, "settings=test=both,iters=5000/1000", "settings=")).find("settings"),
      std::string::npos);
}

}  // namespace
}  // namespace railsim::tools::probes
