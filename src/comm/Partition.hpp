#pragma once
// Value decomposition (CommAnalyzer section 4.2.2): METIS multilevel k-way
// partitioning of the non-singleton values, balancing the work (vertex
// weights) and cutting as few transferred bytes as it can (edge weights),
// with connected parts when the graph is connected.
#include "comm/Singletons.hpp"
#include "comm/Spectral.hpp"
#include "comm/ValueGraph.hpp"

#include <optional>
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

/// What partitions of one graph for several process counts share.
struct PartitionCache {
  bool spectral_done = false;
  std::optional<SpectralCoordinates> spectral;
};

/// A block decomposition is taken for one of an array whose index order has
/// no locality when it counts more than this many times the bytes of METIS's
/// partition; the spectral grid is tried only then (docs/comm.md derives it:
/// a local block decomposition counts at most sqrt(2) times the least volume
/// of a 5-point grid's parts, 1.82 times a 7-point grid's).
inline constexpr double kBlocksWithoutLocality = 2.0;

/// Partitions the non-singleton values into `parts`; throws Error when there
/// are fewer such values than parts. Deterministic (fixed METIS seed). When
/// the values name heap arrays and their best balanced block decomposition
/// (comm/Blocks.hpp) has locality (at most kBlocksWithoutLocality times the
/// bytes of METIS's partition), it replaces METIS's partition. Otherwise a
/// grid of the spectral coordinates (comm/Spectral.hpp) replaces it when it
/// counts fewer bytes. `cache`, when given, keeps the spectral coordinates for the
/// next call on the same graph.
ValuePartition partition_values(const ValueGraph& graph, const Singletons& singletons, int parts,
                                PartitionCache* cache = nullptr);

} // namespace perfcast::comm
