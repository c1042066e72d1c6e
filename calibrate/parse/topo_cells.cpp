// File: calibrate/parse/topo_cells.cpp
#include "calibrate/parse/topo_cells.hpp"

#include "sim/assert.hpp"
#include "sim/index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace railsim::calibrate::parse {
namespace {

using models::PathClass;
using sim::at;

// models/scenario/node_file.cpp's bound: Linux numbers NUMA nodes below 1 << 10.
constexpr int kMaxNumaId = 1023;

int level_of(PathClass path_class) {
  switch (path_class) {
    case PathClass::kPix:
      return kPixLevel;
    case PathClass::kPxb:
      return kPxbLevel;
    case PathClass::kPhb:
      return kPhbLevel;
    case PathClass::kNode:
      return kNodeLevel;
    case PathClass::kSys:
      return kSysLevel;
    case PathClass::kSelf:
    case PathClass::kNvlink:
      return 0;
  }
  RAILSIM_UNREACHABLE("every PathClass has a level");
}

bool is_gpu_name(std::string_view name) {
  return name.size() > 3 && name.starts_with("GPU") &&
         std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int> numa_id_of(std::string_view text) {
  if (text.empty() || text.size() > 4 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoi(std::string(text));
}

}  // namespace

TopoCells::TopoCells(const NvidiaSmiTopo& topo,
                     const std::string& file,
                     std::vector<std::string>& notes)
    : topo_(topo), file_(file) {
  read_devices();
  read_cells(notes);
  read_affinity(notes);
}

bool TopoCells::has_row(int d) const { return at(d) < topo_.rows.size(); }

const std::string& TopoCells::name(int d) const { return topo_.devices[at(d)]; }

const std::optional<TopoLink>& TopoCells::cell(int a, int b) const { return cells_[at(a)][at(b)]; }

int TopoCells::level(int a, int b) const {
  const std::optional<TopoLink>& link = cells_[at(a)][at(b)];
  return link ? level_of(link->path_class) : 0;
}

const std::optional<int>& TopoCells::numa_id(int g) const { return numa_ids_[at(g)]; }

const std::string& TopoCells::cpus(int g) const { return cpus_[at(g)]; }

int TopoCells::row_line(int d) const { return topo_.rows[at(d)].line; }

int TopoCells::line_of(int a, int b) const {
  const std::size_t rows = topo_.rows.size();
  return at(a) < rows ? topo_.rows[at(a)].line : topo_.rows.at(at(b)).line;
}

void TopoCells::fail_at_cell(int a, int b, const std::string& what) const {
  if (at(a) >= topo_.rows.size()) {
    std::swap(a, b);
  }
  throw ParseError(file_, line_of(a, b), fmt::format("{}, column {}: {}", name(a), name(b), what));
}

void TopoCells::read_devices() {
  devices_ = static_cast<int>(topo_.devices.size());
  for (int d = 0; d < devices_; ++d) {
    if (!is_gpu_name(name(d))) {
      continue;
    }
    if (d != gpus_ || name(d) != fmt::format("GPU{}", d)) {
      const int line = topo_.rows.empty() ? 0 : topo_.rows.front().line - 1;
      throw ParseError(file_, line,
                       fmt::format("expected GPU0, GPU1, ... in order before the NICs, got {} "
                                   "as column {}",
                                   name(d), d));
    }
    ++gpus_;
  }
}

void TopoCells::read_cells(std::vector<std::string>& notes) {
  cells_.assign(at(devices_), std::vector<std::optional<TopoLink>>(at(devices_)));
  for (std::size_t r = 0; r < topo_.rows.size(); ++r) {
    const auto row = static_cast<int>(r);
    for (int c = 0; c < devices_; ++c) {
      const TopoLink& link = topo_.rows[r].links.at(at(c));
      if (c == row) {
        continue;
      }
      if (link.path_class == PathClass::kNvlink && (!is_gpu(row) || !is_gpu(c))) {
        fail_at_cell(
            row, c,
            fmt::format("expected a PCIe class (NVLink joins GPUs only), got {}", to_string(link)));
      }
      const std::optional<TopoLink>& mirror = cells_[at(c)][r];
      if (mirror && *mirror != link) {
        fail_at_cell(row, c,
                     fmt::format("expected {}, as row {} has in column {} (the matrix of a "
                                 "node is symmetric), got {}",
                                 to_string(*mirror), name(c), name(row), to_string(link)));
      }
      cells_[r][at(c)] = link;
      cells_[at(c)][r] = link;
    }
  }
  if (topo_.truncated) {
    notes.push_back(fmt::format(
        "the dump ends before the row of {}: cells between devices whose rows are both missing "
        "are not in it, and the imported tree fills them in unchecked",
        name(static_cast<int>(topo_.rows.size()))));
  }
}

std::optional<std::size_t> TopoCells::affinity_column(std::string_view column) const {
  const auto& columns = topo_.affinity_columns;
  const auto it = std::find(columns.begin(), columns.end(), column);
  if (it == columns.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(it - columns.begin());
}

void TopoCells::read_affinity(std::vector<std::string>& notes) {
  numa_ids_.assign(at(gpus_), std::nullopt);
  cpus_.assign(at(gpus_), "N/A");
  const std::optional<std::size_t> numa_column = affinity_column("NUMA Affinity");
  const std::optional<std::size_t> cpu_column = affinity_column("CPU Affinity");
  bool unknown_numa = false;
  for (int g = 0; g < gpus_ && at(g) < topo_.rows.size(); ++g) {
    const TopoRow& row = topo_.rows[at(g)];
    if (cpu_column && *cpu_column < row.affinity.size()) {
      cpus_[at(g)] = row.affinity[*cpu_column];
    }
    if (numa_column && *numa_column < row.affinity.size()) {
      numa_ids_[at(g)] = numa_id_of(row.affinity[*numa_column]);
      if (numa_ids_[at(g)] && *numa_ids_[at(g)] > kMaxNumaId) {
        throw ParseError(file_, row.line,
                         fmt::format("{}, NUMA Affinity: expected a NUMA node from 0 to {}, got "
                                     "{}",
                                     name(g), kMaxNumaId, *numa_ids_[at(g)]));
      }
    }
    unknown_numa = unknown_numa || !numa_ids_[at(g)];
  }
  if (unknown_numa) {
    notes.emplace_back(
        "some GPUs have no single NUMA Affinity (N/A, a range, or no column): their NUMA "
        "nodes are numbered from the matrix's SYS structure");
  }
}

}  // namespace railsim::calibrate::parse
