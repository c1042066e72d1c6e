// File: calibrate/parse/nvidia_smi_topo.cpp
// The header is the first line starting "GPU0" that is not GPU0's row; lines before it (the
// command, "NVIDIA Topology:") and after the legends (other commands' output) are not read.
#include "calibrate/parse/nvidia_smi_topo.hpp"

#include "calibrate/parse/fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace railsim::calibrate::parse {
namespace {

constexpr const char* kLegendText =
    "Legend:\n\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
    "(e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
    "within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
    "Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

using models::PathClass;

constexpr std::array<std::string_view, 3> kAffinityColumns = {"CPU Affinity", "NUMA Affinity",
                                                              "GPU NUMA ID"};
constexpr int kMaxNvlinks = 64;
constexpr std::string_view kLabels = "X, NV#, PIX, PXB, PHB, NODE or SYS";

bool is_header(const std::vector<std::string_view>& fields) {
  return !fields.empty() && fields[0] == "GPU0" && (fields.size() == 1 || fields[1] != "X");
}

bool is_name(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_digits(std::string_view word) {
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "0-31,64-95", "4,6,8", "0": what the affinity columns hold, or N/A.
bool is_cpu_list(std::string_view text) {
  if (text == "N/A") {
    return true;
  }
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const std::size_t dash = item.find('-');
    const bool ok = dash == std::string_view::npos
                        ? is_digits(item)
                        : is_digits(item.substr(0, dash)) && is_digits(item.substr(dash + 1));
    if (!ok) {
      return false;
    }
    if (comma == std::string_view::npos) {
      return true;
    }
    text.remove_prefix(comma + 1);
  }
}

std::optional<TopoLink> parse_link(std::string_view cell) {
  constexpr std::array kClasses = {std::pair{std::string_view("X"), PathClass::kSelf},
                                   std::pair{std::string_view("PIX"), PathClass::kPix},
                                   std::pair{std::string_view("PXB"), PathClass::kPxb},
                                   std::pair{std::string_view("PHB"), PathClass::kPhb},
                                   std::pair{std::string_view("NODE"), PathClass::kNode},
                                   std::pair{std::string_view("SYS"), PathClass::kSys}};
  for (const auto& [label, path_class] : kClasses) {
    if (cell == label) {
      return TopoLink{path_class, 0};
    }
  }
  const std::string_view count = cell.substr(std::min<std::size_t>(2, cell.size()));
  if (!cell.starts_with("NV") || !is_digits(count) || count.size() > 2) {
    return std::nullopt;
  }
  const int links = std::stoi(std::string(count));
  if (links < 1 || links > kMaxNvlinks) {
    return std::nullopt;
  }
  return TopoLink{PathClass::kNvlink, links};
}

// Whether words[at...] spell `phrase` ("CPU Affinity" is two words of the header).
bool phrase_at(const std::vector<std::string_view>& words,
               std::size_t at,
               std::string_view phrase) {
  const std::vector<std::string_view> parts = split_fields(phrase);
  return at + parts.size() <= words.size() &&
         std::equal(parts.begin(), parts.end(), words.begin() + static_cast<std::ptrdiff_t>(at));
}

void read_header(const Line& line, NvidiaSmiTopo& topo) {
  const std::vector<std::string_view> words = split_fields(line.text);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto* affinity =
        std::find_if(kAffinityColumns.begin(), kAffinityColumns.end(),
                     [&](std::string_view column) { return phrase_at(words, i, column); });
    if (affinity != kAffinityColumns.end()) {
      topo.affinity_columns.emplace_back(*affinity);
      i += split_fields(*affinity).size() - 1;
      continue;
    }
    if (!topo.affinity_columns.empty() || !is_name(words[i])) {
      line.fail(fmt::format("expected device names (GPU0, NIC0, mlx5_0, ...) and then {}, got {}",
                            fmt::join(kAffinityColumns, ", "), quoted(words[i])));
    }
    if (std::find(topo.devices.begin(), topo.devices.end(), words[i]) != topo.devices.end()) {
      line.fail(
          fmt::format("expected each device once in the header, got {} twice", quoted(words[i])));
    }
    topo.devices.emplace_back(words[i]);
  }
}

TopoRow read_row(const Line& line, const NvidiaSmiTopo& topo) {
  const std::size_t index = topo.rows.size();
  const std::string& device = topo.devices[index];
  const std::vector<std::string_view> f = split_fields(line.text);
  if (f.empty() || f[0] != device) {
    line.fail(fmt::format("expected the row of {} (row {} of the {} the header names), got {}",
                          device, index + 1, topo.devices.size(),
                          quoted(f.empty() ? std::string_view("an empty line") : f[0])));
  }
  // The cells first, so that a damaged cell is named even when it also shifts the count.
  const std::size_t width = topo.devices.size();
  TopoRow row;
  row.device = device;
  row.line = line.number;
  for (std::size_t column = 0; column < width && 1 + column < f.size(); ++column) {
    const std::optional<TopoLink> link = parse_link(f[1 + column]);
    if (!link) {
      line.fail(fmt::format("{}, column {}: expected {}, got {}", device, topo.devices[column],
                            kLabels, quoted(f[1 + column])));
    }
    if ((link->path_class == PathClass::kSelf) != (column == index)) {
      line.fail(fmt::format("{}, column {}: expected {} (X only on the diagonal), got {}", device,
                            topo.devices[column], column == index ? "X" : "a distance",
                            quoted(f[1 + column])));
    }
    row.links.push_back(*link);
  }
  const std::size_t values = f.size() - 1 - std::min(f.size() - 1, width);
  if (f.size() < 1 + width || (values != 0 && values != topo.affinity_columns.size())) {
    line.fail(
        fmt::format("expected {} cells and then {} affinity values or none in the row of "
                    "{}, got {} fields",
                    width, topo.affinity_columns.size(), device, f.size() - 1));
  }
  // nvidia-smi gives every GPU its affinity (N/A where it has none); only NIC rows go without.
  if (values == 0 && !topo.affinity_columns.empty() && device.starts_with("GPU")) {
    line.fail(fmt::format("expected {} after the {} cells in the row of {}, got none",
                          fmt::join(topo.affinity_columns, ", "), width, device));
  }
  for (std::size_t i = 0; i < values; ++i) {
    const std::string_view value = f[1 + width + i];
    const bool numa_id = topo.affinity_columns[i] == "GPU NUMA ID";
    if (numa_id ? !(value == "N/A" || is_digits(value)) : !is_cpu_list(value)) {
      line.fail(fmt::format("{}, {}: expected {}, got {}", device, topo.affinity_columns[i],
                            numa_id ? "a NUMA node or N/A" : "a CPU list such as 0-31,64-95",
                            quoted(value)));
    }
    row.affinity.emplace_back(value);
  }
  return row;
}

// Fails on a line after the matrix that would change it: a second header (another dump in the
// same file) or a second row of one of its devices. Which of two rows is right cannot be told, so
// neither is kept silently.
void check_not_matrix(const Line& line, int header_line, const NvidiaSmiTopo& topo) {
  const std::vector<std::string_view> f = split_fields(line.text);
  if (is_header(f)) {
    line.fail(
        fmt::format("a second matrix header (the first at line {}): expected one "
                    "nvidia-smi topo -m dump per file",
                    header_line));
  }
  if (f.size() < 2 || !parse_link(f[1])) {
    return;
  }
  for (const TopoRow& row : topo.rows) {
    if (row.device == f[0]) {
      line.fail(fmt::format("a second row for {} after the matrix (its row is at line {})",
                            row.device, row.line));
    }
  }
}

// "  X    = Self" lines after "Legend:", "  NIC0: mlx5_0" after "NIC Legend:"; each block ends
// at the first line of another shape.
void read_legends(const TextInput& input, int number, int header_line, NvidiaSmiTopo& topo) {
  enum class Block { kNone, kLegend, kNics } block = Block::kNone;
  for (; number <= input.line_count(); ++number) {
    const Line line = line_of(input, number);
    check_not_matrix(line, header_line, topo);
    const std::string_view text = trim(line.text);
    if (text == "Legend:" || text == "NIC Legend:") {
      block = text == "Legend:" ? Block::kLegend : Block::kNics;
      continue;
    }
    if (text.empty()) {
      continue;
    }
    const std::size_t mark = text.find(block == Block::kLegend ? '=' : ':');
    if (block == Block::kNone || mark == std::string_view::npos) {
      block = Block::kNone;
      continue;
    }
    const std::string name(trim(text.substr(0, mark)));
    const std::string meaning(trim(text.substr(mark + 1)));
    if (block == Block::kLegend) {
      topo.legend.emplace_back(name, meaning);
      continue;
    }
    if (std::find(topo.devices.begin(), topo.devices.end(), name) == topo.devices.end()) {
      line.fail(
          fmt::format("expected a NIC of the matrix in the NIC legend, got {}", quoted(name)));
    }
    if (!is_name(meaning)) {
      line.fail(fmt::format("expected the verbs device of {} (such as mlx5_0), got {}", name,
                            quoted(meaning)));
    }
    for (const auto& [nic, device] : topo.nic_legend) {
      if (nic == name || device == meaning) {
        line.fail(fmt::format("{} is already in the NIC legend ({}: {})",
                              nic == name ? name : meaning, nic, device));
      }
    }
    topo.nic_legend.emplace_back(name, meaning);
  }
}

}  // namespace

std::string to_string(const TopoLink& link) {
  return link.path_class == PathClass::kNvlink ? fmt::format("NV{}", link.nvlinks)
                                               : models::to_string(link.path_class);
}

NvidiaSmiTopo parse_nvidia_smi_topo(const TextInput& input) {
  NvidiaSmiTopo topo;
  int number = 1;
  while (number <= input.line_count() && !is_header(split_fields(input.line(number)))) {
    ++number;
  }
  if (number > input.line_count()) {
    input.fail(0,
               "expected the matrix of nvidia-smi topo -m (a header line 'GPU0 ... CPU "
               "Affinity ...'), found none");
  }
  const int header_line = number;
  read_header(line_of(input, number), topo);
  ++number;
  for (; number <= input.line_count() && topo.rows.size() < topo.devices.size(); ++number) {
    topo.rows.push_back(read_row(line_of(input, number), topo));
  }
  topo.truncated = topo.rows.size() < topo.devices.size();
  if (topo.rows.empty()) {
    input.fail(input.line_count(),
               "expected the row of GPU0 under the header, got the end of "
               "the file");
  }
  read_legends(input, number, header_line, topo);
  return topo;
}

bool looks_like_nvidia_smi_topo(const TextInput& input) {
  for (int number = 1; number <= input.line_count(); ++number) {
    if (is_header(split_fields(input.line(number)))) {
      return true;
    }
  }
  return false;
}

std::string nvidia_smi_topo_text(const models::TopoMatrix& m) {
  std::string text = fmt::format("\t{}\tCPU Affinity\tNUMA Affinity\n", fmt::join(m.columns, "\t"));
  for (const models::TopoMatrix::Row& row : m.rows) {
    text += row.name;
    for (const std::string& cell : row.cells) {
      text += "\t" + (cell == "X" ? std::string(" X ") : cell);  // nvidia-smi pads the diagonal
    }
    if (!row.numa_affinity.empty()) {
      text += fmt::format("\t{}\t{}", row.cpu_affinity, row.numa_affinity);
    }
    text += "\n";
  }
  text += fmt::format("\n{}", kLegendText);
  if (!m.nic_legend.empty()) {
    text += "\nNIC Legend:\n\n";
    for (const auto& [column, device] : m.nic_legend) {
      text += fmt::format("  {}: {}\n", column, device);
    }
  }
  return text;
}

}  // namespace railsim::calibrate::parse
