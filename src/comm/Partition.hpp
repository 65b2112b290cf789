#pragma once
// Value decomposition (CommAnalyzer section 4.2.2): METIS multilevel k-way
// partitioning of the non-singleton values, balancing the work (vertex
// weights) and cutting as few transferred bytes as it can (edge weights),
// with connected parts when the graph is connected.
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"

#include <string>
#include <vector>

namespace perfcast::comm {

/// The process owning each vertex (-1 for singletons, which every process copies).
struct ValuePartition {
  std::vector<int> owner;
  int parts = 0;
  bool contiguous = false; ///< METIS was asked for connected parts
  std::string method = "metis"; ///< "metis", or the block decomposition kept instead ("2-D 2x2")
};

/// Partitions the non-singleton values into `parts`; throws Error when there
/// are fewer such values than parts. Deterministic (fixed METIS seed). When
/// the values name heap arrays, a balanced block decomposition of them with
/// fewer counted bytes than METIS's partition replaces it (comm/Blocks.hpp).
ValuePartition partition_values(const ValueGraph& graph, const Singletons& singletons, int parts);

} // namespace perfcast::comm
