// File: sim/trace.cpp
// The trace recorder: validation, the memory bound and the string table behind Trace.
#include "sim/trace.hpp"

#include "sim/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace railsim::sim {
namespace {

// `kind` and `name` say what was being added to the process, for the message.
void check_process(TraceProcessId process,
                   std::size_t count,
                   std::string_view kind,
                   std::string_view name) {
  if (process.index >= count) {
    throw InputError(fmt::format("trace {} '{}': process id {} does not exist: the trace has {}",
                                 kind, name, process.index, count));
  }
}

}  // namespace

TraceProcessId Trace::add_process(std::string name) {
  processes_.push_back(TraceProcess{std::move(name)});
  return TraceProcessId{static_cast<std::uint32_t>(processes_.size() - 1)};
}

TraceTrackId Trace::add_track(TraceProcessId process, std::string name) {
  check_process(process, processes_.size(), "track", name);
  tracks_.push_back(TraceTrack{process, std::move(name)});
  return TraceTrackId{static_cast<std::uint32_t>(tracks_.size() - 1)};
}

TraceCounterId Trace::add_counter(TraceProcessId process, std::string name, std::string unit) {
  check_process(process, processes_.size(), "counter", name);
  counters_.push_back(TraceCounter{process, std::move(name), std::move(unit)});
  return TraceCounterId{static_cast<std::uint32_t>(counters_.size() - 1)};
}

void Trace::add_span(TraceTrackId track,
                     std::string_view name,
                     SimTime begin,
                     SimTime end,
                     std::initializer_list<TraceArg> args) {
  if (track.index >= tracks_.size()) {
    throw InputError(fmt::format("trace span '{}': track id {} does not exist: the trace has {}",
                                 name, track.index, tracks_.size()));
  }
  if (end < begin) {
    throw InputError(fmt::format("trace span '{}': ends at {}, before it begins at {}", name,
                                 format_time(end), format_time(begin)));
  }
  if (spans_.size() >= limits_.max_spans) {
    ++dropped_spans_;
    note_dropped(begin);
    return;
  }
  const auto first_arg = static_cast<std::uint32_t>(args_.size());
  for (const TraceArg& arg : args) {
    args_.push_back(TraceStoredArg{intern(arg.key), arg.value});
  }
  spans_.push_back(TraceSpan{track, intern(name), first_arg,
                             static_cast<std::uint32_t>(args.size()), begin, end});
}

void Trace::add_sample(TraceCounterId counter, SimTime time, double value) {
  if (counter.index >= counters_.size()) {
    throw InputError(fmt::format("trace sample: counter id {} does not exist: the trace has {}",
                                 counter.index, counters_.size()));
  }
  if (samples_.size() >= limits_.max_samples) {
    ++dropped_samples_;
    note_dropped(time);
    return;
  }
  samples_.push_back(TraceSample{counter, time, value});
}

void Trace::add_instant(std::string_view name, SimTime time) {
  instants_.push_back(TraceInstant{intern(name), time});
}

TraceText Trace::intern(std::string_view text) {
  const auto found = text_ids_.find(text);
  if (found != text_ids_.end()) {
    return found->second;
  }
  const TraceText id{static_cast<std::uint32_t>(texts_.size())};
  texts_.emplace_back(text);
  text_ids_.emplace(texts_.back(), id);
  return id;
}

void Trace::note_dropped(SimTime time) {
  first_dropped_ = first_dropped_ ? std::min(*first_dropped_, time) : time;
}

}  // namespace railsim::sim
