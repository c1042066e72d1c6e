// File: tools/probes/tcp_channel.hpp
// The probes' out-of-band connection: a TCP stream of text lines between a server and a client,
// used to swap queue-pair endpoints and to keep both sides in step between sizes (a barrier).
// Every wait has a deadline, so a peer that died or never came ends the run with a ProbeFailure
// that says so rather than a hang.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace railsim::tools::probes {

// An owned socket descriptor, closed on destruction.
class SocketFd {
 public:
  SocketFd() = default;

  explicit SocketFd(int fd) : fd_(fd) {}

  SocketFd(SocketFd&& other) noexcept;
  SocketFd& operator=(SocketFd&& other) noexcept;
  SocketFd(const SocketFd&) = delete;
  SocketFd& operator=(const SocketFd&) = delete;
  ~SocketFd();

  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

class TcpChannel {
 public:
  // Connects to `host`:`port` (a name or an address, IPv4 or IPv6), retrying until `timeout`
  // so the client may start before the server listens.
  static TcpChannel connect(const std::string& host,
                            std::uint16_t port,
                            std::chrono::milliseconds timeout);

  explicit TcpChannel(SocketFd socket, std::chrono::milliseconds timeout)
      : socket_(std::move(socket)), timeout_(timeout) {}

  // Sends `line` and a newline; `line` must not hold one.
  void send_line(std::string_view line);

  // The next line, without its newline. Fails when the peer closes or stays silent past the
  // timeout, or sends a line longer than kMaxLine.
  std::string receive_line();

  // Both sides call it; neither returns before the other has reached it.
  void barrier(std::string_view name);

  static constexpr std::size_t kMaxLine = 4096;

 private:
  SocketFd socket_;
  std::chrono::milliseconds timeout_;
  std::string pending_;  // bytes received past the last line returned
};

class TcpListener {
 public:
  // Listens on `port` of every local address (0: a port the system picks, for tests).
  explicit TcpListener(std::uint16_t port);

  std::uint16_t port() const { return port_; }

  // The first connection within `timeout`; its channel waits at most `timeout` per line.
  TcpChannel accept(std::chrono::milliseconds timeout);

 private:
  SocketFd socket_;
  std::uint16_t port_ = 0;
};

}  // namespace railsim::tools::probes
