// Spectral coordinates (src/comm/Spectral): closed-form halo volumes of a
// grid and of a shuffled quadrilateral mesh, whose values carry no array
// offsets, so only the graph's own shape can find the cuts along mesh lines.
#include "comm/Blocks.hpp"
#include "comm/CommEstimate.hpp"
#include "comm/Partition.hpp"
#include "comm/Singletons.hpp"
#include "comm/Spectral.hpp"
#include "comm/ValueGraph.hpp"
#include "CommTestUtil.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <random>

namespace perfcast::comm {
namespace {

// The gather-scatter of examples/comm/mesh on an nx x ny quadrilateral mesh
// numbered in shuffled order, as the runtime records `steps` calls of it:
// per node a value u (vertex 3 m), a sum f (3 m + 1) and an input 1/count
// (3 m + 2); per element a value p (after the nodes). Each step p_e is
// computed from the u of its 4 nodes, f_m from the p of its elements, u_m
// from f_m, 1/count_m and itself; each edge carries `steps` distinct values.
ValueGraph quad_mesh_graph(int nx, int ny, std::uint64_t steps)
{
  std::mt19937 random(2024);
  std::vector<int> node((nx + 1) * (ny + 1)), element(nx * ny);
  std::iota(node.begin(), node.end(), 0);
  std::iota(element.begin(), element.end(), 0);
  std::shuffle(node.begin(), node.end(), random);
  std::shuffle(element.begin(), element.end(), random);
  ValueGraph g;
  g.region = "step";
  g.region_matched = true;
  g.region_calls = steps;
  auto add = [&](std::uint64_t work, bool input) {
    g.vertices.push_back({static_cast<std::uint32_t>(g.vertices.size() + 1), 8, work, input});
  };
  for (std::size_t m = 0; m < node.size(); ++m) {
    add(steps, false);     // u
    add(5 * steps, false); // f: zeroed, then 4 additions per step
    add(0, true);          // 1/count
  }
  std::uint32_t first_element = static_cast<std::uint32_t>(g.vertices.size());
  for (std::size_t e = 0; e < element.size(); ++e)
    add(steps, false);
  auto link = [&](std::uint32_t a, std::uint32_t b, std::uint64_t values) { g.edges.push_back({a, b, steps, values}); };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      std::uint32_t p = first_element + static_cast<std::uint32_t>(element[j * nx + i]);
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

TEST(CommSpectral, ShuffledQuadMeshIsCutAlongAMeshLine)
{
  // 32 x 16 elements in two parts. Cut along the mesh line x = 16 (the
  // short one, 16 elements long) with the line's 17 nodes on one side: each
  // of those nodes sends its u to the other side's elements (17 values) and
  // each of the 16 elements across sends its p to those nodes' sums (16
  // values): 33 values per step, 8 bytes each. The spectral grid finds that
  // line up to one value (34: not yet explained, see docs/comm.md); the
  // edge-cut minimum of this graph runs across elements diagonally and
  // carries far more (on the 128 x 128 example, 416 values against 257).
  const std::uint64_t steps = 10;
  ValueGraph g = quad_mesh_graph(32, 16, steps);
  Singletons s = detect_singletons(g);
  ASSERT_EQ(s.count, 0u);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> c = spectral_coordinates(g, s, counter);
  ASSERT_TRUE(c);
  std::optional<BlockPartition> grid = best_spectral_partition(g, s, 2, counter, *c);
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->name.rfind("spectral", 0), 0u) << grid->name;
  EXPECT_GE(grid->p2p_bytes, 33u * steps * 8);
  EXPECT_LE(grid->p2p_bytes, 34u * steps * 8);
  // the estimate's own partition (METIS, or blocks of the arrays; the
  // spectral grid is not used by it yet, docs/comm.md) counts more here
  ValuePartition p = partition_values(g, s, 2);
  EXPECT_GT(estimate_communication(g, s, p).p2p_bytes, grid->p2p_bytes);
}

TEST(CommSpectral, GridInBlocksSendsItsHalo)
{
  // n x n 5-point grid (tests/CommTestUtil.hpp) in k x k blocks: 2 (k - 1)
  // interior lines, each n cells long, across which the n cells on both
  // sides are read: 4 n (k - 1) values per step. The Laplacian's two
  // smoothest eigenvectors are degenerate on a square grid, so this also
  // checks that the rotation lines the coordinates up with the grid. At
  // k = 4 the grid counts 6 values per step more than the halo (198 against
  // 192, not yet explained); a diagonal or rotated cut would count far more.
  const int n = 16;
  const std::uint64_t steps = 3;
  ValueGraph g = test::stencil_value_graph(n, steps);
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> c = spectral_coordinates(g, s, counter);
  ASSERT_TRUE(c);
  for (int k : {2, 4}) {
    std::optional<BlockPartition> blocks = best_spectral_partition(g, s, k * k, counter, *c);
    ASSERT_TRUE(blocks);
    EXPECT_EQ(blocks->name, k == 2 ? "spectral 2x2" : "spectral 4x4");
    std::uint64_t halo = 4u * n * (k - 1) * steps * 8;
    EXPECT_GE(blocks->p2p_bytes, halo) << k;
    EXPECT_LE(blocks->p2p_bytes, halo + (k == 2 ? 0u : 6u * steps * 8)) << k;
  }
  // two parts: one line, 2 n values per step
  EXPECT_EQ(best_spectral_partition(g, s, 2, counter, *c)->p2p_bytes, 2u * n * steps * 8);
}

TEST(CommSpectral, SameGraphSameOwners)
{
  ValueGraph g = quad_mesh_graph(12, 12, 2);
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> a = spectral_coordinates(g, s, counter), b = spectral_coordinates(g, s, counter);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->x, b->x);
  EXPECT_EQ(best_spectral_partition(g, s, 4, counter, *a)->owner, best_spectral_partition(g, s, 4, counter, *b)->owner);
}

TEST(CommSpectral, DisconnectedGraphStillPartitions)
{
  // two separate 8 x 8 grids side by side in the vertex list: the null space
  // has a dimension per component, projected out, and two parts take one
  // grid each, which exchange nothing
  ValueGraph g = test::stencil_value_graph(8, 2);
  std::size_t half = g.vertices.size();
  ValueGraph second = test::stencil_value_graph(8, 2);
  for (ValueVertex v : second.vertices) {
    v.id += static_cast<std::uint32_t>(half);
    g.vertices.push_back(v);
  }
  for (ValueEdge e : second.edges) {
    e.source += static_cast<std::uint32_t>(half);
    e.sink += static_cast<std::uint32_t>(half);
    g.edges.push_back(e);
  }
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> c = spectral_coordinates(g, s, counter);
  ASSERT_TRUE(c);
  EXPECT_EQ(best_spectral_partition(g, s, 2, counter, *c)->p2p_bytes, 0u);
}

} // namespace
} // namespace perfcast::comm
