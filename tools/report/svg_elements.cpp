// File: tools/report/svg_elements.cpp
#include "tools/report/svg_elements.hpp"

#include "tools/report/axis.hpp"
#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

namespace railsim::tools::report {
namespace {

const char* anchor_name(Anchor anchor) {
  switch (anchor) {
    case Anchor::kStart:
      return "start";
    case Anchor::kMiddle:
      return "middle";
    case Anchor::kEnd:
      return "end";
  }
  return "start";
}

}  // namespace

std::string svg_begin(double width, double height, std::string_view title) {
  const std::string w = format_coordinate(width);
  const std::string h = format_coordinate(height);
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      w, h, xml_escape(title));
}

std::string svg_end() { return "</svg>\n"; }

std::string svg_text(double x, double y, std::string_view text, const TextStyle& style) {
  std::string attributes =
      fmt::format("x=\"{}\" y=\"{}\"", format_coordinate(x), format_coordinate(y));
  if (!style.css_class.empty()) {
    attributes += fmt::format(" class=\"{}\"", xml_escape(style.css_class));
  }
  if (style.anchor != Anchor::kStart) {
    attributes += fmt::format(" text-anchor=\"{}\"", anchor_name(style.anchor));
  }
  if (style.size != 12.0) {
    attributes += fmt::format(" font-size=\"{}\"", format_coordinate(style.size));
  }
  if (style.bold) {
    attributes += " font-weight=\"bold\"";
  }
  if (style.rotate != 0.0) {
    attributes += fmt::format(" transform=\"rotate({} {} {})\"", format_coordinate(style.rotate),
                              format_coordinate(x), format_coordinate(y));
  }
  return fmt::format("<text {} fill=\"{}\">{}</text>\n", attributes, xml_escape(style.fill),
                     xml_escape(text));
}

std::string svg_line(
    double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width) {
  return fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>\n",
      format_coordinate(x1), format_coordinate(y1), format_coordinate(x2), format_coordinate(y2),
      xml_escape(stroke), format_coordinate(stroke_width));
}

std::string svg_rect(double x,
                     double y,
                     double width,
                     double height,
                     std::string_view fill,
                     std::string_view extra) {
  return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}{}/>\n",
                     format_coordinate(x), format_coordinate(y), format_coordinate(width),
                     format_coordinate(height), xml_escape(fill), extra.empty() ? "" : " ", extra);
}

double text_width(std::string_view text, double font_size) {
  std::size_t code_points = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
      ++code_points;
    }
  }
  return 0.6 * font_size * static_cast<double>(code_points);
}

}  // namespace railsim::tools::report
