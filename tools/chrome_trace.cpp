// File: tools/chrome_trace.cpp
// The Trace Event Format writer. Events are written one per line as they are formed, so a
// trace of millions of spans never becomes one JSON document in memory.
#include "tools/chrome_trace.hpp"

#include "railsim/version.hpp"

#include "tools/cli_support/output_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace railsim::tools {
namespace {

// Keys in the order written, so the file reads name, phase, time, place.
using Json = nlohmann::ordered_json;

// The format's times are microseconds. Dividing the integer picoseconds (rather than
// multiplying by 1e-6) rounds correctly: 2'000'000 ps is exactly 2.0.
double to_trace_us(sim::Duration d) { return static_cast<double>(d.count()) / 1e6; }

double to_trace_us(sim::SimTime t) { return to_trace_us(t.time_since_epoch()); }

// Ids start at 1: viewers that also read system traces take 0 for the idle task.
std::uint32_t pid_of(sim::TraceProcessId process) { return process.index + 1; }

std::uint32_t tid_of(sim::TraceTrackId track) { return track.index + 1; }

Json json_of(const sim::TraceValue& value) {
  return std::visit([](const auto& v) { return Json(v); }, value);
}

// Writes the events of the "traceEvents" array, comma-separated, one per line.
class EventList {
 public:
  explicit EventList(std::ostream& out) : out_(out) {}

  void add(const Json& event) {
    out_ << (empty_ ? "\n" : ",\n");
    // Names come from scenario files: replace bytes that are not UTF-8 rather than throw.
    out_ << event.dump(-1, ' ', false, Json::error_handler_t::replace);
    empty_ = false;
  }

 private:
  std::ostream& out_;
  bool empty_ = true;
};

// A process's metadata event, or a track's where `tid` is given.
Json metadata(const char* name,
              std::uint32_t pid,
              std::optional<std::uint32_t> tid,
              const Json& args) {
  Json event{{"name", name}, {"ph", "M"}, {"pid", pid}};
  if (tid) {
    event["tid"] = *tid;
  }
  event["args"] = args;
  return event;
}

void add_metadata(const sim::Trace& trace, EventList& events) {
  for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
    const std::uint32_t pid = pid_of(sim::TraceProcessId{p});
    events.add(metadata("process_name", pid, std::nullopt, {{"name", trace.processes()[p].name}}));
    events.add(metadata("process_sort_index", pid, std::nullopt, {{"sort_index", p}}));
  }
  for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
    const sim::TraceTrack& track = trace.tracks()[t];
    const std::uint32_t pid = pid_of(track.process);
    const std::uint32_t tid = tid_of(sim::TraceTrackId{t});
    events.add(metadata("thread_name", pid, tid, {{"name", track.name}}));
    events.add(metadata("thread_sort_index", pid, tid, {{"sort_index", t}}));
  }
}

// Spans by begin, the longer first among equal begins, then as added: viewers build each
// track's stack from this order, so an enclosing span must come before what it encloses.
std::vector<std::size_t> span_order(const std::vector<sim::TraceSpan>& spans) {
  std::vector<std::size_t> order(spans.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return spans[a].begin != spans[b].begin ? spans[a].begin < spans[b].begin
                                            : spans[a].end > spans[b].end;
  });
  return order;
}

void add_spans(const sim::Trace& trace, EventList& events) {
  for (std::size_t i : span_order(trace.spans())) {
    const sim::TraceSpan& span = trace.spans()[i];
    Json event{{"name", trace.text(span.name)},
               {"ph", "X"},
               {"ts", to_trace_us(span.begin)},
               {"dur", to_trace_us(span.end - span.begin)},
               {"pid", pid_of(trace.tracks()[span.track.index].process)},
               {"tid", tid_of(span.track)}};
    if (span.arg_count > 0) {
      Json args = Json::object();
      for (const sim::TraceStoredArg& arg : trace.args(span)) {
        args[trace.text(arg.key)] = json_of(arg.value);
      }
      event["args"] = std::move(args);
    }
    events.add(event);
  }
}

// Samples by time, then as added.
std::vector<std::size_t> sample_order(const sim::Trace& trace) {
  std::vector<std::size_t> order(trace.samples().size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return trace.samples()[a].time < trace.samples()[b].time;
  });
  return order;
}

// Per counter, whether it is written: the `most` with the largest integral of their step
// function over time, ties to the earlier; every counter when `most` is 0.
std::vector<bool> written_counters(const sim::Trace& trace,
                                   const std::vector<std::size_t>& order,
                                   std::size_t most) {
  const std::size_t count = trace.counters().size();
  if (most == 0 || most >= count) {
    return std::vector<bool>(count, true);
  }
  std::vector<double> area(count, 0.0);
  std::vector<std::optional<sim::TraceSample>> last(count);
  for (const std::size_t i : order) {
    const sim::TraceSample& sample = trace.samples()[i];
    std::optional<sim::TraceSample>& previous = last[sample.counter.index];
    if (previous) {
      area[sample.counter.index] += previous->value * to_trace_us(sample.time - previous->time);
    }
    previous = sample;
  }
  std::vector<std::size_t> ranked(count);
  std::iota(ranked.begin(), ranked.end(), std::size_t{0});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return area[a] > area[b]; });
  std::vector<bool> written(count, false);
  for (std::size_t k = 0; k < most; ++k) {
    written[ranked[k]] = true;
  }
  return written;
}

void add_samples(const sim::Trace& trace,
                 const std::vector<std::size_t>& order,
                 const std::vector<bool>& written,
                 EventList& events) {
  for (std::size_t i : order) {
    const sim::TraceSample& sample = trace.samples()[i];
    if (!written[sample.counter.index]) {
      continue;
    }
    const sim::TraceCounter& counter = trace.counters()[sample.counter.index];
    // A counter event's args are its series; one series per counter, named by the unit, so
    // Perfetto titles the track "<name> <unit>".
    events.add(Json{{"name", counter.name},
                    {"ph", "C"},
                    {"ts", to_trace_us(sample.time)},
                    {"pid", pid_of(counter.process)},
                    {"args", {{counter.unit.empty() ? "value" : counter.unit, sample.value}}}});
  }
}

void add_instants(const sim::Trace& trace, EventList& events) {
  for (const sim::TraceInstant& instant : trace.instants()) {
    events.add(Json{{"name", trace.text(instant.name)},
                    {"ph", "i"},
                    {"s", "g"},
                    {"ts", to_trace_us(instant.time)}});
  }
}

void add_truncation_mark(const sim::Trace& trace, EventList& events) {
  if (!trace.first_dropped()) {
    return;
  }
  events.add(Json{{"name", fmt::format("trace truncated: {} spans and {} counter samples dropped "
                                       "(the record is incomplete from here on)",
                                       trace.dropped_spans(), trace.dropped_samples())},
                  {"ph", "i"},
                  {"s", "g"},
                  {"ts", to_trace_us(*trace.first_dropped())}});
}

}  // namespace

void write_chrome_trace(const sim::Trace& trace,
                        std::ostream& out,
                        const ChromeTraceOptions& options) {
  out << R"({"traceEvents":[)";
  EventList events(out);
  add_metadata(trace, events);
  add_spans(trace, events);
  const std::vector<std::size_t> order = sample_order(trace);
  const std::vector<bool> written = written_counters(trace, order, options.max_counters);
  add_samples(trace, order, written, events);
  add_instants(trace, events);
  add_truncation_mark(trace, events);
  const Json other{{"generator", fmt::format("railsim {}", kVersion)},
                   {"dropped_spans", trace.dropped_spans()},
                   {"dropped_counter_samples", trace.dropped_samples()},
                   {"counters", trace.counters().size()},
                   {"counters_written", std::count(written.begin(), written.end(), true)}};
  // "ns" only sets the viewer's display unit: "ts" and "dur" stay microseconds.
  out << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" << other.dump() << "}\n";
}

void write_chrome_trace_file(const sim::Trace& trace,
                             const std::string& path,
                             const ChromeTraceOptions& options) {
  write_output_file(
      path, [&](std::ostream& out) { write_chrome_trace(trace, out, options); }, "--trace");
}

}  // namespace railsim::tools
