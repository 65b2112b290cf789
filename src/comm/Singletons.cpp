#include "comm/Singletons.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace perfcast::comm {

Singletons detect_singletons(const ValueGraph& graph, double threshold)
{
  std::size_t n = graph.vertices.size();
  Singletons s;
  s.kind.assign(n, SingletonKind::None);
  s.score.assign(n, 0.0);
  s.degree.assign(n, 0);
  if (n == 0)
    return s;
  // the value degree counts distinct neighbours, whatever the direction
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  pairs.reserve(graph.edges.size());
  std::vector<char> has_in(n, 0), has_out(n, 0);
  for (const ValueEdge& e : graph.edges) {
    pairs.emplace_back(std::min(e.source, e.sink), std::max(e.source, e.sink));
    has_out[e.source] = 1;
    has_in[e.sink] = 1;
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (auto [a, b] : pairs) {
    ++s.degree[a];
    ++s.degree[b];
  }
  std::vector<std::size_t> sorted = s.degree;
  std::sort(sorted.begin(), sorted.end());
  double median = n % 2 ? static_cast<double>(sorted[n / 2])
                        : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2;
  double mean = static_cast<double>(std::accumulate(sorted.begin(), sorted.end(), std::size_t{0})) /
                static_cast<double>(n);
  s.centroid = std::min(mean, median);
  for (std::size_t v = 0; v < n; ++v) {
    double d = static_cast<double>(s.degree[v]);
    // density: the share of the other values in v's row and column of the adjacency matrix
    double density = n > 1 ? d / static_cast<double>(n - 1) : 0.0;
    // distance: how far above the centroid v's degree lies (Definition 4.3)
    double distance = d > s.centroid ? 1.0 - s.centroid / d : 0.0;
    s.score[v] = std::max(density, distance);
    if (s.score[v] >= threshold && s.degree[v] > 0) {
      s.kind[v] = has_in[v] && has_out[v] ? SingletonKind::Allreduce
                  : has_out[v]            ? SingletonKind::Broadcast
                                          : SingletonKind::Reduce;
      ++s.count;
    }
  }
  return s;
}

} // namespace perfcast::comm
