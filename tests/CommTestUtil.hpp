#pragma once
// What the communication tests share: value graphs built by hand, so that
// the expected volumes can be derived in a comment.
#include "comm/ValueGraph.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

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

// The gather-scatter of examples/comm/mesh on an nx x ny quadrilateral mesh
// numbered in shuffled order, as the runtime records `steps` calls of it:
// per node a value u (vertex 3 m), a sum f (3 m + 1) and an input 1/count
// (3 m + 2); per element a value p (after the nodes). Each step p_e is
// computed from the u of its 4 nodes, f_m from the p of its elements, u_m
// from f_m, 1/count_m and itself; each edge carries `steps` distinct values.
// With `arrays`, the values name their heap arrays as the runtime records
// them (u, f and 1/count in arrays 1, 2, 3 at the node's shuffled number, p
// in array 4 at the element's): blocks of those arrays have no locality.
// `element_vertex`, when given, receives the vertex of element (i, j) at j nx + i.
inline comm::ValueGraph quad_mesh_graph(int nx, int ny, std::uint64_t steps, bool arrays = false,
                           std::vector<std::uint32_t>* element_vertex = nullptr)
{
  std::mt19937 random(2024);
  std::vector<int> node((nx + 1) * (ny + 1)), element(nx * ny);
  std::iota(node.begin(), node.end(), 0);
  std::iota(element.begin(), element.end(), 0);
  std::shuffle(node.begin(), node.end(), random);
  std::shuffle(element.begin(), element.end(), random);
  comm::ValueGraph g;
  g.region = "step";
  g.region_matched = true;
  g.region_calls = steps;
  auto add = [&](std::uint64_t work, bool input, std::uint32_t array, std::size_t index) {
    g.vertices.push_back({static_cast<std::uint32_t>(g.vertices.size() + 1), 8, work, input, arrays ? array : 0,
                          arrays ? 8 * index : 0});
  };
  if (arrays)
    for (std::uint32_t a = 1; a <= 4; ++a)
      g.arrays[a] = 8 * (a == 4 ? element.size() : node.size());
  for (std::size_t m = 0; m < node.size(); ++m) {
    add(steps, false, 1, m);     // u
    add(5 * steps, false, 2, m); // f: zeroed, then 4 additions per step
    add(0, true, 3, m);          // 1/count
  }
  std::uint32_t first_element = static_cast<std::uint32_t>(g.vertices.size());
  for (std::size_t e = 0; e < element.size(); ++e)
    add(steps, false, 4, e);
  auto link = [&](std::uint32_t a, std::uint32_t b, std::uint64_t values) { g.edges.push_back({a, b, steps, values}); };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      std::uint32_t p = first_element + static_cast<std::uint32_t>(element[j * nx + i]);
      if (element_vertex)
        element_vertex->push_back(p);
      for (int corner : {j * (nx + 1) + i, j * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i, (j + 1) * (nx + 1) + i + 1}) {
        std::uint32_t m = 3 * static_cast<std::uint32_t>(node[corner]);
        link(m, p, steps);     // u -> p
        link(p, m + 1, steps); // p -> f
      }
    }
  for (std::uint32_t m = 0; m < node.size(); ++m) {
    link(3 * m + 1, 3 * m, steps); // f -> u
    link(3 * m + 2, 3 * m, 1);     // 1/count -> u, one value
  }
  return g;
}

/// stencil_value_graph with its cells in one heap array (id 1) in row order,
/// as a program that keeps the grid in one malloc'd block lays them.
inline comm::ValueGraph stencil_in_one_array(int n, std::uint64_t steps)
{
  comm::ValueGraph g = stencil_value_graph(n, steps);
  g.arrays[1] = 8u * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  for (std::size_t v = 0; v < g.vertices.size(); ++v) {
    g.vertices[v].array = 1;
    g.vertices[v].offset = 8 * v;
  }
  return g;
}

} // namespace perfcast::test
