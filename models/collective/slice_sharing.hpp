// File: models/collective/slice_sharing.hpp
// SliceSharing: when each connection of a pipelined plan (a ring's hops, a tree's edges) has its
// last transfer held, every channel's slices moving together, each at the share of its links
// that the transfers crossing them at the same instant leave it: processor sharing. The
// pipelined execution's timing (channel_timing.hpp) for plans small enough to walk transfer by
// transfer.
//
// The model. A connection sends its transfers one at a time, in order. Transfer t may start once
// the connection has drained transfer t - 1 and, where it forwards data, once every input
// connection's transfer t - offset has been held: drained, then `delay` later (the path's
// latency plus NCCL's hop latency). While it sends, a transfer takes its route (one path, or
// one per adaptive-routing lane, the bytes split evenly), and each lane gets on each of its links
// an even share among the lanes of all the transfers on that link at that instant: processor
// sharing. The connection moves at its slowest lane's share times its lane count, at most the
// protocol's cap, and never below `floor`: the rate the flow groups found with every connection
// of the collective sending at once. Where some of a link's flows are held back on other links,
// max-min gives the rest more than an even share, which even shares miss; the floor keeps that
// rate, as the pipelined execution's pace of a connection always was (ring_lowering.hpp). The
// rates change only when a transfer starts or drains, so the sharing is an event loop over those
// instants, with no time step: the chunk-accurate run's dynamics (transfer_dag.hpp), with even
// shares and the flow groups' rate in place of one max-min solve per event.
//
// A protocol that streams (LL, LL128: transfer_dag.hpp) forwards data as it arrives: transfer t
// may start once every input's transfer t - offset has started and its delay has passed, and it
// is held no sooner than the latest of those is held, plus its own delay.
//
// Worked example: two connections cross one 100 B/s link, each sends one 100-byte transfer, the
// second starts at 0.5 s, no floor. The first moves alone at 100 B/s until 0.5 s (50 bytes),
// then both at 50 B/s: the first drains at 1.5 s, the second has 50 bytes left and moves alone
// again, draining at 2.0 s.
//
// Cost: O(transfers x log connections) for the events, plus on each start and drain a rate update
// of every connection sending on its shared links (a transfer that follows its connection's
// previous one at once changes nobody's share). A link only one connection crosses is a fixed
// cap of its route, and one whose even share among all its crossers can never hold a lane below
// the lane's cap is left out, so the sharing is tracked on the few links that can bind. About a
// microsecond per transfer on 16-channel rings of dgx-h100 nodes: a few hundred times the
// per-connection recurrence, a fifth of the chunk-accurate run (docs/validation.md).
#pragma once

#include "sim/bytes.hpp"
#include "sim/flow_network.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace railsim::models {

// Plans with up to this many transfers may be timed by slice sharing; longer ones by their
// algorithm's per-connection recurrence or its closed form (channel_timing.hpp).
inline constexpr std::int64_t kSliceSharingLimit = 20'000'000;

// No connection moves below its floor (nor below an even share of its links among all that
// cross them) nor faster than alone on its links, so, the timing being monotone in every
// transfer's duration, slice sharing lands between the per-connection recurrence at those rates
// (and above a channel's lower bound, its drain). Where those are this close for every channel,
// sharing cannot move the result by more, and the channels' timing skips it
// (channel_timing.hpp): bandwidth-bound plans, whose fill and stalls are a small part of their
// time, plans whose connections all get their floor alone (an uncontested fabric), and a fault's
// few slow connections among many that get their even share. 2%: the most two timing paths may
// differ by on one call (docs/validation.md); the recurrence that stands in is the slower bound,
// and where the bounds are within it twice over, their geometric mean is (channel_timing.hpp). A
// fault on one port of a 10-node DGX H100 cluster puts its 2 GiB NVLS Tree AllReduce's bounds 0.75%
// apart: sharing cost 0.5 CPU-s there, and moved the time by 0.16%.
inline constexpr double kSliceSharingTolerance = 0.02;

// A sharing run re-rates the connections that contest a link each time one of them starts or
// drains a transfer: cost grows with transfers times contenders, not transfers alone (a GB200
// NVL72 NVLS Tree over 20 racks: 72 heads a node, 70 CPU-s). Past this many re-rates (work()),
// about half a second, the channels' timing takes the recurrence at the floor instead, which is
// never faster than sharing: on the rings and trees of dgx-h100 that crossed it the two agree
// to the printed digit, on 20 NVL72 racks the recurrence is 2% slower (docs/performance.md).
inline constexpr double kSliceSharingWorkLimit = 5e7;

struct SharingRoute {
  std::vector<std::vector<sim::LinkId>> lanes;  // at least one; the bytes split evenly
  double delay_s = 0.0;                         // drained -> held by the receiver
};

struct SharingConnection {
  std::vector<SharingRoute>
      routes;  // at least one: transfer t takes route t mod count (queue pairs)
  std::int64_t transfers = 0;
  // Transfer t forwards what every input sent as its transfer t - offset, when t mod period >=
  // offset (always when period is 0); otherwise it waits on nothing but the connection.
  std::vector<std::uint32_t> inputs;
  std::int64_t offset = 0;
  std::int64_t period = 0;
  double cap = std::numeric_limits<double>::infinity();  // payload B/s: the protocol's limit
  // After its transfer t drains, where (t + 1) mod post_every is 0, the connection waits post_s
  // before it sends again (a step's post: collective_timing.hpp).
  double post_s = 0.0;
  std::int64_t post_every = 1;
  // How many connections this one stands for: twins, each in its own channel, that cross the
  // same links with the same transfers and so move in lockstep (channel_timing.hpp). A link it
  // crosses counts its lanes that many times.
  std::uint32_t copies = 1;
};

// The payload bytes of transfer t of a connection.
using TransferBytes = std::function<sim::Bytes(std::size_t connection, std::int64_t transfer)>;

class SliceSharing {
 public:
  // Keeps the connections and the links' capacities as `network` has them now. Which links can
  // bind is worked out on the first held_seconds or work: most plans never need the sharing run
  // (kSliceSharingTolerance), and that analysis costs more than the recurrence that rules it out.
  // Payload moves as wire_factor wire bytes per byte (rounded up per transfer, as the chunk run
  // sends it); `streams`: the protocol forwards data as it arrives.
  SliceSharing(const sim::FlowNetwork& network,
               std::vector<SharingConnection> connections,
               double wire_factor,
               bool streams);

  // Seconds from the common start until each connection's last transfer is held (0 for one with
  // no transfer), with connection i never slower than floor[i] payload B/s.
  std::vector<double> held_seconds(const std::vector<double>& floor, const TransferBytes& bytes);

  std::size_t connection_count() const { return connection_count_; }

  // Per connection, payload B/s: the fastest any of its transfers can move, alone on its links
  // with its twins (its cap, and each lane's links split among the route's own lanes and their
  // copies). A sharing run never
  // moves a connection faster than this or its floor, so the recurrence at those rates bounds
  // the run from below (channel_timing.hpp). Worked out on the first call, which comes before
  // any held_seconds or work.
  const std::vector<double>& alone_rates();

  // What a sharing run costs, in re-rated connections: each connection's transfers times the
  // lanes that can cross its route's contested links (each of its starts and drains re-rates
  // them). Prepares the sharing if it was not.
  double work();

 private:
  // Per link a route crosses, by link index: how many of its lanes cross it.
  using LaneCounts = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

  // Per kept connection and route, its LaneCounts, worked out once for the alone rates and the
  // preparation.
  const std::vector<std::vector<LaneCounts>>& lane_counts();

  // Builds connections_, shared_capacity_ and users_ from the kept connections.
  void prepare();

  // A link that can bind, as one route sees it: lanes of the route that cross it.
  struct SharedLink {
    std::uint32_t link = 0;  // index into shared_capacity_
    std::uint32_t lanes = 0;
  };

  struct Route {
    double lane_share = 0.0;  // wire B/s: the lane's cap and its unshared links
    std::uint32_t lanes = 1;
    double delay_s = 0.0;
    std::vector<SharedLink> shared;
  };

  struct Connection {
    std::vector<Route> routes;
    std::int64_t transfers = 0;
    std::vector<std::uint32_t> inputs;
    std::int64_t offset = 0;
    std::int64_t period = 0;
    double post_s = 0.0;
    std::int64_t post_every = 1;
    std::uint32_t first_slot = 0;  // its inputs' FIFOs
  };

  std::vector<SharingConnection> kept_;  // until prepare()
  std::vector<double> link_capacity_;    // per link, wire B/s, as constructed; until prepare()
  std::vector<std::vector<LaneCounts>> lane_counts_;  // until prepare()
  std::size_t connection_count_ = 0;
  std::vector<double> alone_rates_;
  bool prepared_ = false;
  double work_ = 0.0;

  std::vector<Connection> connections_;
  std::vector<double> shared_capacity_;  // per shared link, wire B/s

  // Who forwards a connection's data: the user, and the user's FIFO of what it was sent.
  struct User {
    std::uint32_t connection = 0;
    std::uint32_t slot = 0;  // into the run's FIFOs, one per (user, input)
  };

  std::vector<std::vector<User>> users_;  // per connection
  std::size_t slots_ = 0;
  double wire_factor_ = 1.0;
  bool streams_ = false;

  struct Run;
};

}  // namespace railsim::models
