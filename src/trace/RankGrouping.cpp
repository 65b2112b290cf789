#include "trace/RankGrouping.hpp"

#include "core/Error.hpp"

#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <sstream>

namespace perfcast {

namespace {

long long product(const std::vector<int>& dims)
{
  long long p = 1;
  for (int d : dims)
    p *= d;
  return p;
}

std::string grid_text(const std::vector<int>& dims)
{
  std::string s;
  for (std::size_t k = 0; k < dims.size(); ++k)
    s += (k ? "x" : "") + std::to_string(dims[k]);
  return s;
}

// every coarse grid whose dimensions divide the fine ones and multiply to `target`, in lexicographic order
void coarse_candidates(const std::vector<int>& fine, std::size_t k, long long target, std::vector<int>& current,
                       std::vector<std::vector<int>>& out)
{
  if (k == fine.size()) {
    if (target == 1)
      out.push_back(current);
    return;
  }
  for (int c = fine[k]; c >= 1; --c)
    if (fine[k] % c == 0 && target % c == 0) {
      current.push_back(c);
      coarse_candidates(fine, k + 1, target / c, current, out);
      current.pop_back();
    }
}

} // namespace

std::vector<int> parse_grid(std::string_view text, std::string_view what)
{
  std::vector<int> dims;
  std::size_t start = 0;
  while (true) {
    std::size_t x = text.find('x', start);
    std::string_view part = text.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start);
    long long v = 0;
    bool ok = !part.empty() && part.size() <= 9;
    for (char c : part)
      ok = ok && c >= '0' && c <= '9';
    if (ok)
      for (char c : part)
        v = v * 10 + (c - '0');
    if (!ok || v <= 0)
      throw Error(fmt::format("{} '{}': expected positive dimensions such as 64, 8x8 or 4x4x4", what, text));
    dims.push_back(static_cast<int>(v));
    if (x == std::string_view::npos)
      break;
    start = x + 1;
  }
  if (dims.size() > 3)
    throw Error(fmt::format("{} '{}': expected 1 to 3 dimensions, got {}", what, text, dims.size()));
  if (product(dims) > std::numeric_limits<int>::max())
    throw Error(fmt::format("{} '{}': more ranks than an int holds", what, text));
  return dims;
}

std::vector<int> trace_grid(std::string_view text, std::string_view what, int ranks, std::string_view trace)
{
  if (text.empty())
    return {ranks};
  std::vector<int> dims = parse_grid(text, what);
  if (product(dims) != ranks)
    throw Error(fmt::format("{} {}: {} ranks, the trace {} has {} (expected a grid of {} ranks)", what, text,
                            product(dims), trace, ranks, ranks));
  return dims;
}

std::vector<int> coarse_grid_for(const std::vector<int>& fine_dims, int coarse_ranks)
{
  std::vector<std::vector<int>> candidates;
  std::vector<int> current;
  if (coarse_ranks > 0)
    coarse_candidates(fine_dims, 0, coarse_ranks, current, candidates);
  if (candidates.empty())
    throw Error(fmt::format("--ranks {}: expected a count that splits the grid {} into equal blocks (each dimension of "
                            "the coarse grid dividing the fine one)",
                            coarse_ranks, grid_text(fine_dims)));
  const std::vector<int>* best = nullptr;
  long long best_sides = 0;
  for (const auto& c : candidates) {
    long long sides = 0;
    for (std::size_t k = 0; k < c.size(); ++k)
      sides += fine_dims[k] / c[k];
    if (!best || sides < best_sides) {
      best = &c;
      best_sides = sides;
    }
  }
  return *best;
}

RankGrouping block_grouping(const std::vector<int>& fine_dims, const std::vector<int>& coarse_dims)
{
  if (fine_dims.size() != coarse_dims.size())
    throw Error(fmt::format("coarse grid {}: expected {} dimensions, as the fine grid {} has", grid_text(coarse_dims),
                            fine_dims.size(), grid_text(fine_dims)));
  for (std::size_t k = 0; k < fine_dims.size(); ++k)
    if (fine_dims[k] % coarse_dims[k] != 0)
      throw Error(fmt::format("coarse grid {}: dimension {} ({}) does not divide the fine grid's ({}, grid {})",
                              grid_text(coarse_dims), k + 1, coarse_dims[k], fine_dims[k], grid_text(fine_dims)));
  RankGrouping g;
  g.fine_ranks = static_cast<int>(product(fine_dims));
  g.coarse_ranks = static_cast<int>(product(coarse_dims));
  g.group_of.resize(static_cast<std::size_t>(g.fine_ranks));
  std::size_t n = fine_dims.size();
  for (int r = 0; r < g.fine_ranks; ++r) {
    // row-major coordinates, last dimension fastest
    std::vector<int> coord(n);
    int rest = r;
    for (std::size_t k = n; k-- > 0;) {
      coord[k] = rest % fine_dims[k];
      rest /= fine_dims[k];
    }
    int group = 0;
    for (std::size_t k = 0; k < n; ++k)
      group = group * coarse_dims[k] + coord[k] / (fine_dims[k] / coarse_dims[k]);
    g.group_of[static_cast<std::size_t>(r)] = group;
  }
  return g;
}

RankGrouping read_grouping_map(const std::string& path, int fine_ranks)
{
  std::ifstream in(path);
  if (!in)
    fail_in(path, "cannot read the mapping file");
  RankGrouping g;
  g.fine_ranks = fine_ranks;
  g.group_of.assign(static_cast<std::size_t>(fine_ranks), -1);
  std::vector<std::size_t> line_of(static_cast<std::size_t>(fine_ranks), 0);
  std::string line;
  std::size_t number = 0;
  int largest = -1;
  while (std::getline(in, line)) {
    ++number;
    auto hash = line.find('#');
    if (hash != std::string::npos)
      line.resize(hash);
    std::istringstream fields(line);
    long long fine = 0, coarse = 0;
    std::string extra;
    if (!(fields >> fine)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos)
        continue;
      fail_at(path, number, "expected 'FINE_RANK COARSE_RANK'");
    }
    if (!(fields >> coarse) || (fields >> extra))
      fail_at(path, number, "expected 'FINE_RANK COARSE_RANK'");
    if (fine < 0 || fine >= fine_ranks)
      fail_at(path, number, fmt::format("fine rank {}: expected 0..{} (the trace has {} ranks)", fine, fine_ranks - 1,
                                        fine_ranks));
    if (coarse < 0 || coarse >= fine_ranks)
      fail_at(path, number, fmt::format("coarse rank {}: expected 0..{} (no more groups than ranks)", coarse,
                                        fine_ranks - 1));
    auto f = static_cast<std::size_t>(fine);
    if (g.group_of[f] >= 0)
      fail_at(path, number, fmt::format("fine rank {} is mapped twice (first on line {})", fine, line_of[f]));
    g.group_of[f] = static_cast<int>(coarse);
    line_of[f] = number;
    largest = std::max(largest, static_cast<int>(coarse));
  }
  for (int r = 0; r < fine_ranks; ++r)
    if (g.group_of[static_cast<std::size_t>(r)] < 0)
      fail_in(path, fmt::format("fine rank {} is not mapped (expected one line for each of the ranks 0..{})", r,
                                fine_ranks - 1));
  g.coarse_ranks = largest + 1;
  std::vector<int> members(static_cast<std::size_t>(g.coarse_ranks), 0);
  for (int c : g.group_of)
    ++members[static_cast<std::size_t>(c)];
  for (int c = 0; c < g.coarse_ranks; ++c)
    if (members[static_cast<std::size_t>(c)] == 0)
      fail_in(path, fmt::format("coarse rank {} has no fine rank (expected the coarse ranks 0..{} each used)", c,
                                g.coarse_ranks - 1));
  return g;
}

} // namespace perfcast
