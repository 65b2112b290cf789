// Analytic tests of the communication estimate (src/comm) on value graphs
// built here, so that the expected volumes can be derived by hand.
#include "comm/CommEstimate.hpp"
#include "comm/CommRun.hpp"
#include "comm/Partition.hpp"
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"
#include "core/Error.hpp"
#include "CommTestUtil.hpp"

#include <gtest/gtest.h>

namespace perfcast::comm {
namespace {

// The k x k block partition of the n x n grid.
ValuePartition block_partition(int n, int k)
{
  ValuePartition p;
  p.parts = k * k;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      p.owner.push_back((i / (n / k)) * k + j / (n / k));
  return p;
}

TEST(CommEstimate, HaloVolumeOfGridOverBlockPartition)
{
  // n x n grid over k x k blocks: k-1 interior cut lines in each direction,
  // each n cells long; across a line every cell on both sides is read by its
  // neighbour once per step, so 2n values per line per step, 4n(k-1) in all,
  // 8 bytes each: n = 24, k = 3, 5 steps -> 4*24*2*8*5 = 7680 bytes.
  const int n = 24, k = 3;
  const std::uint64_t steps = 5;
  ValueGraph g = test::stencil_value_graph(n, steps);
  Singletons none = detect_singletons(g);
  ASSERT_EQ(none.count, 0u); // every cell has 2 to 4 neighbours: no outlier
  CommEstimate e = estimate_communication(g, none, block_partition(n, k));
  EXPECT_EQ(e.p2p_bytes, 4u * n * (k - 1) * 8 * steps);
  EXPECT_EQ(e.collective_bytes, 0u);
  // a corner block sends n/k values to each of its 2 neighbours per step
  EXPECT_EQ(e.matrix[0][1], static_cast<std::uint64_t>(n / k) * 8 * steps);
  EXPECT_EQ(e.matrix[0][k], static_cast<std::uint64_t>(n / k) * 8 * steps);
  EXPECT_EQ(e.matrix[0][k + 1], 0u); // no corners in a 5-point stencil
  // 24 neighbouring ordered pairs in a 3 x 3 block grid (2 k (k-1) pairs,
  // both directions), one message per step each
  EXPECT_EQ(e.messages, 2u * 2 * k * (k - 1) * steps);
}

TEST(CommEstimate, MetisPartitionOfGridIsCloseToTheBestHalo)
{
  // 4 parts of a 32 x 32 grid: the best cut is 2 x 2 blocks, 2 lines of 32
  // cells, 4 * 32 values per step (strips would need 3 lines, 6 * 32). METIS
  // must land between the best and 20% above it.
  const int n = 32;
  ValueGraph g = test::stencil_value_graph(n, 1);
  CommEstimate e = estimate_for_procs(g, {4}).at(0);
  double best = 4.0 * n * 8;
  EXPECT_GE(static_cast<double>(e.p2p_bytes), best);
  EXPECT_LE(static_cast<double>(e.p2p_bytes), 1.2 * best);
}

TEST(CommEstimate, RedundantReadsOfOneRemoteValueAreSentOnce)
{
  // one source on process 0 read by three sinks on process 1, 4 distinct
  // values each: process 1 receives the 4 values once, not 12 times
  ValueGraph g;
  for (std::uint32_t v = 1; v <= 4; ++v)
    g.vertices.push_back({v, 8, 1, false});
  for (std::uint32_t t = 1; t <= 3; ++t)
    g.edges.push_back({0, t, 4, 4});
  Singletons s = detect_singletons(g, 2.0); // threshold above any score: no singletons
  ValuePartition p{{0, 1, 1, 1}, 2, false};
  EXPECT_EQ(estimate_communication(g, s, p).p2p_bytes, 4u * 8);
}

// A grid whose cells all read one value `hub` and, when `written`, all feed it.
ValueGraph grid_with_hub(int n, bool read, bool written, std::uint64_t steps)
{
  ValueGraph g = test::stencil_value_graph(n, steps);
  std::uint32_t hub = static_cast<std::uint32_t>(g.vertices.size());
  g.vertices.push_back({hub + 1, 8, written ? steps : 0, !written});
  for (std::uint32_t c = 0; c < hub; ++c) {
    if (read)
      g.edges.push_back({hub, c, steps, steps});
    if (written)
      g.edges.push_back({c, hub, steps, steps});
  }
  return g;
}

TEST(CommEstimate, ParameterReadEverywhereIsABroadcast)
{
  // the hub is adjacent to all 256 other values: density score 256/256 = 1
  // (its distance score, against a centroid of min(mean 5.73, median 5) = 5,
  // is 1 - 5/256 = 0.980) -> a singleton with only
  // outgoing edges, a broadcast of one 8-byte value per step to P-1 others:
  // P = 4, 3 steps -> 3 * 3 * 8 = 72 bytes
  ValueGraph g = grid_with_hub(16, true, false, 3);
  Singletons s = detect_singletons(g);
  ASSERT_EQ(s.count, 1u);
  EXPECT_EQ(s.kind.back(), SingletonKind::Broadcast);
  EXPECT_DOUBLE_EQ(s.score.back(), 1.0);
  EXPECT_DOUBLE_EQ(s.centroid, 5.0);
  CommEstimate e = estimate_communication(g, s, partition_values(g, s, 4));
  EXPECT_EQ(e.collective_bytes, 3u * 3 * 8);
  EXPECT_EQ(e.collectives, 3u);
}

TEST(CommEstimate, NormReadAndWrittenIsAnAllreduce)
{
  // written by every cell and read by every cell: an allreduce per step,
  // counted as a reduce plus a broadcast, 2 (P-1) values: P = 8, 2 steps ->
  // 2 * 2 * 7 * 8 = 224 bytes
  ValueGraph g = grid_with_hub(16, true, true, 2);
  Singletons s = detect_singletons(g);
  ASSERT_EQ(s.count, 1u);
  EXPECT_EQ(s.kind.back(), SingletonKind::Allreduce);
  CommEstimate e = estimate_communication(g, s, partition_values(g, s, 8));
  EXPECT_EQ(e.collective_bytes, 2u * 2 * 7 * 8);
}

TEST(CommEstimate, MoreProcessesThanValuesIsAnError)
{
  ValueGraph g = test::stencil_value_graph(3, 1);
  EXPECT_THROW(estimate_for_procs(g, {10}), Error);
}

TEST(CommGraph, ParsesTheRuntimeFormatAndLocatesErrors)
{
  std::string text = "perfcast-comm-graph 1\nregion step 1 7\ncounts 10 2 3 4 0 0 4096\n"
                     "vertices 2\n5 8 7 0\n9 8 0 1\nedges 1\n9 5 7 7\nend\n";
  ValueGraph g = parse_value_graph(text, "g");
  EXPECT_EQ(g.region, "step");
  EXPECT_EQ(g.iterations(), 7u);
  ASSERT_EQ(g.edges.size(), 1u);
  EXPECT_EQ(g.edges[0].source, 1u);
  EXPECT_TRUE(g.vertices[1].input);
  try {
    parse_value_graph("perfcast-comm-graph 1\nregion - 0 0\ncounts 1 1 1 1 0 0 1\nvertices 1\n5 8 x 0\n", "g");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("g:5: expected", 0), 0u) << e.what();
  }
}

TEST(CommGraph, RegionNeverEnteredIsAnError)
{
  std::string text = "perfcast-comm-graph 1\nregion step 1 0\ncounts 0 0 0 0 0 0 0\nvertices 0\nedges 0\nend\n";
  try {
    analyse_graph(parse_value_graph(text, "g"), {2}, "./app");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("never entered"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace perfcast::comm
