// File: tools/report/report_page.hpp
// Report and write_report: the page that `railsim sweep`, `check` and `diagnose --report DIR`
// write. A Report collects sections in order (headings, paragraphs, SVG figures with captions,
// tables); write_report writes DIR/index.html, with every figure inlined, and
// each figure again as a standalone DIR/<name>.svg. Each file is written whole or not at all.
#pragma once

#include "tools/report/html_table.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace railsim::tools::report {

struct Heading {
  std::string text;
  int level = 2;  // 2 to 4; the report title is the page's only <h1>
};

struct Paragraph {
  std::string text;  // plain text, escaped; blank lines do not split it
};

struct Figure {
  std::string name;     // file stem, sanitised to [a-z0-9-] (see figure_file_stems)
  std::string svg;      // a document from svg_line_chart, svg_heatmap or svg_bar_chart
  std::string caption;  // plain text
};

using Section = std::variant<Heading, Paragraph, Figure, Table>;

class Report {
 public:
  explicit Report(std::string title);

  Report& add_heading(std::string text, int level = 2);
  Report& add_paragraph(std::string text);
  Report& add_figure(std::string name, std::string svg, std::string caption);
  Report& add_table(Table table);

  [[nodiscard]] const std::string& title() const { return title_; }

  [[nodiscard]] const std::vector<Section>& sections() const { return sections_; }

 private:
  std::string title_;
  std::vector<Section> sections_;
};

// Lower case; every run of characters outside [a-z0-9] becomes one '-'; no leading or trailing
// '-'. "Busbw vs Size (8 GPUs)" -> "busbw-vs-size-8-gpus"; "" or "<>" -> "figure".
[[nodiscard]] std::string sanitise_name(std::string_view name);

// The file stem of each figure, in order: sanitised, and made unique by "-2", "-3", ... when
// two figures sanitise to the same name. "index" is never returned ("index-2" instead).
[[nodiscard]] std::vector<std::string> figure_file_stems(const Report& report);

// The whole index.html: a well-formed (XHTML-compatible) HTML5 page with inline <style>, the
// figures' SVG inlined byte for byte, and no timestamps, so equal reports give equal bytes.
[[nodiscard]] std::string render_html(const Report& report);

// Publishes `dir` (creating its parents if needed) with each figure as dir/<stem>.svg and
// dir/index.html, the set all or nothing (cli_support/output_folder.hpp), so a reader never
// meets a page without its figures. Throws sim::InputError naming the folder.
void write_report(const std::filesystem::path& dir, const Report& report);

}  // namespace railsim::tools::report
