#include "comm/Partition.hpp"

#include "comm/Blocks.hpp"
#include "comm/Coarsen.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <metis.h>

namespace perfcast::comm {

namespace {

using Csr = WeightedGraph;

// The undirected graph METIS takes (CSR), over the non-singleton vertices:
// an edge weighs the bytes it would carry if cut, both directions summed.
Csr build_csr(const ValueGraph& graph, const std::vector<std::int64_t>& local, std::size_t n)
{
  auto each_pair = [&](auto&& take) {
    for (const ValueEdge& e : graph.edges) {
      std::int64_t a = local[e.source], b = local[e.sink];
      if (a >= 0 && b >= 0 && a != b)
        take(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b),
             std::uint64_t{e.versions} * std::max(1u, graph.vertices[e.source].bytes));
    }
  };
  std::vector<std::int32_t> vwgt(n, 1);
  for (std::size_t v = 0; v < graph.vertices.size(); ++v)
    if (local[v] >= 0)
      vwgt[local[v]] = static_cast<std::int32_t>(std::clamp<std::uint64_t>(graph.vertices[v].work, 1, kMaxGraphWeight));
  return graph_from_pairs(n, each_pair, std::move(vwgt));
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

// The cut of a partition of g: each cut pair's weight once.
std::int64_t edge_cut(const Csr& g, const std::vector<idx_t>& part)
{
  std::int64_t cut = 0;
  for (std::size_t v = 0; v < g.vertices(); ++v)
    for (idx_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k)
      if (part[g.adjncy[k]] != part[v])
        cut += g.adjwgt[k];
  return cut / 2;
}

void metis_options(idx_t* options)
{
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  options[METIS_OPTION_NCUTS] = 4;
  options[METIS_OPTION_UFACTOR] = 30; // 3% imbalance
}

// METIS's recursive bisection of g into `parts`, or none when it fails.
std::optional<std::vector<idx_t>> metis_recursive(Csr& g, int parts, idx_t& cut)
{
  idx_t nvtxs = static_cast<idx_t>(g.vertices()), ncon = 1, nparts = parts;
  idx_t options[METIS_NOPTIONS];
  metis_options(options);
  std::vector<idx_t> part(g.vertices(), 0);
  idx_t* adjwgt = g.adjwgt.empty() ? nullptr : g.adjwgt.data();
  int rc = METIS_PartGraphRecursive(&nvtxs, &ncon, g.xadj.data(), g.adjncy.data(), g.vwgt.data(), nullptr, adjwgt,
                                    &nparts, nullptr, nullptr, options, &cut, part.data());
  if (rc != METIS_OK)
    return std::nullopt;
  return part;
}

// METIS k-way and recursive bisection on g, keeping the smaller cut (on
// grids bisection often finds the straight cuts a programmer would choose);
// k-way with connected parts when g is connected. `bisection`, when given,
// replaces the recursive bisection by that of a hierarchy (below).
std::vector<idx_t> metis_parts(Csr& g, bool contiguous, int parts, const std::vector<idx_t>* bisection = nullptr)
{
  idx_t nvtxs = static_cast<idx_t>(g.vertices()), ncon = 1, nparts = parts;
  std::vector<idx_t> part(g.vertices(), 0);
  if (g.vertices() <= static_cast<std::size_t>(parts)) { // METIS wants more vertices than parts
    for (std::size_t v = 0; v < part.size(); ++v)
      part[v] = static_cast<idx_t>(v);
    return part;
  }
  idx_t options[METIS_NOPTIONS];
  metis_options(options);
  idx_t* adjwgt = g.adjwgt.empty() ? nullptr : g.adjwgt.data();
  idx_t cut_kway = 0, cut_recursive = 0;
  options[METIS_OPTION_CONTIG] = contiguous ? 1 : 0;
  int rc = METIS_PartGraphKway(&nvtxs, &ncon, g.xadj.data(), g.adjncy.data(), g.vwgt.data(), nullptr, adjwgt, &nparts,
                               nullptr, nullptr, options, &cut_kway, part.data());
  if (rc != METIS_OK)
    throw Error(fmt::format("--procs {}: METIS could not partition the {} values (status {})", parts, nvtxs, rc));
  std::optional<std::vector<idx_t>> other;
  if (bisection) {
    other = *bisection;
    cut_recursive = static_cast<idx_t>(edge_cut(g, *other));
  } else {
    other = metis_recursive(g, parts, cut_recursive);
  }
  if (other && cut_recursive < cut_kway && (!contiguous || parts_connected(g, *other, parts)))
    part.swap(*other);
  return part;
}

} // namespace

// What every process count of one graph shares (PartitionCache::work).
struct PartitionWork {
  std::vector<std::int64_t> local; ///< per vertex, its index among the non-singletons, -1 for a singleton
  std::size_t n = 0;
  bool csr_done = false;
  Csr csr; ///< emptied once a coarse graph replaces it
  bool has_edges = false;
  bool connected = false;
  std::uint64_t total_work = 0;
  bool coarse_done = false;
  std::optional<Coarsening> coarse; ///< when the graph has more than limits.exact_edges edges
  int hierarchy_parts = 0;          ///< the coarse graph's recursive bisection into this many parts, when made
  std::vector<idx_t> hierarchy;
  std::unique_ptr<VolumeCounter> counter;
};

ValuePartition partition_values(const ValueGraph& graph, const Singletons& singletons, int parts,
                                PartitionCache* cache)
{
  PartitionCache own_cache;
  PartitionCache& c = cache ? *cache : own_cache;
  if (!c.work) {
    c.work = std::make_shared<PartitionWork>();
    c.work->local.assign(graph.vertices.size(), -1);
    for (std::size_t v = 0; v < graph.vertices.size(); ++v)
      if (singletons.kind[v] == SingletonKind::None)
        c.work->local[v] = static_cast<std::int64_t>(c.work->n++);
  }
  PartitionWork& w = *c.work;
  const std::vector<std::int64_t>& local = w.local;
  std::int64_t n = static_cast<std::int64_t>(w.n);
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
  if (parts > 1 && !w.csr_done) {
    w.csr = build_csr(graph, local, w.n);
    w.has_edges = !w.csr.adjncy.empty();
    w.connected = w.has_edges && connected(w.csr);
    for (idx_t wv : w.csr.vwgt)
      w.total_work += static_cast<std::uint64_t>(wv);
    w.csr_done = true;
  }
  if (parts > 1 && !w.has_edges) {
    // no value reads another: any balanced split is free of messages; cut
    // the values in order into parts of equal work
    std::uint64_t total = w.total_work, done = 0;
    for (std::size_t v = 0; v < part.size(); ++v) {
      part[v] = static_cast<idx_t>(std::min<std::uint64_t>(done * static_cast<std::uint64_t>(parts) / total,
                                                           static_cast<std::uint64_t>(parts - 1)));
      done += static_cast<std::uint64_t>(w.csr.vwgt[v]);
    }
  } else if (parts > 1) {
    result.contiguous = w.connected;
    if (!w.coarse_done) {
      // a large graph is coarsened once, and every process count partitions
      // the coarse graph (a matched pair is joined by an edge, so the coarse
      // graph is connected when the fine one is, and its cut is the fine
      // cut); the fine graph is not needed again
      if (graph.edges.size() > c.limits.exact_edges) {
        w.coarse = coarsen(std::move(w.csr), c.limits.coarse_vertices);
        w.csr = Csr{};
      }
      w.coarse_done = true;
    }
    if (w.coarse) {
      // one recursive bisection of the coarse graph into the largest power
      // of two asked for gives every smaller power of two: its parts are
      // numbered along the bisection tree, so parts p and p + 1 (p even)
      // are the halves of one part of the level above, and part >> k is the
      // bisection into hierarchy_parts / 2^k parts
      const std::vector<idx_t>* bisection = nullptr;
      std::vector<idx_t> level;
      bool power_of_two = (parts & (parts - 1)) == 0;
      if (power_of_two && c.bisection_parts >= parts &&
          w.coarse->coarse.vertices() > static_cast<std::size_t>(c.bisection_parts)) {
        if (w.hierarchy_parts != c.bisection_parts) {
          idx_t cut = 0;
          std::optional<std::vector<idx_t>> h = metis_recursive(w.coarse->coarse, c.bisection_parts, cut);
          w.hierarchy = h ? std::move(*h) : std::vector<idx_t>{};
          w.hierarchy_parts = c.bisection_parts;
        }
        if (!w.hierarchy.empty()) {
          int shift = 0;
          while ((parts << shift) < c.bisection_parts)
            ++shift;
          level.resize(w.hierarchy.size());
          for (std::size_t v = 0; v < level.size(); ++v)
            level[v] = w.hierarchy[v] >> shift;
          bisection = &level;
        }
      }
      std::vector<idx_t> coarse_part = metis_parts(w.coarse->coarse, w.connected, parts, bisection);
      for (std::size_t v = 0; v < part.size(); ++v)
        part[v] = coarse_part[w.coarse->coarse_of[v]];
    } else {
      part = metis_parts(w.csr, w.connected, parts);
    }
  }
  for (std::size_t v = 0; v < graph.vertices.size(); ++v)
    if (local[v] >= 0)
      result.owner[v] = static_cast<int>(part[local[v]]);
  if (parts > 1) {
    if (!w.counter)
      w.counter = std::make_unique<VolumeCounter>(
          graph, graph.edges.size() > c.limits.exact_edges ? c.limits.exact_edges / 4 : VolumeCounter::kNoSample);
    const VolumeCounter& counter = *w.counter;
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
      if (!c.spectral_done) {
        c.spectral = w.coarse ? spectral_coordinates(graph, singletons, *w.coarse)
                              : spectral_coordinates(graph, singletons);
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
