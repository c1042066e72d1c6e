// File: models/system/fabric_graph.cpp
// The fabric's switch graph: edges in port order, and breadth-first distances to every leaf by
// Boost.Graph, so equal-cost next hops follow whatever the tiers.
#include "models/system/fabric_graph.hpp"

#include "sim/assert.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/pending/queue.hpp>

#include <algorithm>
#include <map>
#include <utility>

namespace railsim::models {
namespace {

constexpr int kUnreachable = 1 << 30;

}  // namespace

void FabricGraph::add_switch(FabricSwitch s) {
  switches_.push_back(s);
  out_edges_.emplace_back();
}

void FabricGraph::add_edge(std::size_t from, std::size_t to, sim::LinkId link) {
  RAILSIM_ASSERT(from < switches_.size() && to < switches_.size(), "an edge between switches");
  out_edges_[from].push_back({to, link.index});
}

// A leaf's distances are those of a breadth-first search against the cables' direction from
// the switches whose cables in service come down to it (at 1 hop), since every path to the leaf
// enters through one of them: so leaves entered from the same switches share one search, the
// leaf itself at 0 aside. One search per leaf would be O(leaves x cables), and a table of
// leaves x switches: 2.5 GB at 100,000 DGX H100 nodes. The reversed cables that are up are
// copied into a compressed sparse row graph, which Boost's search walks as plain arrays.
void FabricGraph::compute_hops(int leaves, const std::vector<bool>& down_links) {
  const std::size_t vertices = switches_.size();
  const std::size_t leaf_count = static_cast<std::size_t>(leaves);
  std::size_t edges = 0;
  for (const auto& out : out_edges_) {
    edges += out.size();
  }
  std::vector<std::pair<std::size_t, std::size_t>> reversed;
  reversed.reserve(edges);
  std::vector<std::vector<std::size_t>> entered_from(leaf_count);
  for (std::size_t from = 0; from < vertices; ++from) {
    for (const NextHop& edge : out_edges_[from]) {
      if (!down_links[edge.link]) {
        reversed.emplace_back(edge.next, from);
        if (edge.next < leaf_count) {
          entered_from[edge.next].push_back(from);
        }
      }
    }
  }
  using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
  const Graph towards(boost::edges_are_unsorted_multi_pass, reversed.begin(), reversed.end(),
                      vertices);
  std::map<std::vector<std::size_t>, std::size_t> classes;
  hops_by_class_.clear();
  class_of_leaf_.assign(leaf_count, 0);
  std::vector<boost::default_color_type> colours(vertices);
  for (std::size_t leaf = 0; leaf < leaf_count; ++leaf) {
    std::vector<std::size_t>& sources = entered_from[leaf];
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    const auto [known, added] = classes.try_emplace(sources, hops_by_class_.size());
    class_of_leaf_[leaf] = known->second;
    if (!added) {
      continue;
    }
    std::vector<int>& hops = hops_by_class_.emplace_back(vertices, kUnreachable);
    for (const std::size_t s : sources) {
      hops[s] = 1;
    }
    boost::queue<std::size_t> queue;
    boost::breadth_first_search(
        towards, sources.begin(), sources.end(), queue,
        boost::make_bfs_visitor(boost::record_distances(hops.data(), boost::on_tree_edge())),
        boost::make_iterator_property_map(colours.begin(),
                                          boost::get(boost::vertex_index, towards)));
  }
}

bool FabricGraph::reaches(std::size_t vertex, std::size_t leaf) const {
  return hops(vertex, leaf) != kUnreachable;
}

void FabricGraph::next_hops(std::size_t here,
                            std::size_t leaf,
                            const std::vector<bool>& down_links,
                            std::vector<NextHop>& choices) const {
  choices.clear();
  const int closer = hops(here, leaf) - 1;
  for (const NextHop& edge : out_edges_[here]) {
    if (!down_links[edge.link] && hops(edge.next, leaf) == closer) {
      choices.push_back(edge);
    }
  }
}

}  // namespace railsim::models
