// File: tests/tools/probes/tcp_channel_test.cpp
// The out-of-band TCP channel over the loopback: lines both ways, the barrier, and a peer that
// closes or stays silent ending the wait with a ProbeFailure instead of a hang.
#include "tools/probes/tcp_channel.hpp"

#include "tools/probes/probe_run.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace railsim::tools::probes {
namespace {

using std::chrono::milliseconds;

TEST(TcpChannel, ExchangesLinesAndMeetsAtBarriers) {
  TcpListener listener(0);
  std::string server_got;
  std::thread server([&] {
    TcpChannel channel = listener.accept(milliseconds(5000));
    server_got = channel.receive_line();
    channel.send_line("hello client");
    channel.barrier("size 8");
  });
  TcpChannel client = TcpChannel::connect("localhost", listener.port(), milliseconds(5000));
  client.send_line("hello server");
  EXPECT_EQ(client.receive_line(), "hello client");
  client.barrier("size 8");
  server.join();
  EXPECT_EQ(server_got, "hello server");
}

TEST(TcpChannel, PeerClosingIsAFailureNotAHang) {
  TcpListener listener(0);
  std::thread server([&] { TcpChannel channel = listener.accept(milliseconds(5000)); });
  TcpChannel client = TcpChannel::connect("127.0.0.1", listener.port(), milliseconds(5000));
  server.join();
  EXPECT_THROW(client.receive_line(), ProbeFailure);
}

TEST(TcpChannel, SilentPeerTimesOut) {
  TcpListener listener(0);
  TcpChannel client = TcpChannel::connect("127.0.0.1", listener.port(), milliseconds(100));
  // The connection is queued on the listener, never accepted: nothing ever arrives.
  try {
    client.receive_line();
    FAIL();
  } catch (const ProbeFailure& error) {
    EXPECT_NE(std::string(error.what()).find("the peer sent nothing for 0.1 s"), std::string::npos);
  }
}

TEST(TcpChannel, BarriersOutOfStepAreAFailure) {
  TcpListener listener(0);
  std::thread server([&] {
    TcpChannel channel = listener.accept(milliseconds(5000));
    channel.send_line("barrier size 16");
    channel.receive_line();
  });
  TcpChannel client = TcpChannel::connect("127.0.0.1", listener.port(), milliseconds(5000));
  EXPECT_THROW(client.barrier("size 8"), ProbeFailure);
  server.join();
}

TEST(TcpChannel, NoServerIsAFailureAfterTheTimeout) {
  std::uint16_t port = 0;
  {
    TcpListener listener(0);  // a port that was free a moment ago, and is closed again
    port = listener.port();
  }
  EXPECT_THROW(TcpChannel::connect("127.0.0.1", port, milliseconds(300)), ProbeFailure);
}

TEST(TcpChannel, NoClientIsAFailureAfterTheTimeout) {
  TcpListener listener(0);
  EXPECT_THROW(listener.accept(milliseconds(100)), ProbeFailure);
}

}  // namespace
}  // namespace railsim::tools::probes
