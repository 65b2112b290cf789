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

using test::quad_mesh_graph;

TEST(CommSpectral, ShuffledQuadMeshIsCutAlongAMeshLine)
{
  // 32 x 16 elements in two parts. Cut along the mesh line x = 16 (the
  // short one, 16 elements long) with the line's 17 nodes on one side: each
  // of those nodes sends its u to the other side's elements (17 values) and
  // each of the 16 elements across sends its p to those nodes' sums (16
  // values): 33 values per step, 8 bytes each. The edge-cut minimum of this
  // graph runs across elements diagonally and carries more (on the
  // 128 x 128 example, 416 values against 257).
  const std::uint64_t steps = 10;
  ValueGraph g = quad_mesh_graph(32, 16, steps);
  Singletons s = detect_singletons(g);
  ASSERT_EQ(s.count, 0u);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> c = spectral_coordinates(g, s);
  ASSERT_TRUE(c);
  std::optional<BlockPartition> grid = best_spectral_partition(g, s, 2, counter, *c);
  ASSERT_TRUE(grid);
  EXPECT_EQ(grid->name.rfind("spectral", 0), 0u) << grid->name;
  EXPECT_EQ(grid->p2p_bytes, 33u * steps * 8);
  // no array names the values, so no block decomposition has locality: the
  // estimate's partition is the spectral grid
  ValuePartition p = partition_values(g, s, 2);
  EXPECT_EQ(p.method.rfind("spectral", 0), 0u) << p.method;
  EXPECT_EQ(estimate_communication(g, s, p).p2p_bytes, 33u * steps * 8);
}

TEST(CommSpectral, ShuffledArraysGiveNoLocalBlocksSoTheMeshIsCutByGeometry)
{
  // The same mesh with its values in four heap arrays numbered in shuffled
  // order, as examples/comm/mesh stores them: blocks of the arrays are
  // tried, but they scatter neighbouring nodes over the processes and count
  // more than kBlocksWithoutLocality times METIS's bytes, so the spectral
  // grid competes and wins. 16 x 16 elements in 2 x 2: the elements of
  // each quadrant on one process, cut along the two middle mesh lines. With
  // each line's nodes on one side of the other line: away from the crossing
  // node, each line sends 8 + 8 node values (u) and 8 + 7 element values (p)
  // as in the two-part case; the crossing node's u goes to the 3 other
  // processes and the element diagonally across reads 3 other processes'
  // nodes, so they count 3 each: 35 u and 33 p, 68 values per step. The
  // crossing node's u, f and 1/count (three arrays, so three owners) placed
  // elsewhere count 69 to 72 (every placement enumerated), which is as good a
  // cut along the lines: the MPI code's owner of a node is arbitrary there.
  const std::uint64_t steps = 4;
  std::vector<std::uint32_t> element;
  ValueGraph g = quad_mesh_graph(16, 16, steps, true, &element);
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  std::optional<BlockPartition> blocks = best_block_partition(g, s, 4, counter);
  ASSERT_TRUE(blocks);
  ValuePartition p = partition_values(g, s, 4);
  EXPECT_EQ(p.method, "spectral 2x2");
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 16; ++i) {
      int corner = (j < 8 ? 0 : 16 * 8) + (i < 8 ? 0 : 8); // the quadrant's first element
      EXPECT_EQ(p.owner[element[j * 16 + i]], p.owner[element[corner]]) << i << " " << j;
    }
  std::uint64_t bytes = estimate_communication(g, s, p).p2p_bytes;
  EXPECT_GT(static_cast<double>(blocks->p2p_bytes), kBlocksWithoutLocality * static_cast<double>(bytes));
  EXPECT_GE(bytes, 68u * steps * 8);
  EXPECT_LE(bytes, 72u * steps * 8);
}

// The n x n grid of test::stencil_value_graph with its cells renumbered in
// shuffled order: nothing in the numbering says where a cell is.
ValueGraph shuffled(const ValueGraph& g)
{
  std::vector<std::uint32_t> to(g.vertices.size());
  std::iota(to.begin(), to.end(), 0u);
  std::shuffle(to.begin(), to.end(), std::mt19937(7));
  ValueGraph out = g;
  for (std::size_t v = 0; v < g.vertices.size(); ++v)
    out.vertices[to[v]] = g.vertices[v];
  for (ValueEdge& e : out.edges) {
    e.source = to[e.source];
    e.sink = to[e.sink];
  }
  return out;
}

TEST(CommSpectral, ShuffledGridInBlocksSendsTheBlocksHalo)
{
  // n x n 5-point grid in k x k blocks: 2 (k - 1) interior lines, each n
  // cells long, across which the n cells on both sides are read: 4 n (k - 1)
  // values per step; two parts: one line, 2 n. The Laplacian's two smoothest
  // eigenvectors are degenerate on a square grid, so the solver's basis is
  // any rotation of the grid's axes: this checks that the rotation finds
  // them. Cut at the least counted volume instead (about 40 degrees, a
  // diamond-shaped grid), 64 x 64 in 4 x 2 counts 472 values against the
  // blocks' 512, less than any blocked code sends.
  const std::uint64_t steps = 3;
  for (int n : {16, 24}) {
    ValueGraph g = shuffled(test::stencil_value_graph(n, steps));
    Singletons s = detect_singletons(g);
    VolumeCounter counter(g);
    std::optional<SpectralCoordinates> c = spectral_coordinates(g, s);
    ASSERT_TRUE(c);
    for (int k : {2, 4}) {
      std::optional<BlockPartition> blocks = best_spectral_partition(g, s, k * k, counter, *c);
      ASSERT_TRUE(blocks);
      EXPECT_EQ(blocks->name, k == 2 ? "spectral 2x2" : "spectral 4x4");
      EXPECT_EQ(blocks->p2p_bytes, 4u * n * (k - 1) * steps * 8) << n << " " << k;
    }
    EXPECT_EQ(best_spectral_partition(g, s, 2, counter, *c)->p2p_bytes, 2u * n * steps * 8) << n;
  }
}

TEST(CommSpectral, GridWithLocalBlocksKeepsThem)
{
  // The 16 x 16 grid with its cells in one heap array in row order: the
  // blocks of that array on a pr x pc grid (pr >= pc, the most even
  // factorisation, as MPI_Dims_create makes it) have pr - 1 interior lines
  // one way and pc - 1 the other, each n cells long with the n cells on both
  // sides read across: 2 n (pr - 1 + pc - 1) values per step. That is at
  // most kBlocksWithoutLocality times METIS's bytes, so the blocks are the
  // estimate, also where METIS's partition counts fewer bytes (a staggered
  // cut), and the spectral grid is not tried.
  const int n = 16;
  const std::uint64_t steps = 3;
  ValueGraph g = test::stencil_in_one_array(n, steps);
  Singletons s = detect_singletons(g);
  for (auto [pr, pc] : {std::pair{2, 1}, std::pair{2, 2}, std::pair{4, 2}, std::pair{4, 4}, std::pair{8, 4}}) {
    ValuePartition p = partition_values(g, s, pr * pc);
    EXPECT_NE(p.method, "metis");
    EXPECT_EQ(p.method.rfind("spectral", 0), std::string::npos) << p.method;
    EXPECT_EQ(estimate_communication(g, s, p).p2p_bytes, 2u * n * (pr - 1 + pc - 1) * steps * 8) << pr << "x" << pc;
  }
}

TEST(CommSpectral, VersionsOfAnArrayElementShareAnOwner)
{
  // Each cell of an n x n 5-point grid holds two values in turn, the two
  // vertices the runtime keeps per location (same array, same offset): the
  // new one computed from the old one's neighbours and the old one from the
  // new one's. A process owns a location, so both versions go together, and
  // the k x k grid counts the halo of the blocks, each boundary cell's
  // versions sent once each: 2 x 4 n (k - 1) values per step.
  const int n = 12, k = 2;
  const std::uint64_t steps = 2;
  ValueGraph g;
  g.region = "step";
  g.region_matched = true;
  g.region_calls = steps;
  g.arrays[1] = 8u * n * n;
  std::vector<std::uint32_t> order(2u * n * n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(3)); // vertex numbers say nothing
  g.vertices.resize(order.size());
  for (int c = 0; c < n * n; ++c)
    for (int version = 0; version < 2; ++version)
      g.vertices[order[2 * c + version]] = {order[2 * c + version] + 1, 8, steps, false, 1,
                                            8u * static_cast<std::uint64_t>(c)};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (auto [di, dj] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{-1, 0}, std::pair{0, 1}, std::pair{0, -1}}) {
        if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n)
          continue;
        int from = (i + di) * n + j + dj, to = i * n + j;
        for (int version = 0; version < 2; ++version)
          g.edges.push_back({order[2 * from + version], order[2 * to + 1 - version], steps, steps});
      }
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> c = spectral_coordinates(g, s);
  ASSERT_TRUE(c);
  std::optional<BlockPartition> grid = best_spectral_partition(g, s, k * k, counter, *c);
  ASSERT_TRUE(grid);
  for (int cell = 0; cell < n * n; ++cell)
    EXPECT_EQ(grid->owner[order[2 * cell]], grid->owner[order[2 * cell + 1]]) << cell;
  EXPECT_EQ(grid->p2p_bytes, 2u * 4 * n * (k - 1) * steps * 8);
}

TEST(CommSpectral, SameGraphSameOwners)
{
  ValueGraph g = quad_mesh_graph(12, 12, 2);
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  std::optional<SpectralCoordinates> a = spectral_coordinates(g, s), b = spectral_coordinates(g, s);
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
  std::optional<SpectralCoordinates> c = spectral_coordinates(g, s);
  ASSERT_TRUE(c);
  EXPECT_EQ(best_spectral_partition(g, s, 2, counter, *c)->p2p_bytes, 0u);
}

} // namespace
} // namespace perfcast::comm
