// File: tools/report/axis.hpp
// Axes of the report's charts: "nice" tick values for a data range (1-2-5 steps on a linear
// axis, decades with 2 and 5 minors on a log10 axis, powers of two on a log2 axis), the map from
// data values to pixels, and the fixed-format labels (plain numbers, or sizes such as 8 B, 1 KiB).
#pragma once

#include <string>
#include <vector>

namespace railsim::tools::report {

enum class AxisScale { kLinear, kLog10, kLog2 };

// How tick values are written: kNumber as plain numbers ("0.5", "200", "1e9"), kBytes as
// binary sizes ("8 B", "32 KiB", "1 GiB"), the usual x axis of a busbw-vs-message-size chart.
enum class TickFormat { kNumber, kBytes };

struct Tick {
  double value = 0.0;
  bool major = true;  // majors carry a label and a grid line; minors only a short mark
};

// The ticks of one axis and the domain they span: the data range widened to the outermost
// major ticks on a linear axis and to whole decades (powers of two) on a log axis, so every
// data point lies inside it. `step` is the linear step (0 on a log axis).
struct AxisTicks {
  AxisScale scale = AxisScale::kLinear;
  double lo = 0.0;
  double hi = 1.0;
  double step = 0.0;
  std::vector<Tick> ticks;  // ascending
};

// Linear ticks at multiples of a 1, 2 or 5 x 10^n step chosen so that about `target_count`
// intervals cover [lo, hi]: 0..7.3 gives 0, 2, 4, 6, 8. An empty range (lo == hi) is widened.
[[nodiscard]] AxisTicks linear_ticks(double lo, double hi, int target_count = 5);

// Decades 10^a .. 10^b enclosing [lo, hi] (lo > 0), with minors at 2 and 5 x 10^n when the
// range spans at most 10 decades: 8 .. 8 GiB gives the majors 1, 10, ..., 1e10.
[[nodiscard]] AxisTicks log10_ticks(double lo, double hi);

// Powers of two 2^a .. 2^b enclosing [lo, hi] (lo > 0); majors every 1, 2, 5, 10 or 20 octaves
// (the smallest giving at most 8 labels, at exponents that are multiples of it, so 1 KiB,
// 32 KiB, 1 MiB line up), minors at the other powers of two.
[[nodiscard]] AxisTicks log2_ticks(double lo, double hi);

// Dispatches on `scale`; when `include_zero` and the scale is linear, the range is widened to 0.
[[nodiscard]] AxisTicks make_ticks(AxisScale scale,
                                   double lo,
                                   double hi,
                                   bool include_zero = false);

// Maps data values on [lo, hi] to pixels on [pixel_lo, pixel_hi] (pixel_hi < pixel_lo for a y
// axis, whose pixels grow downwards). On a log axis, proportional to the logarithm.
class AxisMap {
 public:
  AxisMap(AxisScale scale, double lo, double hi, double pixel_lo, double pixel_hi);

  // False for NaN and infinities, and for values <= 0 on a log axis.
  [[nodiscard]] bool plottable(double value) const;
  [[nodiscard]] double to_pixel(double value) const;

 private:
  [[nodiscard]] double transform(double value) const;

  AxisScale scale_;
  double lo_;
  double hi_;
  double pixel_lo_;
  double pixel_hi_;
};

// A tick label for a value of `ticks`: decimals follow the linear step (0.5 -> "0.5", 2 -> "2").
[[nodiscard]] std::string format_tick(double value, TickFormat format, const AxisTicks& ticks);

// A size in bytes with the largest binary unit it reaches: 8 -> "8 B", 1536 -> "1.5 KiB".
[[nodiscard]] std::string format_bytes(double bytes);

// A compact number of about three significant digits, trailing zeros dropped: 182.347 -> "182",
// 12.5 -> "12.5", 0.01234 -> "0.0123", 1e-5 -> "1e-05". NaN -> "n/a".
[[nodiscard]] std::string format_number(double value);

// A pixel coordinate as written into SVG: two decimals, so output is byte-stable.
[[nodiscard]] std::string format_coordinate(double pixel);

}  // namespace railsim::tools::report
