#include "comm/Blocks.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <unordered_map>

namespace perfcast::comm {

VolumeCounter::VolumeCounter(const ValueGraph& graph, std::size_t sample_edges) : graph_(graph)
{
  first_.assign(graph.vertices.size() + 1, 0);
  for (const ValueEdge& e : graph.edges)
    ++first_[e.source + 1];
  for (std::size_t v = 0; v < graph.vertices.size(); ++v)
    first_[v + 1] += first_[v];
  out_.resize(graph.edges.size());
  std::vector<std::uint32_t> next(first_.begin(), first_.end() - 1);
  for (const ValueEdge& e : graph.edges)
    out_[next[e.source]++] = std::uint64_t{e.sink} << 32 | e.versions;
  if (graph.edges.size() <= sample_edges)
    return;
  // every stride-th source by a fixed hash of its index: spread over the
  // arrays and the positions in them alike, the same on every call
  std::uint64_t stride = (graph.edges.size() + sample_edges - 1) / std::max<std::size_t>(sample_edges, 1);
  for (std::uint32_t s = 0; s < graph.vertices.size(); ++s) {
    std::uint64_t h = (std::uint64_t{s} + 1) * 0x9e3779b97f4a7c15ULL;
    if ((h >> 32) % stride == 0 && first_[s + 1] > first_[s])
      sample_.push_back(s);
  }
}

std::uint64_t VolumeCounter::bytes(const std::vector<int>& owner, int parts) const
{
  return count(owner, parts, nullptr, graph_.vertices.size());
}

std::uint64_t VolumeCounter::sampled_bytes(const std::vector<int>& owner, int parts) const
{
  return sample_.empty() ? bytes(owner, parts) : count(owner, parts, sample_.data(), sample_.size());
}

std::uint64_t VolumeCounter::count(const std::vector<int>& owner, int parts, const std::uint32_t* sources,
                                   std::size_t n) const
{
  // per source, each receiving process gets the most distinct values any one
  // of its edges into that process carried (Algorithm 4's pruning)
  std::vector<std::uint64_t> most(static_cast<std::size_t>(parts), 0);
  std::vector<char> seen(static_cast<std::size_t>(parts), 0);
  std::vector<int> touched;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t s = sources ? sources[i] : i;
    int from = owner[s];
    if (from < 0)
      continue;
    for (std::uint32_t k = first_[s]; k < first_[s + 1]; ++k) {
      int to = owner[out_[k] >> 32];
      if (to < 0 || to == from)
        continue;
      if (!seen[to]) {
        seen[to] = 1;
        touched.push_back(to);
      }
      most[to] = std::max<std::uint64_t>(most[to], out_[k] & 0xffffffffu);
    }
    for (int t : touched) {
      total += most[t] * graph_.vertices[s].bytes;
      most[t] = 0;
      seen[t] = 0;
    }
    touched.clear();
  }
  return total;
}

std::vector<std::uint64_t> even_factors(std::uint64_t n, int d)
{
  std::vector<std::uint64_t> primes;
  for (std::uint64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      primes.push_back(p);
      n /= p;
    }
  if (n > 1)
    primes.push_back(n);
  std::vector<std::uint64_t> factors(static_cast<std::size_t>(d), 1);
  std::sort(primes.rbegin(), primes.rend());
  for (std::uint64_t p : primes)
    *std::min_element(factors.begin(), factors.end()) *= p;
  std::sort(factors.rbegin(), factors.rend());
  return factors;
}

RankedCandidates::RankedCandidates(std::size_t keep) : keep_(std::max<std::size_t>(keep, 1)) {}

void RankedCandidates::offer(std::uint64_t rank, std::vector<int> owner, std::string name)
{
  // kept in ascending rank, earlier offers first among equals
  auto at = std::upper_bound(kept_.begin(), kept_.end(), rank,
                             [](std::uint64_t r, const BlockPartition& c) { return r < c.p2p_bytes; });
  if (static_cast<std::size_t>(at - kept_.begin()) >= keep_)
    return;
  kept_.insert(at, BlockPartition{std::move(owner), rank, std::move(name)});
  if (kept_.size() > keep_)
    kept_.pop_back();
}

std::optional<BlockPartition> RankedCandidates::best(const VolumeCounter& counter, int parts)
{
  if (kept_.empty())
    return std::nullopt;
  if (!counter.sampled())
    return std::move(kept_.front()); // ranked on the exact count already
  std::optional<BlockPartition> best;
  for (BlockPartition& c : kept_) {
    c.p2p_bytes = counter.bytes(c.owner, parts);
    if (!best || c.p2p_bytes < best->p2p_bytes)
      best = std::move(c);
  }
  return best;
}

bool work_balanced(const ValueGraph& graph, const std::vector<int>& owner, int parts)
{
  std::vector<std::uint64_t> work(static_cast<std::size_t>(parts), 0);
  std::uint64_t total = 0;
  for (std::size_t v = 0; v < owner.size(); ++v)
    if (owner[v] >= 0) {
      work[owner[v]] += graph.vertices[v].work;
      total += graph.vertices[v].work;
    }
  std::uint64_t most = *std::max_element(work.begin(), work.end());
  return static_cast<double>(most) * parts <= 1.05 * static_cast<double>(total);
}

namespace {

using Shape = std::vector<std::uint64_t>;

// The values of one heap array: (vertex, element index) and the shapes tried.
struct ArrayValues {
  std::uint64_t elements = 0;
  bool computed = false; ///< some of its values are computed in the region
  std::vector<std::pair<std::uint32_t, std::uint64_t>> members;
  std::vector<Shape> shapes[4]; // per dimension count, the options tried
};

// Every ordered way of writing n as a product of d factors.
void grids(int n, int d, std::vector<int>& prefix, std::vector<std::vector<int>>& out)
{
  if (d == 1) {
    prefix.push_back(n);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int f = 1; f <= n; ++f)
    if (n % f == 0) {
      prefix.push_back(f);
      grids(n / f, d - 1, prefix, out);
      prefix.pop_back();
    }
}

// The strides an array's accesses suggest: the most frequent index distances
// (2 or more, dividing its length) between values of arrays of its length.
std::vector<std::uint64_t> frequent_strides(const std::map<std::uint64_t, std::uint64_t>& histogram,
                                            std::uint64_t elements)
{
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked; // (-count, stride) order
  for (auto [stride, count] : histogram)
    if (stride >= 2 && stride < elements && elements % stride == 0)
      ranked.emplace_back(count, stride);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<std::uint64_t> out;
  for (std::size_t k = 0; k < ranked.size() && k < 3; ++k)
    out.push_back(ranked[k].second);
  return out;
}

void add_shapes(ArrayValues& a, const std::vector<std::uint64_t>& strides)
{
  std::uint64_t n = a.elements;
  a.shapes[1] = {Shape{n}};
  for (int d = 2; d <= 3; ++d)
    a.shapes[d] = {even_factors(n, d)};
  for (std::uint64_t s : strides)
    a.shapes[2].push_back({n / s, s});
  for (std::uint64_t inner : strides)
    for (std::uint64_t outer : strides)
      if (inner < outer && outer % inner == 0 && a.shapes[3].size() < 2)
        a.shapes[3].push_back({n / outer, outer / inner, inner});
}

// The heap arrays of the non-singleton values, with their shape options.
std::vector<ArrayValues> find_arrays(const ValueGraph& graph, const Singletons& singletons, int parts)
{
  std::map<std::uint32_t, ArrayValues> arrays;
  std::map<std::uint32_t, unsigned> element_bytes;
  for (std::size_t v = 0; v < graph.vertices.size(); ++v) {
    const ValueVertex& x = graph.vertices[v];
    if (x.array && singletons.kind[v] == SingletonKind::None && x.bytes > 0) {
      unsigned& b = element_bytes[x.array];
      b = b ? std::min(b, x.bytes) : x.bytes;
    }
  }
  std::vector<std::int64_t> index(graph.vertices.size(), -1);
  std::vector<std::uint32_t> array_of(graph.vertices.size(), 0);
  for (std::size_t v = 0; v < graph.vertices.size(); ++v) {
    const ValueVertex& x = graph.vertices[v];
    if (!x.array || singletons.kind[v] != SingletonKind::None || !element_bytes.contains(x.array))
      continue;
    unsigned b = element_bytes[x.array];
    ArrayValues& a = arrays[x.array];
    a.elements = graph.arrays.at(x.array) / b;
    if (x.offset / b >= a.elements)
      continue; // a tail shorter than an element
    index[v] = static_cast<std::int64_t>(x.offset / b);
    array_of[v] = x.array;
    a.members.emplace_back(static_cast<std::uint32_t>(v), x.offset / b);
    a.computed = a.computed || x.work > 0;
  }
  std::map<std::uint32_t, std::map<std::uint64_t, std::uint64_t>> distances;
  for (const ValueEdge& e : graph.edges) {
    std::uint32_t as = array_of[e.source], at = array_of[e.sink];
    if (!as || !at || arrays[as].elements != arrays[at].elements)
      continue;
    std::int64_t d = index[e.sink] - index[e.source];
    std::uint64_t distance = static_cast<std::uint64_t>(d < 0 ? -d : d);
    ++distances[as][distance];
    if (at != as)
      ++distances[at][distance];
  }
  std::vector<ArrayValues> out;
  for (auto& [id, a] : arrays) {
    if (a.elements < static_cast<std::uint64_t>(parts))
      continue; // too small to spread; its values follow their neighbours
    add_shapes(a, frequent_strides(distances[id], a.elements));
    out.push_back(std::move(a));
  }
  return out;
}

// For each coordinate of each dimension of a shape, its block: cut so that
// every block has the same work (the values computed there, summed over the
// arrays of that shape), or the same number of coordinates when none has work.
std::vector<std::vector<int>> block_cuts(const ValueGraph& graph, const std::vector<const ArrayValues*>& arrays,
                                         const Shape& shape, const std::vector<int>& grid)
{
  std::size_t d = shape.size();
  std::vector<std::vector<double>> weight(d);
  for (std::size_t k = 0; k < d; ++k)
    weight[k].assign(shape[k], 0.0);
  double total = 0;
  for (const ArrayValues* a : arrays)
    for (auto [v, element] : a->members) {
      double w = static_cast<double>(graph.vertices[v].work);
      total += w;
      std::uint64_t rest = element;
      for (std::size_t k = d; k-- > 0;) {
        weight[k][rest % shape[k]] += w;
        rest /= shape[k];
      }
    }
  std::vector<std::vector<int>> cut(d);
  for (std::size_t k = 0; k < d; ++k) {
    if (total == 0)
      std::fill(weight[k].begin(), weight[k].end(), 1.0);
    double sum = 0, all = 0;
    for (double w : weight[k])
      all += w;
    for (double w : weight[k]) {
      int block = static_cast<int>((sum + w / 2) * grid[k] / all);
      cut[k].push_back(std::min(block, grid[k] - 1));
      sum += w;
    }
  }
  return cut;
}

// Undirected neighbours with the bytes between them, for the values outside arrays.
using Neighbours = std::unordered_map<std::uint32_t, std::vector<std::pair<std::uint32_t, std::uint64_t>>>;

// Gives each unowned non-singleton value the process it exchanges most bytes
// with (rounds until nothing changes), else the least loaded one.
void place_leftovers(const ValueGraph& graph, const std::vector<std::uint32_t>& leftovers,
                     const Neighbours& neighbours, std::vector<int>& owner, int parts)
{
  std::vector<std::uint64_t> pull(static_cast<std::size_t>(parts));
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::uint32_t v : leftovers) {
      if (owner[v] >= 0)
        continue;
      std::fill(pull.begin(), pull.end(), 0);
      bool any = false;
      if (auto it = neighbours.find(v); it != neighbours.end())
        for (auto [u, bytes] : it->second)
          if (owner[u] >= 0) {
            pull[owner[u]] += bytes;
            any = true;
          }
      if (any) {
        owner[v] = static_cast<int>(std::max_element(pull.begin(), pull.end()) - pull.begin());
        progress = true;
      }
    }
  }
  std::vector<std::uint64_t> work(static_cast<std::size_t>(parts), 0);
  for (std::size_t v = 0; v < owner.size(); ++v)
    if (owner[v] >= 0)
      work[owner[v]] += graph.vertices[v].work;
  for (std::uint32_t v : leftovers)
    if (owner[v] < 0) {
      owner[v] = static_cast<int>(std::min_element(work.begin(), work.end()) - work.begin());
      work[owner[v]] += graph.vertices[v].work;
    }
}

} // namespace

std::optional<BlockPartition> best_block_partition(const ValueGraph& graph, const Singletons& singletons, int parts,
                                                   const VolumeCounter& counter)
{
  std::vector<ArrayValues> arrays = find_arrays(graph, singletons, parts);
  if (arrays.empty() || parts < 2)
    return std::nullopt;
  // two ways to place the arrays nothing computes into (inputs): cut into
  // blocks like the others, or each value with the process that reads it most
  bool inputs = std::any_of(arrays.begin(), arrays.end(), [](const ArrayValues& a) { return !a.computed; });
  int variants = inputs ? 2 : 1;
  std::vector<std::uint32_t> leftovers[2];
  for (int follow = 0; follow < variants; ++follow) {
    std::vector<char> blocked(graph.vertices.size(), 0);
    for (const ArrayValues& a : arrays)
      if (a.computed || !follow)
        for (auto [v, element] : a.members)
          blocked[v] = 1;
    for (std::size_t v = 0; v < graph.vertices.size(); ++v)
      if (!blocked[v] && singletons.kind[v] == SingletonKind::None)
        leftovers[follow].push_back(static_cast<std::uint32_t>(v));
  }
  Neighbours neighbours;
  for (std::uint32_t v : leftovers[variants - 1])
    neighbours[v];
  for (const ValueEdge& e : graph.edges) {
    std::uint64_t bytes = std::uint64_t{e.versions} * graph.vertices[e.source].bytes;
    if (auto it = neighbours.find(e.source); it != neighbours.end())
      it->second.emplace_back(e.sink, bytes);
    if (auto it = neighbours.find(e.sink); it != neighbours.end())
      it->second.emplace_back(e.source, bytes);
  }
  RankedCandidates ranked(counter.sampled() ? kBlocksCountedExactly : 1);
  for (int d = 1; d <= 3; ++d) {
    std::vector<std::vector<int>> all_grids;
    std::vector<int> prefix;
    grids(parts, d, prefix, all_grids);
    std::size_t options = 0;
    for (const ArrayValues& a : arrays)
      options = std::max(options, a.shapes[d].size());
    std::vector<std::vector<Shape>> tried;
    for (std::size_t k = 0; k < options; ++k) {
      std::vector<Shape> chosen;
      for (const ArrayValues& a : arrays)
        chosen.push_back(a.shapes[d][std::min(k, a.shapes[d].size() - 1)]);
      if (std::find(tried.begin(), tried.end(), chosen) != tried.end())
        continue;
      tried.push_back(chosen);
      for (int candidate = 0; candidate < variants * static_cast<int>(all_grids.size()); ++candidate) {
        int follow = candidate / static_cast<int>(all_grids.size());
        const std::vector<int>& grid = all_grids[candidate % all_grids.size()];
        std::map<Shape, std::vector<const ArrayValues*>> by_shape;
        for (std::size_t i = 0; i < arrays.size(); ++i)
          if (arrays[i].computed || !follow)
            by_shape[chosen[i]].push_back(&arrays[i]);
        std::vector<int> owner(graph.vertices.size(), -1);
        for (auto& [shape, group] : by_shape) {
          std::vector<std::vector<int>> cut = block_cuts(graph, group, shape, grid);
          for (const ArrayValues* a : group)
            for (auto [v, element] : a->members) {
              int rank = 0, scale = 1;
              std::uint64_t rest = element;
              for (std::size_t j = shape.size(); j-- > 0;) {
                rank += cut[j][rest % shape[j]] * scale;
                scale *= grid[j];
                rest /= shape[j];
              }
              owner[v] = rank;
            }
        }
        place_leftovers(graph, leftovers[follow], neighbours, owner, parts);
        if (!work_balanced(graph, owner, parts))
          continue;
        std::string name = fmt::format("{}-D {}{}", d, fmt::join(grid, "x"), follow ? ", inputs with readers" : "");
        std::uint64_t rank = counter.sampled_bytes(owner, parts); // before owner is moved
        ranked.offer(rank, std::move(owner), std::move(name));
      }
    }
  }
  return ranked.best(counter, parts);
}

} // namespace perfcast::comm
