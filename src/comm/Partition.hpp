#pragma once
// Value decomposition (CommAnalyzer section 4.2.2): METIS multilevel k-way
// partitioning of the non-singleton values, balancing the work (vertex
// weights) and cutting as few transferred bytes as it can (edge weights),
// with connected parts when the graph is connected.
#include "comm/Singletons.hpp"
#include "comm/Spectral.hpp"
#include "comm/ValueGraph.hpp"

#include <cstddef>
#include <memory>
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

/// Sizes past which the partition works on a bounded summary of the graph
/// (docs/comm.md, "Large graphs"); below them every value is partitioned
/// and counted as it is.
struct PartitionLimits {
  /// Past this many graph edges, METIS and the spectral coordinates see the
  /// graph coarsened by heavy-edge matching, and candidate decompositions are
  /// ranked on a sample of the sources carrying about this many edges.
  std::size_t exact_edges = std::size_t{1} << 22;
  /// The coarse graph's vertices, at most (about).
  std::size_t coarse_vertices = std::size_t{1} << 14;
};

struct PartitionWork; // what Partition.cpp derives once per graph

/// What partitions of one graph for several process counts share: the
/// undirected graph METIS takes, its coarsening, the volume counter and the
/// spectral coordinates, each made by the first call that needs it.
struct PartitionCache {
  PartitionLimits limits;
  /// On a coarsened graph, a power-of-two count up to this many parts takes
  /// its recursive bisection from one bisection into this many (0: each its own).
  int bisection_parts = 0;
  bool spectral_done = false;
  std::optional<SpectralCoordinates> spectral;
  std::shared_ptr<PartitionWork> work;
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
/// counts fewer bytes. `cache`, when given, keeps what the next call on the
/// same graph can reuse; its limits bound the work on large graphs.
ValuePartition partition_values(const ValueGraph& graph, const Singletons& singletons, int parts,
                                PartitionCache* cache = nullptr);

} // namespace perfcast::comm
