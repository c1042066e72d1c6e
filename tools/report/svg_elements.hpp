// File: tools/report/svg_elements.hpp
// The SVG building blocks the charts share: the standalone document wrapper (xmlns, viewBox,
// width and height, a <title>), text, lines and rectangles with fixed-format coordinates, and
// an estimate of text width for layout. All text passes through xml_escape.
#pragma once

#include <string>
#include <string_view>

namespace railsim::tools::report {

enum class Anchor { kStart, kMiddle, kEnd };

struct TextStyle {
  Anchor anchor = Anchor::kStart;
  double size = 12.0;              // font size, px
  std::string_view fill = "#222";  // colour
  bool bold = false;
  double rotate = 0.0;           // degrees about (x, y); -90 reads bottom to top
  std::string_view css_class{};  // empty: no class attribute
};

// `<svg xmlns=... width= height= viewBox=...>` and a <title> (the tooltip and accessible name),
// with the fonts every chart uses. Close with svg_end().
[[nodiscard]] std::string svg_begin(double width, double height, std::string_view title);
[[nodiscard]] std::string svg_end();

// `y` is the text baseline.
[[nodiscard]] std::string svg_text(double x,
                                   double y,
                                   std::string_view text,
                                   const TextStyle& style);

[[nodiscard]] std::string svg_line(
    double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width = 1.0);

// `extra` is written verbatim inside the element (attributes already escaped by the caller).
[[nodiscard]] std::string svg_rect(double x,
                                   double y,
                                   double width,
                                   double height,
                                   std::string_view fill,
                                   std::string_view extra = {});

// About 0.6 em per character (UTF-8 code point) of a sans-serif font: enough to lay out
// legends and thin labels, not to typeset.
[[nodiscard]] double text_width(std::string_view text, double font_size);

}  // namespace railsim::tools::report
