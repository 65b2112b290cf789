// Block decompositions of heap arrays (src/comm/Blocks): closed-form volumes
// of a dense matrix product, and the counted volume against Algorithm 4's.
#include "comm/Blocks.hpp"
#include "comm/CommEstimate.hpp"
#include "comm/Partition.hpp"
#include "comm/Singletons.hpp"
#include "comm/ValueGraph.hpp"
#include "core/Error.hpp"
#include "CommTestUtil.hpp"

#include <gtest/gtest.h>

namespace perfcast::comm {
namespace {

// C = A B for n x n doubles in three heap arrays (ids 1, 2, 3), as the runtime
// records it: A and B are inputs, each C[i][j] is computed once from the n
// values A[i][k] and the n values B[k][j].
ValueGraph matmul_graph(int n)
{
  ValueGraph g;
  g.region = "multiply";
  g.region_matched = true;
  g.region_calls = 1;
  std::uint64_t bytes = static_cast<std::uint64_t>(n) * n * 8;
  for (std::uint32_t a = 1; a <= 3; ++a) {
    g.arrays[a] = bytes;
    for (int e = 0; e < n * n; ++e)
      g.vertices.push_back({static_cast<std::uint32_t>(g.vertices.size() + 1), 8, a == 3 ? 1u : 0u, a != 3, a,
                            static_cast<std::uint64_t>(e) * 8});
  }
  auto at = [n](int array, int i, int j) { return static_cast<std::uint32_t>(array * n * n + i * n + j); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        g.edges.push_back({at(0, i, k), at(2, i, j), 1, 1});
        g.edges.push_back({at(1, k, j), at(2, i, j), 1, 1});
      }
  return g;
}

TEST(CommBlocks, MatmulAtFourProcessesSendsTwoNSquaredValues)
{
  // 2 x 2 blocks of all three matrices: process (r, c) owns C, A and B block
  // (r, c), needs A's block row r and B's block column c, and so receives the
  // n/2 x n/2 block of A from (r, 1-c) and of B from (1-r, c): n^2/2 values,
  // 2 n^2 over the four processes (SUMMA's n^2 (pr + pc - 2)). A 1-D split
  // would send n^2 (P - 1) = 3 n^2, and the graph offers nothing cheaper.
  const int n = 16;
  ValueGraph g = matmul_graph(n);
  Singletons s = detect_singletons(g);
  ASSERT_EQ(s.count, 0u);
  ValuePartition p = partition_values(g, s, 4);
  EXPECT_EQ(p.method, "2-D 2x2");
  CommEstimate e = estimate_communication(g, s, p);
  EXPECT_EQ(e.p2p_bytes, 2u * n * n * 8);
  EXPECT_EQ(e.partition, "2-D 2x2");
}

TEST(CommBlocks, MatmulBlocksFollowTheProcessGrid)
{
  // P = 8 and 16: the least volume n^2 (pr + pc - 2) is at the grids 4 x 2
  // (or 2 x 4) and 4 x 4: 4 n^2 and 6 n^2 values
  const int n = 16;
  ValueGraph g = matmul_graph(n);
  Singletons s = detect_singletons(g);
  EXPECT_EQ(estimate_communication(g, s, partition_values(g, s, 8)).p2p_bytes, 4u * n * n * 8);
  EXPECT_EQ(estimate_communication(g, s, partition_values(g, s, 16)).p2p_bytes, 6u * n * n * 8);
}

TEST(CommBlocks, CountedVolumeIsAlgorithmFoursPointToPointBytes)
{
  ValueGraph g = test::stencil_value_graph(12, 3, true);
  Singletons s = detect_singletons(g);
  VolumeCounter counter(g);
  for (int parts : {2, 3, 4, 6}) {
    ValuePartition p = partition_values(g, s, parts);
    EXPECT_EQ(counter.bytes(p.owner, parts), estimate_communication(g, s, p).p2p_bytes) << parts;
  }
}

TEST(CommBlocks, GraphWithoutArraysKeepsMetis)
{
  ValueGraph g = test::stencil_value_graph(8, 2);
  Singletons s = detect_singletons(g);
  EXPECT_FALSE(best_block_partition(g, s, 4, VolumeCounter(g)));
  EXPECT_EQ(partition_values(g, s, 4).method, "metis");
}

TEST(CommBlocks, EvenFactorsAreMpiDimsCreateLike)
{
  EXPECT_EQ(even_factors(4356, 2), (std::vector<std::uint64_t>{66, 66}));
  EXPECT_EQ(even_factors(39304, 3), (std::vector<std::uint64_t>{34, 34, 34}));
  EXPECT_EQ(even_factors(8, 2), (std::vector<std::uint64_t>{4, 2}));
  EXPECT_EQ(even_factors(7, 3), (std::vector<std::uint64_t>{7, 1, 1}));
}

TEST(CommGraph, VersionTwoNamesEachValuesArrayAndChecksItsOffset)
{
  std::string head = "perfcast-comm-graph 2\nregion step 1 1\ncounts 2 0 1 2 0 0 64\narrays 1\n3 64\nvertices 2\n"
                     "4 8 0 1 3 0\n5 8 1 0 3 ";
  ValueGraph g = parse_value_graph(head + "8\nedges 1\n4 5 1 1\nend\n", "g");
  EXPECT_EQ(g.vertices.at(1).array, 3u);
  EXPECT_EQ(g.vertices.at(1).offset, 8u);
  EXPECT_EQ(g.arrays.at(3), 64u);
  try {
    parse_value_graph(head + "64\nedges 0\nend\n", "g");
    FAIL() << "an offset past its array was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("g:8: vertex 5: expected its array 3 listed, with its offset 64 inside"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace perfcast::comm
