// File: models/collective/pipeline_time.hpp
// How long one channel of a ring plan takes when each of its connections moves at a steady
// pace of its own: what the pipelined execution adds to the bytes its flow groups moved.
//
// Connection p sends its slices one at a time, each taking bytes x seconds_per_byte(p); the
// receiver can forward a slice delay(p) after its last byte left (path latency plus NCCL's hop
// latency). With i the connection's previous slice and j the same slice one step earlier, one
// position back:
//   start(p, i+1) = max(end(p, i), end(p-1, j) + delay(p-1)),   end = start + bytes x spb(p)
// and the channel is done when its last slice is held: max over slices of end + delay. This is
// the recurrence the chunk-accurate run follows, with each connection's rate held fixed. After
// the last slice of each step a connection posts for post(p) before it sends again: end(p, i)
// counts it there.
//
// A protocol that streams (LL, LL128: transfer_dag.hpp) forwards a slice as it arrives: the next
// hop may start delay(p-1) after the slice started on the hop before, and holds it no sooner than
// that hop did, plus its own delay:
//   start(p, i+1) = max(end(p, i), start(p-1, j) + delay(p-1)),
//   held(p, i+1) = max(start + bytes x spb(p), held(p-1, j)) + delay(p).
//
// Two evaluations:
// - pipeline_seconds: the recurrence itself, one step per slice transfer of the channel.
// - pipeline_seconds_closed_form: for rings too long for that. With K slices per step, tau(p)
//   the slice time of connection p and tau* the slowest one's, a step's data either waits on
//   its sender's previous slices (K tau*) or on the hop (tau(p) + delay(p)), so a loop of S
//   steps costs K tau* + the worst run of S-1 consecutive hops of max(K tau*, tau(p) +
//   delay(p)) over every starting position, and a Broadcast chain adds tau(p) + delay(p) down
//   its first hops. Exact when every connection has one pace and one delay; an upper bound
//   otherwise, since it lets every loop start its worst run anew. Streamed, a hop's data can
//   move on delay(p) after its sender started it, in place of tau(p) + delay(p). A step's posts
//   add the longest post(p) to each of the connection's steps but its last (K tau* + post).
#pragma once

#include "models/collective/ring_plan.hpp"

#include <vector>

namespace railsim::models {

struct ConnectionPace {
  double seconds_per_byte = 0.0;  // payload bytes, while the connection sends
  double delay_s = 0.0;           // last byte sent -> the receiver can forward it
  double post_s = 0.0;            // after a step's last slice, before the connection sends again
};

// Seconds from the channel's first send to its last slice being held; `pace` has one entry per
// connection of the plan (RingPlan::connections), in ring order; `streams`: the protocol
// forwards slices as they arrive.
double pipeline_seconds(const RingPlan& plan,
                        int channel,
                        const std::vector<ConnectionPace>& pace,
                        bool streams);

double pipeline_seconds_closed_form(const RingPlan& plan,
                                    int channel,
                                    const std::vector<ConnectionPace>& pace,
                                    bool streams);

}  // namespace railsim::models
