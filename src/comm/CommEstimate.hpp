#pragma once
// Communication estimation, Algorithm 4 of CommAnalyzer (Helal et al.,
// section 4.2.3): value-flow edges between processes are messages, pruned so
// that a process receives each distinct remote value once; singletons become
// collectives (only read: broadcast; written and read: allreduce; only
// written: reduce).
#include "comm/Partition.hpp"
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace perfcast::comm {

/// The communication predicted for one process count, totals over the analysed run.
struct CommEstimate {
  int procs = 0;
  std::uint64_t p2p_bytes = 0;
  std::uint64_t collective_bytes = 0;
  std::uint64_t messages = 0;     ///< point-to-point messages: one per communicating pair and region call
  std::uint64_t collectives = 0;  ///< collective operations
  std::uint64_t iterations = 0;   ///< region calls the totals cover
  std::string partition;          ///< how the values were split: "metis" or a block decomposition ("2-D 2x2")
  std::vector<std::vector<std::uint64_t>> matrix; ///< [from][to] point-to-point bytes

  /// Everything sent, point-to-point and collective.
  std::uint64_t bytes() const { return p2p_bytes + collective_bytes; }
};

/// Bytes a collective on `procs` processes moves per value of `bytes`, as
/// counted here: a broadcast or reduce delivers it to procs-1 processes, an
/// allreduce (reduce then broadcast) twice that.
std::uint64_t collective_bytes_per_value(SingletonKind kind, unsigned bytes, int procs);

/// Estimates the communication of a partitioned graph.
CommEstimate estimate_communication(const ValueGraph& graph, const Singletons& singletons,
                                    const ValuePartition& partition);

/// Detects singletons, partitions and estimates for each process count; the
/// counts share one PartitionCache (its limits bound the work on large graphs).
std::vector<CommEstimate> estimate_for_procs(const ValueGraph& graph, const std::vector<int>& procs,
                                             const PartitionLimits& limits = {});

/// The same with the singletons already detected (detect_singletons(graph)).
std::vector<CommEstimate> estimate_with_singletons(const ValueGraph& graph, const Singletons& singletons,
                                                   const std::vector<int>& procs, const PartitionLimits& limits = {});

} // namespace perfcast::comm
