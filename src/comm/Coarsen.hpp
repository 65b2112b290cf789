#pragma once
// The undirected weighted graph the partitioners take, and its coarsening by
// heavy-edge matching (Karypis and Kumar, SIAM J. Sci. Comput. 20, 1998,
// section 3.1: the first phase of METIS's own multilevel scheme, done once
// here so that every process count partitions the same coarse graph).
#include <cstdint>
#include <vector>

namespace perfcast::comm {

/// A symmetric graph in compressed rows (METIS's layout, 32-bit indices): no
/// self loops, each neighbour listed once per row with the summed weight.
struct WeightedGraph {
  std::vector<std::int32_t> xadj{0}, adjncy, adjwgt, vwgt;

  std::size_t vertices() const { return xadj.size() - 1; }
};

/// Weights are clamped to this, so that METIS's 32-bit sums cannot overflow.
inline constexpr std::int32_t kMaxGraphWeight = 1 << 24;

/// Builds the rows from undirected pairs (a, b, weight) that `each_pair`
/// passes to its argument, in any order and with repeats (summed, clamped to
/// [1, kMaxGraphWeight]); self pairs are dropped. `each_pair` is called
/// twice (counting, then filling), so nothing holds the pairs in between.
template <typename EachPair>
WeightedGraph graph_from_pairs(std::size_t vertices, EachPair&& each_pair, std::vector<std::int32_t> vertex_weight);

/// A coarse graph and, per fine vertex, the coarse vertex it was merged into.
struct Coarsening {
  WeightedGraph coarse;
  std::vector<std::int32_t> coarse_of;
};

/// Merges matched pairs of vertices along their heaviest edges, level after
/// level, until at most `target` vertices remain or a level merges less
/// than a tenth of them. A coarse vertex weighs its members' summed weights;
/// none grows past 1.5 times the mean weight at `target` vertices, so that a
/// balanced partition of the coarse graph stays possible. Deterministic
/// (vertices visited in order of their weight, then index).
Coarsening coarsen(WeightedGraph fine, std::size_t target);

// ---- implementation ----

/// Sorts each row of g (filled, unsorted, between `start` offsets), sums its
/// repeats, clamps the sums to [1, kMaxGraphWeight] and closes the gaps.
void sort_rows(WeightedGraph& g, const std::vector<std::uint64_t>& start);

template <typename EachPair>
WeightedGraph graph_from_pairs(std::size_t vertices, EachPair&& each_pair, std::vector<std::int32_t> vertex_weight)
{
  // counted, then written straight into the rows (both ends of each pair),
  // then each row sorted and summed in place: no second copy of the pairs
  std::vector<std::uint64_t> start(vertices + 1, 0);
  each_pair([&](std::uint32_t a, std::uint32_t b, std::uint64_t) {
    if (a != b) {
      ++start[a + 1];
      ++start[b + 1];
    }
  });
  for (std::size_t v = 0; v < vertices; ++v)
    start[v + 1] += start[v];
  WeightedGraph g;
  g.adjncy.resize(start[vertices]);
  g.adjwgt.resize(start[vertices]);
  std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
  each_pair([&](std::uint32_t a, std::uint32_t b, std::uint64_t weight) {
    if (a == b)
      return;
    // a repeat's weight is summed later; one alone past the clamp already saturates it
    std::int32_t w = static_cast<std::int32_t>(weight < kMaxGraphWeight ? weight : kMaxGraphWeight);
    g.adjncy[next[a]] = static_cast<std::int32_t>(b);
    g.adjwgt[next[a]++] = w;
    g.adjncy[next[b]] = static_cast<std::int32_t>(a);
    g.adjwgt[next[b]++] = w;
  });
  next = {};
  g.vwgt = std::move(vertex_weight);
  sort_rows(g, start);
  return g;
}

} // namespace perfcast::comm
