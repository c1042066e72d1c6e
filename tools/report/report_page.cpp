// File: tools/report/report_page.cpp
#include "tools/report/report_page.hpp"

#include "sim/input_error.hpp"
#include "tools/cli_support/output_folder.hpp"
#include "tools/report/xml_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <system_error>
#include <utility>

namespace railsim::tools::report {
namespace {

constexpr std::string_view kStyle =
    "body{font-family:Helvetica,Arial,sans-serif;color:#222;line-height:1.45;"
    "max-width:1000px;margin:2em auto;padding:0 1em}\n"
    "h1{font-size:1.7em;margin-bottom:.4em}h2{font-size:1.35em;margin-top:1.6em}"
    "h3{font-size:1.15em}h4{font-size:1em}\n"
    "figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}\n"
    "figcaption{color:#555;font-size:.92em;margin-top:.3em}\n"
    "table{border-collapse:collapse;margin:1em 0;font-size:.92em}\n"
    "caption{text-align:left;color:#555;padding-bottom:.3em}\n"
    "th,td{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left}\n"
    "th{background:#f3f3f3}\n"
    ".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.fail td{background:#fdecea}tr.fail td:first-child{color:#b3261e;font-weight:bold}\n";

std::string render_figure(const Figure& figure, const std::string& stem, int number) {
  std::string out = fmt::format("<figure id=\"fig-{}\">\n", stem);
  out += figure.svg;
  out += fmt::format("<figcaption>Figure {}. {} <a href=\"{}.svg\">(SVG)</a></figcaption>\n",
                     number, xml_escape(figure.caption), stem);
  out += "</figure>\n";
  return out;
}

}  // namespace

Report::Report(std::string title) : title_(std::move(title)) {}

Report& Report::add_heading(std::string text, int level) {
  sections_.emplace_back(Heading{std::move(text), std::clamp(level, 2, 4)});
  return *this;
}

Report& Report::add_paragraph(std::string text) {
  sections_.emplace_back(Paragraph{std::move(text)});
  return *this;
}

Report& Report::add_figure(std::string name, std::string svg, std::string caption) {
  sections_.emplace_back(Figure{std::move(name), std::move(svg), std::move(caption)});
  return *this;
}

Report& Report::add_table(Table table) {
  sections_.emplace_back(std::move(table));
  return *this;
}

std::string sanitise_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool pending_dash = false;
  for (const char raw : name) {
    char c = raw;
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      if (pending_dash && !out.empty()) {
        out += '-';
      }
      pending_dash = false;
      out += c;
      continue;
    }
    pending_dash = true;
  }
  return out.empty() ? std::string("figure") : out;
}

std::vector<std::string> figure_file_stems(const Report& report) {
  std::vector<std::string> stems;
  std::set<std::string> taken = {"index"};
  for (const Section& section : report.sections()) {
    const auto* figure = std::get_if<Figure>(&section);
    if (figure == nullptr) {
      continue;
    }
    const std::string base = sanitise_name(figure->name);
    std::string stem = base;
    for (int n = 2; taken.count(stem) != 0; ++n) {
      stem = fmt::format("{}-{}", base, n);
    }
    taken.insert(stem);
    stems.push_back(stem);
  }
  return stems;
}

std::string render_html(const Report& report) {
  const std::vector<std::string> stems = figure_file_stems(report);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<title>{0}</title>\n<style>\n{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n",
      xml_escape(report.title()), kStyle);
  std::size_t figures = 0;
  for (const Section& section : report.sections()) {
    if (const auto* heading = std::get_if<Heading>(&section)) {
      out += fmt::format("<h{0}>{1}</h{0}>\n", heading->level, xml_escape(heading->text));
    } else if (const auto* paragraph = std::get_if<Paragraph>(&section)) {
      out += fmt::format("<p>{}</p>\n", xml_escape(paragraph->text));
    } else if (const auto* figure = std::get_if<Figure>(&section)) {
      out += render_figure(*figure, stems[figures], static_cast<int>(figures) + 1);
      ++figures;
    } else if (const auto* table = std::get_if<Table>(&section)) {
      out += html_table(*table);
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

void write_report(const std::filesystem::path& dir, const Report& report) {
  const std::vector<std::string> stems = figure_file_stems(report);
  std::vector<OutputEntry> files;
  std::size_t figures = 0;
  for (const Section& section : report.sections()) {
    if (const auto* figure = std::get_if<Figure>(&section)) {
      files.emplace_back(stems[figures] + ".svg", figure->svg);
      ++figures;
    }
  }
  files.emplace_back("index.html", render_html(report));
  publish_output_folder(dir.string(), files, "--report");
}

}  // namespace railsim::tools::report
