#pragma once
// Block decompositions of the region's dense arrays (beyond CommAnalyzer,
// which has METIS only). A programmer parallelising array code cuts each
// array into 1-D, 2-D or 3-D blocks on a process grid; when the runtime knows
// which heap array each value lives in and where, perfcast builds those
// candidates, counts their volume with Algorithm 4, and the partition keeps
// a candidate when it balances the work and sends fewer bytes than METIS's.
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfcast::comm {

/// The point-to-point bytes Algorithm 4 counts (with pruning) for an owner per
/// vertex (-1: a singleton or unowned), without building the matrix.
class VolumeCounter {
public:
  /// `sample_edges`: a graph with more edges is ranked on a fixed sample of
  /// its sources carrying about that many out-edges (sampled_bytes).
  explicit VolumeCounter(const ValueGraph& graph, std::size_t sample_edges = kNoSample);
  /// Total bytes sent between different owners over the analysed run.
  std::uint64_t bytes(const std::vector<int>& owner, int parts) const;
  /// The bytes the sampled sources send (all of them when nothing is
  /// sampled): for ranking many candidates before counting the best exactly.
  std::uint64_t sampled_bytes(const std::vector<int>& owner, int parts) const;
  /// Whether sampled_bytes counts only a sample of the sources.
  bool sampled() const { return !sample_.empty(); }

  static constexpr std::size_t kNoSample = ~std::size_t{0};

private:
  std::uint64_t count(const std::vector<int>& owner, int parts, const std::uint32_t* sources, std::size_t n) const;
  const ValueGraph& graph_;
  std::vector<std::uint32_t> first_;  ///< per source, where its out-edges start in out_
  std::vector<std::uint64_t> out_;    ///< the out-edges by source: sink << 32 | versions (read in order)
  std::vector<std::uint32_t> sample_; ///< the sampled sources (empty: none, all are counted)
};

/// One block decomposition: its owners, its counted volume and a name such as "2-D 4x2".
struct BlockPartition {
  std::vector<int> owner;
  std::uint64_t p2p_bytes = 0;
  std::string name;
};

/// The few candidates with the least sampled bytes, in order of rank (the
/// first offered among equals); the best of them by the exact count.
class RankedCandidates {
public:
  explicit RankedCandidates(std::size_t keep);
  void offer(std::uint64_t sampled_bytes, std::vector<int> owner, std::string name);
  /// The kept candidate with the fewest bytes counted exactly, or none.
  std::optional<BlockPartition> best(const VolumeCounter& counter, int parts);

private:
  std::size_t keep_;
  std::vector<BlockPartition> kept_; ///< p2p_bytes holds the rank until best()
};

/// Candidates counted in full when a sampling counter ranks them.
inline constexpr std::size_t kBlocksCountedExactly = 4;

/// The balanced block decomposition (work per process at most 5% above the
/// mean) with the least counted volume, or none when the graph names no heap
/// arrays or no candidate balances. With a sampling counter the candidates
/// are ranked on the sample and the best kBlocksCountedExactly are counted in full.
std::optional<BlockPartition> best_block_partition(const ValueGraph& graph, const Singletons& singletons, int parts,
                                                   const VolumeCounter& counter);

/// Whether the most work any process gets is at most 5% above the mean.
bool work_balanced(const ValueGraph& graph, const std::vector<int>& owner, int parts);

/// Factors n into d factors as evenly as possible, largest first (as MPI_Dims_create does for a process grid).
std::vector<std::uint64_t> even_factors(std::uint64_t n, int d);

} // namespace perfcast::comm
