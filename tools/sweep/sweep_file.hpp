// File: tools/sweep/sweep_file.hpp
// A sweep file (docs/sweeps.md): a base scenario and the parameters that vary it, each setting
// JSON pointers of the base to one of its values. Reading one validates everything that can be
// checked without running a point, so a bad sweep fails before any simulation starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railsim::tools::sweep {

// grid: the cartesian product, the first parameter varying slowest; list: the i-th value of
// every parameter together (all value lists equally long).
enum class SweepMode { kGrid, kList };

struct SweepParameter {
  std::string name;
  std::vector<std::string> pointers;  // RFC 6901, into the base document
  std::vector<std::string> values;    // each a compact JSON text, any JSON type
  std::vector<std::string> labels;    // empty, or one per value: its text in outputs
};

struct SweepFile {
  std::string file;       // as given: it names the sweep in every message
  std::string name;       // the sweep's "name"
  std::string hash;       // FNV-1a 64 of the file's bytes, 16 lower-case hex digits
  std::string base_json;  // the base scenario document, as compact JSON text (keys in order)
  SweepMode mode = SweepMode::kGrid;
  std::vector<SweepParameter> parameters;
  std::size_t points = 0;  // number of points the parameters expand to
};

// A sweep of at most this many points; a larger one is surely a mistake in the file (and its
// results would not fit a spreadsheet).
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// Reads and validates the sweep file at `path`; a base given as a path is read relative to the
// sweep file's folder. Every error is a ScenarioError naming the file and the JSON pointer in
// it ("rail.json: /parameters/2/set/0: ...").
SweepFile read_sweep_file(const std::string& path);

// The same for a sweep held in memory: `file` names it, `folder` is where a base path is read
// from.
SweepFile parse_sweep(std::string_view text, const std::string& file, const std::string& folder);

// FNV-1a, 64 bits, as 16 lower-case hex digits: identifies a sweep file across shard outputs.
std::string fnv1a_64_hex(std::string_view bytes);

}  // namespace railsim::tools::sweep
