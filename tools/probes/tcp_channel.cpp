// File: tools/probes/tcp_channel.cpp
// POSIX sockets with poll(2) for every wait. The listener takes IPv6 with IPv4 mapped into it
// where the host allows, else IPv4 alone.
#include "tools/probes/tcp_channel.hpp"

#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace railsim::tools::probes {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text() { return std::strerror(errno); }

double in_seconds(std::chrono::milliseconds timeout) {
  return std::chrono::duration<double>(timeout).count();
}

// Waits until `fd` is ready for `events` or the deadline passes; false on the deadline.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      return false;
    }
    pollfd entry{fd, events, 0};
    const int ready = ::poll(&entry, 1, static_cast<int>(left.count()));
    if (ready > 0) {
      return true;
    }
    if (ready < 0 && errno != EINTR) {
      throw ProbeFailure("out-of-band connection: poll failed: " + errno_text());
    }
  }
}

void set_no_delay(int fd) {
  // The barriers are tiny messages; Nagle's algorithm would hold each for an acknowledgement.
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

SocketFd::SocketFd(SocketFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

SocketFd& SocketFd::operator=(SocketFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

SocketFd::~SocketFd() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

TcpChannel TcpChannel::connect(const std::string& host,
                               std::uint16_t port,
                               std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int status = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (status != 0) {
    throw ProbeFailure(
        fmt::format("cannot resolve the server '{}': {}", host, ::gai_strerror(status)));
  }
  const Clock::time_point deadline = Clock::now() + timeout;
  std::string last_error = "no address";
  for (;;) {
    for (const addrinfo* at = found; at != nullptr; at = at->ai_next) {
      SocketFd socket(::socket(at->ai_family, at->ai_socktype, at->ai_protocol));
      if (socket.get() < 0) {
        last_error = errno_text();
        continue;
      }
      if (::connect(socket.get(), at->ai_addr, at->ai_addrlen) == 0) {
        ::freeaddrinfo(found);
        set_no_delay(socket.get());
        return TcpChannel(std::move(socket), timeout);
      }
      last_error = errno_text();
    }
    if (Clock::now() >= deadline) {
      break;
    }
    // The server may not listen yet: the two sides may be started in either order.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ::freeaddrinfo(found);
  throw ProbeFailure(fmt::format("cannot connect to {} port {} within {} s: {}", host, port,
                                 in_seconds(timeout), last_error));
}

void TcpChannel::send_line(std::string_view line) {
  std::string data(line);
  data += '\n';
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(socket_.get(), data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw ProbeFailure("out-of-band connection: send failed: " + errno_text());
    }
    sent += static_cast<std::size_t>(n);
  }
}

std::string TcpChannel::receive_line() {
  const Clock::time_point deadline = Clock::now() + timeout_;
  for (;;) {
    const std::size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return line;
    }
    if (pending_.size() > kMaxLine) {
      throw ProbeFailure(fmt::format(
          "out-of-band connection: the peer sent a line longer than {} bytes", kMaxLine));
    }
    if (!wait_for(socket_.get(), POLLIN, deadline)) {
      throw ProbeFailure(fmt::format("out-of-band connection: the peer sent nothing for {} s",
                                     in_seconds(timeout_)));
    }
    char buffer[1024];
    const ssize_t n = ::recv(socket_.get(), buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw ProbeFailure("out-of-band connection: receive failed: " + errno_text());
    }
    if (n == 0) {
      throw ProbeFailure(
          "out-of-band connection: the peer closed it (did it fail? see its output)");
    }
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

void TcpChannel::barrier(std::string_view name) {
  const std::string mark = fmt::format("barrier {}", name);
  send_line(mark);
  const std::string got = receive_line();
  if (got != mark) {
    throw ProbeFailure(
        fmt::format("out-of-band connection: expected the peer at '{}', got '{}'", mark, got));
  }
}

TcpListener::TcpListener(std::uint16_t port) {
  const int one = 1;
  SocketFd socket(::socket(AF_INET6, SOCK_STREAM, 0));
  if (socket.get() >= 0) {
    const int zero = 0;
    ::setsockopt(socket.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    ::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_any;
    address.sin6_port = htons(port);
    if (::bind(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      socket = SocketFd();
    }
  }
  if (socket.get() < 0) {
    socket = SocketFd(::socket(AF_INET, SOCK_STREAM, 0));
    if (socket.get() < 0) {
      throw ProbeFailure("cannot open a TCP socket: " + errno_text());
    }
    ::setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(port);
    if (::bind(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      throw ProbeFailure(fmt::format("cannot listen on TCP port {}: {}", port, errno_text()));
    }
  }
  if (::listen(socket.get(), 1) != 0) {
    throw ProbeFailure(fmt::format("cannot listen on TCP port {}: {}", port, errno_text()));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(socket.get(), reinterpret_cast<sockaddr*>(&bound), &length);
  port_ =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
  socket_ = std::move(socket);
}

TcpChannel TcpListener::accept(std::chrono::milliseconds timeout) {
  if (!wait_for(socket_.get(), POLLIN, Clock::now() + timeout)) {
    throw ProbeFailure(
        fmt::format("no client connected to TCP port {} within {} s", port_, in_seconds(timeout)));
  }
  SocketFd peer(::accept(socket_.get(), nullptr, nullptr));
  if (peer.get() < 0) {
    throw ProbeFailure("accepting the client failed: " + errno_text());
  }
  set_no_delay(peer.get());
  return TcpChannel(std::move(peer), timeout);
}

}  // namespace railsim::tools::probes
