// File: models/collective/pipeline_time.cpp
// The ring pipeline's recurrence, slice by slice and in closed form (see the header).
#include "models/collective/pipeline_time.hpp"

#include "sim/assert.hpp"
#include "sim/ceil_div.hpp"
#include "sim/index.hpp"

#include <algorithm>
#include <utility>

namespace railsim::models {
namespace {

using sim::at;

double seconds_of(sim::Bytes bytes, const ConnectionPace& pace) {
  return static_cast<double>(bytes.count) * pace.seconds_per_byte;
}

}  // namespace

double pipeline_seconds(const RingPlan& plan,
                        int channel,
                        const std::vector<ConnectionPace>& pace,
                        bool streams) {
  RAILSIM_ASSERT(pace.size() == at(plan.connections()), "one pace per connection");
  const int n = plan.ranks;
  const auto slot = [n](int slice, int position) { return at(slice) * at(n) + at(position); };
  // free[p]: when connection p's latest slice left. held / was_held: when what position p
  // sent of a slice at this step / the previous one is held by position p + 1; opened /
  // was_opened: when its first byte is (streamed protocols only).
  std::vector<double> free(at(n), 0.0);
  std::vector<double> held(at(plan.chunking.slices) * at(n), 0.0);
  std::vector<double> was_held = held;
  std::vector<double> opened = held;
  std::vector<double> was_opened = held;
  double done = 0.0;
  int step = -1;
  for_each_slice(plan, channel, [&](int /*loop*/, int s, int k, int p, sim::Bytes bytes) {
    if (s != step) {
      step = s;
      std::swap(held, was_held);
      std::swap(opened, was_opened);
    }
    const ConnectionPace& c = pace[at(p)];
    const std::size_t input = slot(k, (p - 1 + n) % n);
    double start = free[at(p)];
    if (s > 0) {
      start = std::max(start, streams ? was_opened[input] : was_held[input]);
    }
    const double end = start + seconds_of(bytes, c);
    free[at(p)] = k == plan.chunking.slices - 1 ? end + c.post_s : end;
    const double last = streams && s > 0 ? std::max(end, was_held[input]) : end;
    held[slot(k, p)] = last + c.delay_s;
    opened[slot(k, p)] = start + c.delay_s;
    done = std::max(done, last + c.delay_s);
  });
  return done;
}

double pipeline_seconds_closed_form(const RingPlan& plan,
                                    int channel,
                                    const std::vector<ConnectionPace>& pace,
                                    bool streams) {
  RAILSIM_ASSERT(pace.size() == at(plan.connections()), "one pace per connection");
  const std::size_t n = pace.size();
  if (n == 0) {
    return 0.0;
  }
  const RingPipeline pipe = pipeline(plan, channel);
  ConnectionPace slowest;
  double longest_delay_s = 0.0;
  for (const ConnectionPace& c : pace) {
    slowest.seconds_per_byte = std::max(slowest.seconds_per_byte, c.seconds_per_byte);
    slowest.post_s = std::max(slowest.post_s, c.post_s);
    longest_delay_s = std::max(longest_delay_s, c.delay_s);
  }
  const sim::Bytes most =
      *std::max_element(pipe.connection_bytes.begin(), pipe.connection_bytes.end());
  const double posts =
      static_cast<double>(std::int64_t{pipe.loops} * pipe.active_steps - 1) * slowest.post_s;
  const double drain_s = seconds_of(most, slowest) + posts;
  const sim::Bytes full = sim::bytes(sim::ceil_div(plan.chunking.chunk.count, pipe.slices));
  // A hop's data arrives tau(p) + delay(p) after its sender started it, or streamed, its first
  // byte delay(p) after.
  const auto hop_s = [&](std::size_t p, sim::Bytes slice) {
    return (streams ? 0.0 : seconds_of(slice, pace[p % n])) + pace[p % n].delay_s;
  };
  if (is_ring_chain(plan.op)) {
    const sim::Bytes first = pipe.loops > 1 ? full : pipe.last_loop_slice;
    double fill_s = 0.0;
    for (std::size_t p = 0; p + 1 < n; ++p) {
      fill_s += hop_s(p, first);
    }
    return drain_s + fill_s + pace[n - 1].delay_s;
  }
  const auto loop_stall_s = [&](sim::Bytes slice) {
    const double wait_s = pipe.slices * seconds_of(slice, slowest) + slowest.post_s;
    const auto extra = [&](std::size_t p) { return std::max(0.0, hop_s(p, slice) - wait_s); };
    const auto length = static_cast<std::size_t>(pipe.steps - 1);
    double window = 0.0;
    for (std::size_t s = 0; s < length; ++s) {
      window += extra(s);
    }
    double worst = window;
    for (std::size_t p0 = 1; p0 < n; ++p0) {
      window += extra(p0 + length - 1) - extra(p0 - 1);
      worst = std::max(worst, window);
    }
    return worst;
  };
  const double stall_s =
      static_cast<double>(pipe.loops - 1) * loop_stall_s(full) + loop_stall_s(pipe.last_loop_slice);
  return drain_s + stall_s + longest_delay_s;
}

}  // namespace railsim::models
