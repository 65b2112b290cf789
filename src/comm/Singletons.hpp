#pragma once
// Singleton detection, Algorithm 3 of CommAnalyzer (Helal et al., section
// 4.2.1): a vertex whose density score or degree-distance score reaches 90%
// is a singleton (a parameter, time step or norm), kept as a local copy on
// every process and exchanged with a collective instead of messages.
#include "comm/ValueGraph.hpp"

#include <vector>

namespace perfcast::comm {

/// How a singleton is communicated: read only (broadcast), written and read
/// (allreduce), or written only (reduce).
enum class SingletonKind { None, Broadcast, Allreduce, Reduce };

/// The singletons of a graph and the scores that chose them.
struct Singletons {
  std::vector<SingletonKind> kind; ///< per vertex
  std::vector<double> score;       ///< max(density, distance) per vertex
  std::vector<std::size_t> degree; ///< distinct neighbours per vertex
  double centroid = 0;             ///< min(mean, median) degree (Definition 4.2)
  std::size_t count = 0;
};

/// Scores every vertex and marks those at or above the threshold (0.9 in the paper).
Singletons detect_singletons(const ValueGraph& graph, double threshold = 0.9);

} // namespace perfcast::comm
