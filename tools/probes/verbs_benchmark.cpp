// File: tools/probes/verbs_benchmark.cpp
#include "tools/probes/verbs_benchmark.hpp"

#include "tools/probes/probe_run.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>

namespace railsim::tools::probes {
namespace {

using Clock = std::chrono::steady_clock;

// How many empty polls pass between looks at the clock: often enough to notice a dead peer
// within the timeout, rarely enough not to slow the poll loop.
constexpr int kPollsPerClockCheck = 1 << 14;

class Deadline {
 public:
  explicit Deadline(std::chrono::milliseconds timeout, std::string_view what)
      : timeout_(timeout), what_(what), end_(Clock::now() + timeout) {}

  // Call on every empty poll; fails once the deadline has passed.
  void tick() {
    if (++polls_ < kPollsPerClockCheck) {
      return;
    }
    polls_ = 0;
    if (Clock::now() > end_) {
      throw ProbeFailure(fmt::format("{}: nothing for {} s (is the peer still running?)", what_,
                                     static_cast<double>(timeout_.count()) / 1000.0));
    }
  }

 private:
  std::chrono::milliseconds timeout_;
  std::string_view what_;
  Clock::time_point end_;
  int polls_ = 0;
};

void post_write(VerbsConnection& connection,
                const QpEndpoint& remote,
                std::int64_t size_bytes,
                bool signaled,
                std::uint64_t id) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<std::uintptr_t>(connection.send_region());
  sge.length = static_cast<std::uint32_t>(size_bytes);
  sge.lkey = connection.lkey();
  ibv_send_wr wr{};
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
  wr.wr.rdma.remote_addr = remote.addr;
  wr.wr.rdma.rkey = remote.rkey;
  ibv_send_wr* bad = nullptr;
  const int error = ibv_post_send(connection.qp(), &wr, &bad);
  if (error != 0) {
    throw ProbeFailure(fmt::format("ibv_post_send failed: {}", std::strerror(error)));
  }
}

// Polls the CQ once; returns how many completions it took into `done` (their wr_ids).
int poll_completions(VerbsConnection& connection, std::array<ibv_wc, 16>& done) {
  const int n = ibv_poll_cq(connection.cq(), static_cast<int>(done.size()), done.data());
  if (n < 0) {
    throw ProbeFailure("ibv_poll_cq failed");
  }
  for (int i = 0; i < n; ++i) {
    const ibv_wc& wc = done[static_cast<std::size_t>(i)];
    if (wc.status != IBV_WC_SUCCESS) {
      throw ProbeFailure(fmt::format("an RDMA write completed with '{}' (vendor error {:#x})",
                                     ibv_wc_status_str(wc.status), wc.vendor_err));
    }
  }
  return n;
}

void wait_one_completion(VerbsConnection& connection, Deadline& deadline) {
  std::array<ibv_wc, 16> done{};
  while (poll_completions(connection, done) == 0) {
    deadline.tick();
  }
}

void check_fits(const QpEndpoint& remote, std::int64_t size_bytes) {
  if (static_cast<std::uint64_t>(size_bytes) > remote.buffer_bytes) {
    throw ProbeFailure(fmt::format("the peer's buffer holds {} bytes, the message has {}",
                                   remote.buffer_bytes, size_bytes));
  }
}

std::uint8_t mark(std::int64_t iteration) {
  // Never 0, the value of a cleared region; consecutive iterations always differ.
  return static_cast<std::uint8_t>(iteration % 255 + 1);
}

void wait_for_mark(const volatile std::uint8_t* last, std::uint8_t expected, Deadline& deadline) {
  while (*last != expected) {
    deadline.tick();
  }
}

}  // namespace

BandwidthStats measure_write_bw(VerbsConnection& connection,
                                const QpEndpoint& remote,
                                std::int64_t size_bytes,
                                std::int64_t iterations,
                                int tx_depth,
                                int cq_mod,
                                std::chrono::milliseconds timeout) {
  check_fits(remote, size_bytes);
  Deadline deadline(timeout, "write_bw: waiting for completions");
  std::vector<BatchCompletion> batches;
  batches.reserve(static_cast<std::size_t>(iterations / cq_mod + 1));
  std::array<ibv_wc, 16> done{};
  std::int64_t posted = 0;
  std::int64_t completed = 0;
  const Clock::time_point start = Clock::now();
  while (completed < iterations) {
    while (posted < iterations && posted - completed < tx_depth) {
      ++posted;
      // wr_id = the number of writes posted up to this one, so a completion says how far the
      // queue has drained (writes on one QP complete in order).
      const bool signaled = posted % cq_mod == 0 || posted == iterations;
      post_write(connection, remote, size_bytes, signaled, static_cast<std::uint64_t>(posted));
    }
    const int n = poll_completions(connection, done);
    if (n == 0) {
      deadline.tick();
      continue;
    }
    const double at_s = std::chrono::duration<double>(Clock::now() - start).count();
    for (int i = 0; i < n; ++i) {
      const auto upto = static_cast<std::int64_t>(done[static_cast<std::size_t>(i)].wr_id);
      batches.push_back(BatchCompletion{upto - completed, at_s});
      completed = upto;
    }
  }
  return summarize_bandwidth(size_bytes, batches);
}

std::vector<double> measure_write_lat(VerbsConnection& connection,
                                      const QpEndpoint& remote,
                                      std::int64_t size_bytes,
                                      std::int64_t iterations,
                                      std::chrono::milliseconds timeout) {
  check_fits(remote, size_bytes);
  Deadline deadline(timeout, "write_lat: waiting for the server's answer");
  const volatile std::uint8_t* last = connection.receive_region() + size_bytes - 1;
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(iterations));
  for (std::int64_t i = 0; i < iterations; ++i) {
    connection.send_region()[size_bytes - 1] = mark(i);
    const Clock::time_point start = Clock::now();
    post_write(connection, remote, size_bytes, true, static_cast<std::uint64_t>(i));
    wait_for_mark(last, mark(i), deadline);
    const Clock::time_point end = Clock::now();
    // Our write's completion came with its acknowledgement, before the answer; taking it now
    // keeps it out of the timed span.
    wait_one_completion(connection, deadline);
    samples_us.push_back(std::chrono::duration<double, std::micro>(end - start).count() / 2.0);
  }
  return samples_us;
}

void serve_write_lat(VerbsConnection& connection,
                     const QpEndpoint& remote,
                     std::int64_t size_bytes,
                     std::int64_t iterations,
                     std::chrono::milliseconds timeout) {
  check_fits(remote, size_bytes);
  Deadline deadline(timeout, "write_lat: waiting for the client's write");
  const volatile std::uint8_t* last = connection.receive_region() + size_bytes - 1;
  for (std::int64_t i = 0; i < iterations; ++i) {
    wait_for_mark(last, mark(i), deadline);
    // The previous answer's completion is taken only now, off the path between the client's
    // write arriving and this answer leaving.
    if (i > 0) {
      wait_one_completion(connection, deadline);
    }
    connection.send_region()[size_bytes - 1] = mark(i);
    post_write(connection, remote, size_bytes, true, static_cast<std::uint64_t>(i));
  }
  if (iterations > 0) {
    wait_one_completion(connection, deadline);
  }
}

void clear_receive(VerbsConnection& connection, std::int64_t size_bytes) {
  std::memset(connection.receive_region(), 0, static_cast<std::size_t>(size_bytes));
}

}  // namespace railsim::tools::probes
