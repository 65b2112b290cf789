#include "comm/Partition.hpp"

#include "comm/Blocks.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <metis.h>

namespace perfcast::comm {

namespace {

// The undirected graph METIS takes (CSR), over the non-singleton vertices.
struct Csr {
  std::vector<idx_t> xadj, adjncy, adjwgt, vwgt;
};

constexpr std::uint64_t kMaxWeight = 1u << 24; // keeps METIS's 32-bit sums from overflowing

Csr build_csr(const ValueGraph& graph, const std::vector<std::int64_t>& local)
{
  std::size_t n = 0;
  for (std::int64_t l : local)
    n += l >= 0;
  // the bytes an edge would carry if cut, both directions summed
  std::map<std::pair<idx_t, idx_t>, std::uint64_t> weight;
  for (const ValueEdge& e : graph.edges) {
    std::int64_t a = local[e.source], b = local[e.sink];
    if (a < 0 || b < 0 || a == b)
      continue;
    std::uint64_t bytes = e.versions * std::max(1u, graph.vertices[e.source].bytes);
    weight[{static_cast<idx_t>(std::min(a, b)), static_cast<idx_t>(std::max(a, b))}] += bytes;
  }
  std::vector<std::vector<std::pair<idx_t, idx_t>>> adjacent(n);
  for (auto& [ab, w] : weight) {
    idx_t cw = static_cast<idx_t>(std::clamp<std::uint64_t>(w, 1, kMaxWeight));
    adjacent[ab.first].emplace_back(ab.second, cw);
    adjacent[ab.second].emplace_back(ab.first, cw);
  }
  Csr csr;
  csr.xadj.push_back(0);
  csr.vwgt.resize(n);
  for (std::size_t v = 0; v < graph.vertices.size(); ++v)
    if (local[v] >= 0)
      csr.vwgt[local[v]] = static_cast<idx_t>(std::clamp<std::uint64_t>(graph.vertices[v].work, 1, kMaxWeight));
  for (auto& list : adjacent) {
    for (auto [to, w] : list) {
      csr.adjncy.push_back(to);
      csr.adjwgt.push_back(w);
    }
    csr.xadj.push_back(static_cast<idx_t>(csr.adjncy.size()));
  }
  return csr;
}

bool connected(const Csr& csr)
{
  std::size_t n = csr.xadj.size() - 1;
  std::vector<char> seen(n, 0);
  std::vector<idx_t> stack{0};
  seen[0] = 1;
  std::size_t reached = 1;
  while (!stack.empty()) {
    idx_t v = stack.back();
    stack.pop_back();
    for (idx_t k = csr.xadj[v]; k < csr.xadj[v + 1]; ++k)
      if (!seen[csr.adjncy[k]]) {
        seen[csr.adjncy[k]] = 1;
        ++reached;
        stack.push_back(csr.adjncy[k]);
      }
  }
  return reached == n;
}

// Whether every part of a partition is connected.
bool parts_connected(const Csr& csr, const std::vector<idx_t>& part, int parts)
{
  std::size_t n = part.size();
  std::vector<char> seen(n, 0), part_seen(static_cast<std::size_t>(parts), 0);
  for (std::size_t start = 0; start < n; ++start) {
    if (seen[start])
      continue;
    if (part_seen[part[start]])
      return false; // a second component of the same part
    part_seen[part[start]] = 1;
    std::vector<idx_t> stack{static_cast<idx_t>(start)};
    seen[start] = 1;
    while (!stack.empty()) {
      idx_t v = stack.back();
      stack.pop_back();
      for (idx_t k = csr.xadj[v]; k < csr.xadj[v + 1]; ++k) {
        idx_t u = csr.adjncy[k];
        if (!seen[u] && part[u] == part[v]) {
          seen[u] = 1;
          stack.push_back(u);
        }
      }
    }
  }
  return true;
}

} // namespace

ValuePartition partition_values(const ValueGraph& graph, const Singletons& singletons, int parts,
                                PartitionCache* cache)
{
  std::vector<std::int64_t> local(graph.vertices.size(), -1);
  std::int64_t n = 0;
  for (std::size_t v = 0; v < graph.vertices.size(); ++v)
    if (singletons.kind[v] == SingletonKind::None)
      local[v] = n++;
  if (parts < 1)
    throw Error(fmt::format("--procs {}: expected at least 1 process", parts));
  if (n < parts)
    throw Error(fmt::format("--procs {}: more processes than the {} values the region computes with (a larger "
                            "input or fewer processes)",
                            parts, n));
  ValuePartition result;
  result.parts = parts;
  result.owner.assign(graph.vertices.size(), -1);
  std::vector<idx_t> part(static_cast<std::size_t>(n), 0);
  Csr csr = parts > 1 ? build_csr(graph, local) : Csr{};
  if (parts > 1 && csr.adjncy.empty()) {
    // no value reads another: any balanced split is free of messages; cut
    // the values in order into parts of equal work
    std::uint64_t total = 0, done = 0;
    for (idx_t w : csr.vwgt)
      total += static_cast<std::uint64_t>(w);
    for (std::size_t v = 0; v < part.size(); ++v) {
      part[v] = static_cast<idx_t>(std::min<std::uint64_t>(done * static_cast<std::uint64_t>(parts) / total,
                                                           static_cast<std::uint64_t>(parts - 1)));
      done += static_cast<std::uint64_t>(csr.vwgt[v]);
    }
  } else if (parts > 1) {
    idx_t nvtxs = static_cast<idx_t>(n), ncon = 1, nparts = parts;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_NCUTS] = 4;
    options[METIS_OPTION_UFACTOR] = 30; // 3% imbalance
    result.contiguous = connected(csr);
    // k-way and recursive bisection both, keeping the smaller cut: on grids
    // bisection often finds the straight cuts a programmer would choose
    idx_t* adjwgt = csr.adjwgt.empty() ? nullptr : csr.adjwgt.data();
    std::vector<idx_t> other(part.size(), 0);
    idx_t cut_kway = 0, cut_recursive = 0;
    options[METIS_OPTION_CONTIG] = result.contiguous ? 1 : 0;
    int rc = METIS_PartGraphKway(&nvtxs, &ncon, csr.xadj.data(), csr.adjncy.data(), csr.vwgt.data(), nullptr, adjwgt,
                                 &nparts, nullptr, nullptr, options, &cut_kway, part.data());
    if (rc != METIS_OK)
      throw Error(fmt::format("--procs {}: METIS could not partition the {} values (status {})", parts, n, rc));
    options[METIS_OPTION_CONTIG] = -1; // not an option of recursive bisection
    rc = METIS_PartGraphRecursive(&nvtxs, &ncon, csr.xadj.data(), csr.adjncy.data(), csr.vwgt.data(), nullptr, adjwgt,
                                  &nparts, nullptr, nullptr, options, &cut_recursive, other.data());
    if (rc == METIS_OK && cut_recursive < cut_kway && (!result.contiguous || parts_connected(csr, other, parts)))
      part.swap(other);
  }
  for (std::size_t v = 0; v < graph.vertices.size(); ++v)
    if (local[v] >= 0)
      result.owner[v] = static_cast<int>(part[local[v]]);
  if (parts > 1) {
    VolumeCounter counter(graph);
    std::uint64_t metis_bytes = counter.bytes(result.owner, parts);
    std::optional<BlockPartition> blocks = best_block_partition(graph, singletons, parts, counter);
    // beyond the paper: array code whose index order has locality is cut
    // into blocks by its programmer, so those are kept, even where METIS's
    // partition counts a few percent fewer bytes (a staggered boundary no
    // blocked code sends); when the index order gives no local block
    // decomposition (a mesh numbered in any order), a programmer decomposes
    // by geometry, which the spectral coordinates recover from the graph
    bool local_blocks =
        blocks && static_cast<double>(blocks->p2p_bytes) <= kBlocksWithoutLocality * static_cast<double>(metis_bytes);
    if (local_blocks) {
      result.owner = std::move(blocks->owner);
      result.method = blocks->name;
      result.contiguous = false;
    } else {
      PartitionCache own_cache;
      PartitionCache& c = cache ? *cache : own_cache;
      if (!c.spectral_done) {
        c.spectral = spectral_coordinates(graph, singletons);
        c.spectral_done = true;
      }
      std::optional<BlockPartition> spectral;
      if (c.spectral)
        spectral = best_spectral_partition(graph, singletons, parts, counter, *c.spectral);
      if (spectral && spectral->p2p_bytes < metis_bytes) {
        result.owner = std::move(spectral->owner);
        result.method = spectral->name;
        result.contiguous = false;
      }
    }
  }
  return result;
}

} // namespace perfcast::comm
