#include "comm/CommEstimate.hpp"

#include <algorithm>
#include <unordered_map>

namespace perfcast::comm {

std::uint64_t collective_bytes_per_value(SingletonKind kind, unsigned bytes, int procs)
{
  std::uint64_t once = static_cast<std::uint64_t>(bytes) * static_cast<std::uint64_t>(std::max(procs - 1, 0));
  switch (kind) {
  case SingletonKind::Broadcast:
  case SingletonKind::Reduce:
    return once;
  case SingletonKind::Allreduce:
    return 2 * once;
  case SingletonKind::None:
    break;
  }
  return 0;
}

CommEstimate estimate_communication(const ValueGraph& graph, const Singletons& singletons,
                                    const ValuePartition& partition)
{
  int p = partition.parts;
  CommEstimate est;
  est.procs = p;
  est.iterations = graph.iterations();
  est.partition = partition.method;
  est.matrix.assign(p, std::vector<std::uint64_t>(p, 0));
  std::vector<std::vector<std::uint64_t>> rounds(p, std::vector<std::uint64_t>(p, 0)); // values sent i -> j
  // pruning: a process receives each remote value once, however many of its
  // values use it, so per (source vertex, receiving process) count the most
  // distinct source values any one edge into that process carried
  std::unordered_map<std::uint64_t, std::uint64_t> received; // source << 32 | process -> values
  std::vector<std::uint64_t> read_values(graph.vertices.size(), 0), written(graph.vertices.size(), 0);
  for (const ValueEdge& e : graph.edges) {
    read_values[e.source] = std::max<std::uint64_t>(read_values[e.source], e.versions);
    int from = partition.owner[e.source], to = partition.owner[e.sink];
    if (from < 0 || to < 0 || from == to)
      continue; // local, or involving a singleton (a collective, below)
    std::uint64_t& r = received[static_cast<std::uint64_t>(e.source) << 32 | static_cast<std::uint32_t>(to)];
    r = std::max<std::uint64_t>(r, e.versions);
  }
  for (auto [key, values] : received) {
    std::uint32_t source = static_cast<std::uint32_t>(key >> 32);
    int to = static_cast<int>(key & 0xffffffffu), from = partition.owner[source];
    est.matrix[from][to] += values * graph.vertices[source].bytes;
    rounds[from][to] += values;
  }
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) {
      est.p2p_bytes += est.matrix[i][j];
      est.messages += std::min(rounds[i][j], est.iterations); // one message per pair per region call
    }
  for (std::size_t v = 0; v < graph.vertices.size(); ++v) {
    SingletonKind kind = singletons.kind[v];
    if (kind == SingletonKind::None)
      continue;
    // one collective per distinct value the others read; a value nobody reads
    // afterwards is reduced once per region call at most
    std::uint64_t count = read_values[v];
    if (kind == SingletonKind::Reduce)
      count = std::min<std::uint64_t>(std::max<std::uint64_t>(graph.vertices[v].work, 1), est.iterations);
    est.collectives += count;
    est.collective_bytes += count * collective_bytes_per_value(kind, graph.vertices[v].bytes, p);
  }
  return est;
}

std::vector<CommEstimate> estimate_for_procs(const ValueGraph& graph, const std::vector<int>& procs,
                                             const PartitionLimits& limits)
{
  return estimate_with_singletons(graph, detect_singletons(graph), procs, limits);
}

std::vector<CommEstimate> estimate_with_singletons(const ValueGraph& graph, const Singletons& singletons,
                                                   const std::vector<int>& procs, const PartitionLimits& limits)
{
  std::vector<CommEstimate> out;
  PartitionCache cache;
  cache.limits = limits;
  for (int p : procs)
    if (p > 0 && (p & (p - 1)) == 0)
      cache.bisection_parts = std::max(cache.bisection_parts, p);
  for (int p : procs)
    out.push_back(estimate_communication(graph, singletons, partition_values(graph, singletons, p, &cache)));
  return out;
}

} // namespace perfcast::comm
