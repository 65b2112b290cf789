#pragma once
// What the communication tests share: value graphs built by hand, so that
// the expected volumes can be derived in a comment.
#include "comm/ValueGraph.hpp"

#include <cstdint>

namespace perfcast::test {

/// An n x n grid of doubles updated `steps` times by a 5-point stencil in the
/// region "step": one vertex per cell (the runtime's compression merges a
/// cell's successive values), an edge from each of the 4 neighbours, each
/// carrying `steps` distinct source values. With `param`, one more vertex
/// (index n*n) is read once by every cell: a parameter, a broadcast singleton.
inline comm::ValueGraph stencil_value_graph(int n, std::uint64_t steps, bool param = false)
{
  comm::ValueGraph g;
  g.region = "step";
  g.region_matched = true;
  g.region_calls = steps;
  for (int c = 0; c < n * n; ++c)
    g.vertices.push_back({static_cast<std::uint32_t>(c + 1), 8, steps, false});
  auto link = [&](int a, int b, std::uint64_t values) {
    g.edges.push_back({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), steps, values});
  };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int c = i * n + j;
      if (i > 0)
        link(c - n, c, steps);
      if (i < n - 1)
        link(c + n, c, steps);
      if (j > 0)
        link(c - 1, c, steps);
      if (j < n - 1)
        link(c + 1, c, steps);
    }
  if (param) {
    g.vertices.push_back({static_cast<std::uint32_t>(n * n + 1), 8, 0, false});
    for (int c = 0; c < n * n; ++c)
      link(n * n, c, 1);
  }
  return g;
}

} // namespace perfcast::test
