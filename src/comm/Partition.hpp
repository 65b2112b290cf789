#pragma once
// Value decomposition (CommAnalyzer section 4.2.2): METIS multilevel k-way
// partitioning of the non-singleton values, balancing the work (vertex
// weights) and cutting as few transferred bytes as it can (edge weights),
// with connected parts when the graph is connected.
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"

#include <vector>

namespace perfcast::comm {

/// The process owning each vertex (-1 for singletons, which every process copies).
struct ValuePartition {
  std::vector<int> owner;
  int parts = 0;
  bool contiguous = false; ///< METIS was asked for connected parts
};

/// Partitions the non-singleton values into `parts`; throws Error when there
/// are fewer such values than parts. Deterministic (fixed METIS seed).
ValuePartition partition_values(const ValueGraph& graph, const Singletons& singletons, int parts);

} // namespace perfcast::comm
