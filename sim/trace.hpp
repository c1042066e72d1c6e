// File: sim/trace.hpp
// Trace: a timeline of one simulation for a trace viewer. Named tracks are grouped under named
// processes; a track holds complete spans (what went on from when to when), a counter track
// holds samples of one value over time. The caller names everything: sim/ knows no model.
// tools/chrome_trace.hpp writes a Trace as Chrome/Perfetto JSON.
#pragma once

#include "sim/time.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace railsim::sim {

struct TraceProcessId {
  std::uint32_t index = 0;

  constexpr bool operator==(const TraceProcessId&) const = default;
};

struct TraceTrackId {
  std::uint32_t index = 0;

  constexpr bool operator==(const TraceTrackId&) const = default;
};

struct TraceCounterId {
  std::uint32_t index = 0;

  constexpr bool operator==(const TraceCounterId&) const = default;
};

// A string the trace holds once however often it is used (span names, argument keys).
struct TraceText {
  std::uint32_t index = 0;

  constexpr bool operator==(const TraceText&) const = default;
};

// What a viewer shows for a span when it is selected: {"bytes", std::int64_t{4096}}.
using TraceValue = std::variant<std::int64_t, double, std::string>;

struct TraceArg {
  std::string_view key;
  TraceValue value;
};

struct TraceProcess {
  std::string name;
};

struct TraceTrack {
  TraceProcessId process;
  std::string name;
};

struct TraceCounter {
  TraceProcessId process;
  std::string name;
  std::string unit;  // what the values measure, as the viewer labels them: "GB/s"
};

struct TraceSpan {
  TraceTrackId track;
  TraceText name;
  std::uint32_t first_arg = 0;  // its arguments are args()[first_arg, first_arg + arg_count)
  std::uint32_t arg_count = 0;
  SimTime begin;
  SimTime end;  // >= begin
};

struct TraceStoredArg {
  TraceText key;
  TraceValue value;
};

struct TraceSample {
  TraceCounterId counter;
  SimTime time;
  double value = 0.0;  // in the counter's unit, from `time` until its next sample
};

// The memory bound: past these counts further spans (samples) are dropped and only counted,
// so that a long run cannot exhaust memory, nor write a file no viewer can open. At the
// defaults the spans take 64 MB (32 bytes each, plus 48 per argument) and the samples 48 MB,
// and the JSON stays under about 500 MB, which ui.perfetto.dev still opens.
// A moment the whole timeline is marked at: a fault applied, a link restored.
struct TraceInstant {
  TraceText name;
  SimTime time;
};

struct TraceLimits {
  std::size_t max_spans = 2'000'000;
  std::size_t max_samples = 2'000'000;
};

// Display order is creation order: processes in the order added, and tracks, then counters,
// in the order added within their process. Spans on one track should nest or follow one
// another (viewers draw one track as a stack); what overlaps goes on tracks of its own. A
// counter's name should be unique within its process, since viewers merge namesakes. Adding
// costs amortised O(1) plus a lookup of the span name and argument keys among the distinct
// strings seen so far.
class Trace {
 public:
  explicit Trace(TraceLimits limits = {}) : limits_(limits) {}

  TraceProcessId add_process(std::string name);

  // Throws InputError for a process id not returned by add_process.
  TraceTrackId add_track(TraceProcessId process, std::string name);
  TraceCounterId add_counter(TraceProcessId process, std::string name, std::string unit);

  // Throws InputError for a dangling track id or an end before the begin.
  void add_span(TraceTrackId track,
                std::string_view name,
                SimTime begin,
                SimTime end,
                std::initializer_list<TraceArg> args = {});

  // Throws InputError for a dangling counter id.
  void add_sample(TraceCounterId counter, SimTime time, double value);

  const std::vector<TraceProcess>& processes() const { return processes_; }

  const std::vector<TraceTrack>& tracks() const { return tracks_; }

  const std::vector<TraceCounter>& counters() const { return counters_; }

  // In the order added.
  const std::vector<TraceSpan>& spans() const { return spans_; }

  const std::vector<TraceSample>& samples() const { return samples_; }

  // A mark across the whole timeline; not limited, since a run has few.
  void add_instant(std::string_view name, SimTime time);

  // In the order added.
  const std::vector<TraceInstant>& instants() const { return instants_; }

  std::span<const TraceStoredArg> args(const TraceSpan& span) const {
    return std::span<const TraceStoredArg>(args_).subspan(span.first_arg, span.arg_count);
  }

  const std::string& text(TraceText id) const { return texts_[id.index]; }

  std::uint64_t dropped_spans() const { return dropped_spans_; }

  std::uint64_t dropped_samples() const { return dropped_samples_; }

  // The earliest time at which a dropped span began or a dropped sample lay: where the
  // recorded timeline stops being complete. Empty when nothing was dropped.
  std::optional<SimTime> first_dropped() const { return first_dropped_; }

 private:
  TraceText intern(std::string_view text);
  void note_dropped(SimTime time);

  TraceLimits limits_;
  std::vector<TraceProcess> processes_;
  std::vector<TraceTrack> tracks_;
  std::vector<TraceCounter> counters_;
  std::vector<TraceSpan> spans_;
  std::vector<TraceStoredArg> args_;
  std::vector<TraceSample> samples_;
  std::vector<TraceInstant> instants_;
  std::vector<std::string> texts_;
  std::map<std::string, TraceText, std::less<>> text_ids_;
  std::uint64_t dropped_spans_ = 0;
  std::uint64_t dropped_samples_ = 0;
  std::optional<SimTime> first_dropped_;
};

}  // namespace railsim::sim
