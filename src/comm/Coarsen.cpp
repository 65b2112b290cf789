#include "comm/Coarsen.hpp"

#include <algorithm>
#include <numeric>

namespace perfcast::comm {

namespace {

std::int32_t add_clamped(std::int32_t x, std::int32_t y)
{
  return static_cast<std::int32_t>(std::min<std::int64_t>(std::int64_t{x} + y, kMaxGraphWeight));
}

// One level: a matching along heavy edges, then the contracted graph.
Coarsening contract_level(const WeightedGraph& g, std::int64_t heaviest_vertex)
{
  std::size_t n = g.vertices();
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // light vertices first: they find partners before the heavy ones take them
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t x, std::int32_t y) { return g.vwgt[x] < g.vwgt[y]; });
  std::vector<std::int32_t> match(n, -1);
  for (std::int32_t v : order) {
    if (match[v] >= 0)
      continue;
    std::int32_t best = -1, best_weight = -1;
    for (std::int32_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
      std::int32_t u = g.adjncy[k];
      if (match[u] >= 0 || std::int64_t{g.vwgt[u]} + g.vwgt[v] > heaviest_vertex)
        continue;
      if (g.adjwgt[k] > best_weight || (g.adjwgt[k] == best_weight && u < best)) {
        best = u;
        best_weight = g.adjwgt[k];
      }
    }
    match[v] = best >= 0 ? best : v;
    if (best >= 0)
      match[best] = v;
  }
  Coarsening c;
  c.coarse_of.assign(n, -1);
  std::int32_t m = 0;
  for (std::size_t v = 0; v < n; ++v)
    if (c.coarse_of[v] < 0) {
      c.coarse_of[v] = m;
      c.coarse_of[match[v]] = m;
      ++m;
    }
  WeightedGraph& out = c.coarse;
  out.vwgt.assign(static_cast<std::size_t>(m), 0);
  out.xadj.reserve(static_cast<std::size_t>(m) + 1);
  out.adjncy.reserve(g.adjncy.size() / 2 + 1);
  out.adjwgt.reserve(g.adjncy.size() / 2 + 1);
  std::vector<std::int32_t> slot(static_cast<std::size_t>(m), -1); // where a coarse neighbour sits in the row
  for (std::size_t v = 0; v < n; ++v) {
    std::int32_t cv = c.coarse_of[v];
    if (static_cast<std::size_t>(match[v]) < v)
      continue; // the pair's row was written with its first member
    std::size_t row = out.adjncy.size();
    for (std::int32_t member : {static_cast<std::int32_t>(v), match[v]}) {
      out.vwgt[cv] = add_clamped(out.vwgt[cv], g.vwgt[member]);
      for (std::int32_t k = g.xadj[member]; k < g.xadj[member + 1]; ++k) {
        std::int32_t cu = c.coarse_of[g.adjncy[k]];
        if (cu == cv)
          continue;
        if (slot[cu] < 0 || static_cast<std::size_t>(slot[cu]) < row) {
          slot[cu] = static_cast<std::int32_t>(out.adjncy.size());
          out.adjncy.push_back(cu);
          out.adjwgt.push_back(g.adjwgt[k]);
        } else {
          out.adjwgt[slot[cu]] = add_clamped(out.adjwgt[slot[cu]], g.adjwgt[k]);
        }
      }
      if (match[v] == static_cast<std::int32_t>(v))
        break;
    }
    out.xadj.push_back(static_cast<std::int32_t>(out.adjncy.size()));
  }
  return c;
}

} // namespace

void sort_rows(WeightedGraph& g, const std::vector<std::uint64_t>& start)
{
  std::size_t vertices = start.size() - 1, out = 0;
  g.xadj.assign(vertices + 1, 0);
  std::vector<std::uint64_t> row; // neighbour << 32 | weight
  for (std::size_t v = 0; v < vertices; ++v) {
    row.clear();
    for (std::uint64_t k = start[v]; k < start[v + 1]; ++k)
      row.push_back(std::uint64_t(static_cast<std::uint32_t>(g.adjncy[k])) << 32 |
                    static_cast<std::uint32_t>(g.adjwgt[k]));
    std::sort(row.begin(), row.end());
    for (std::size_t i = 0; i < row.size();) {
      std::uint64_t u = row[i] >> 32;
      std::int64_t sum = 0; // the repeats' weights, then clamped
      for (; i < row.size() && (row[i] >> 32) == u; ++i)
        sum += static_cast<std::int64_t>(row[i] & 0xffffffffu);
      g.adjncy[out] = static_cast<std::int32_t>(u); // out <= start[v]: rows only shrink
      g.adjwgt[out++] = static_cast<std::int32_t>(std::clamp<std::int64_t>(sum, 1, kMaxGraphWeight));
    }
    g.xadj[v + 1] = static_cast<std::int32_t>(out);
  }
  g.adjncy.resize(out);
  g.adjwgt.resize(out);
}

Coarsening coarsen(WeightedGraph fine, std::size_t target)
{
  Coarsening c;
  c.coarse_of.resize(fine.vertices());
  std::iota(c.coarse_of.begin(), c.coarse_of.end(), 0);
  std::int64_t total = 0;
  for (std::int32_t w : fine.vwgt)
    total += w;
  c.coarse = std::move(fine); // each level replaces the one before
  std::int64_t target_vertices = static_cast<std::int64_t>(std::max<std::size_t>(target, 1));
  std::int64_t heaviest = std::max<std::int64_t>(1, 3 * total / (2 * target_vertices)); // 1.5 x the mean
  while (c.coarse.vertices() > target) {
    Coarsening level = contract_level(c.coarse, heaviest);
    if (level.coarse.vertices() * 10 > c.coarse.vertices() * 9)
      break; // the matching stalls (a star, or vertices at their weight cap)
    for (std::int32_t& v : c.coarse_of)
      v = level.coarse_of[v];
    c.coarse = std::move(level.coarse);
  }
  return c;
}

} // namespace perfcast::comm
