// Halo exchanges on d-dimensional process grids from the partner lists: the
// neighbours a rank can have are bounded by the grid's dimensionality, so the
// message count follows the grid, not a power law through 2, 4 and 8
// processes (issue 13: a 3-D halo stops gaining neighbours).
#include "qn/HaloExchange.hpp"
#include "qn/MeasuredRun.hpp"

#include <array>
#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

constexpr double kPairMessages = 50;
constexpr double kSide = 60; // values along each side of the global cube

// A run of n ranks exchanging with their neighbours on MPI_Dims_create's 3-D
// grid (rank = (x p1 + y) p2 + z): across faces only, or faces, edges and
// corners. A boundary crossed along the axes in S carries the subdomain's
// extent along the other axes: kSide / p_i each (a face two of them, an edge
// one, a corner none), 8 bytes a value.
MeasuredRun cartesian_run(int n, bool diagonals, int dimensions = 3)
{
  std::vector<int> dims = balanced_dims(n, dimensions);
  dims.resize(3, 1);
  MeasuredRun r;
  r.procs = n;
  r.partners.resize(static_cast<std::size_t>(n));
  double messages = 0, bytes = 0;
  for (int rank = 0; rank < n; ++rank) {
    std::array<int, 3> at{rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          std::array<int, 3> off{dx, dy, dz}, to{};
          int moved = 0;
          bool inside = true;
          double size = 8;
          for (int i = 0; i < 3; ++i) {
            to[static_cast<std::size_t>(i)] = at[static_cast<std::size_t>(i)] + off[static_cast<std::size_t>(i)];
            inside = inside && to[static_cast<std::size_t>(i)] >= 0 && to[static_cast<std::size_t>(i)] < dims[static_cast<std::size_t>(i)];
            moved += off[static_cast<std::size_t>(i)] != 0;
            if (off[static_cast<std::size_t>(i)] == 0)
              size *= kSide / dims[static_cast<std::size_t>(i)];
          }
          if (moved == 0 || !inside || (!diagonals && moved > 1))
            continue;
          int other = (to[0] * dims[1] + to[1]) * dims[2] + to[2];
          r.partners[static_cast<std::size_t>(rank)].push_back({other, kPairMessages, kPairMessages * size});
          messages += kPairMessages;
          bytes += kPairMessages * size;
        }
  }
  r.sends_per_process = messages / n;
  r.message_bytes = bytes / messages;
  return r;
}

// Every rank sends to every other the same block (a transpose).
MeasuredRun all_to_all_run(int n)
{
  MeasuredRun r;
  r.procs = n;
  r.partners.resize(static_cast<std::size_t>(n));
  for (int rank = 0; rank < n; ++rank)
    for (int other = 0; other < n; ++other)
      if (other != rank)
        r.partners[static_cast<std::size_t>(rank)].push_back({other, 11, 11 * 4096.0});
  r.sends_per_process = 11.0 * (n - 1);
  r.message_bytes = 4096;
  return r;
}

} // namespace

TEST(QnHalo, BalancedDimsAreMpiDimsCreates)
{
  EXPECT_EQ(balanced_dims(8, 3), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(balanced_dims(16, 3), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(balanced_dims(12, 3), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(balanced_dims(64, 2), (std::vector<int>{8, 8}));
  EXPECT_EQ(balanced_dims(7, 3), (std::vector<int>{7, 1, 1}));
  EXPECT_EQ(balanced_dims(1, 2), (std::vector<int>{1, 1}));
}

TEST(QnHalo, NeighboursAreBoundedByTheGridsDimensionality)
{
  // 4x4x4: along a side of 4, 2 ends with one neighbour and 2 inner ranks
  // with two: 1.5 a side; faces 3 x 1.5 = 4.5; with diagonals each side offers
  // 1 + 1.5 = 2.5 offsets: 2.5^3 - 1 = 14.625
  EXPECT_NEAR(mean_neighbours({4, 4, 4}, false), 4.5, 1e-12);
  EXPECT_NEAR(mean_neighbours({4, 4, 4}, true), 14.625, 1e-12);
  // however many processes, at most 6 and 26 neighbours
  EXPECT_LT(mean_neighbours(balanced_dims(1 << 20, 3), false), 6);
  EXPECT_LT(mean_neighbours(balanced_dims(1 << 20, 3), true), 26);
}

TEST(QnHalo, FaceHaloOnA3DGridIsFoundAndExtrapolated)
{
  // trained on 2, 4, 8 (2x1x1, 2x2x1, 2x2x2: 1, 2, 3 neighbours, still
  // rising), the exchange at 64 (4x4x4) has 4.5 neighbours per rank, and its
  // bytes are the faces between the slabs: 2 (p_i - 1) per axis, each face
  // kSide^2 values (k = 1: a fixed domain cut finer), 8 bytes, kPairMessages times
  std::vector<MeasuredRun> runs{cartesian_run(2, false), cartesian_run(4, false), cartesian_run(8, false)};
  auto halo = find_halo_exchange(runs);
  ASSERT_TRUE(halo.has_value());
  EXPECT_EQ(halo->dimensions, 3);
  EXPECT_FALSE(halo->diagonals);
  EXPECT_NEAR(halo->exponent, 1, 1e-9);
  GridTraffic at64 = halo_traffic(*halo, 64);
  EXPECT_NEAR(at64.messages, kPairMessages * 64 * 4.5, 1e-6);
  double faces = 2.0 * 3 * 3; // 2 (4 - 1) per axis
  EXPECT_NEAR(at64.bytes, faces * kSide * kSide * 8 * kPairMessages, 1e-6 * at64.bytes);
  // and it is what the grid at 64 sends
  MeasuredRun truth = cartesian_run(64, false);
  EXPECT_NEAR(at64.messages, truth.sends_per_process * 64, 1e-6);
  EXPECT_NEAR(at64.bytes, truth.sends_per_process * 64 * truth.message_bytes, 1e-6 * at64.bytes);
}

TEST(QnHalo, FiniteElementHaloWithEdgesAndCornersIsFound)
{
  // a 27-point stencil: 1, 3, 7 neighbours at 2, 4, 8, the same as an
  // all-to-all, but the messages fall in classes by the boundary (a face
  // 30x30 values at 2x2x2, an edge 30, a corner 1); at 64, 14.625 neighbours
  std::vector<MeasuredRun> runs{cartesian_run(2, true), cartesian_run(4, true), cartesian_run(8, true)};
  auto halo = find_halo_exchange(runs);
  ASSERT_TRUE(halo.has_value());
  EXPECT_EQ(halo->dimensions, 3);
  EXPECT_TRUE(halo->diagonals);
  EXPECT_NEAR(halo_traffic(*halo, 64).messages, cartesian_run(64, true).sends_per_process * 64, 1e-6);
}

TEST(QnHalo, AllToAllChainsAndTwoDimensionalGridsAreTold)
{
  // a transpose's 1, 3, 7 partners of equal blocks is no halo
  EXPECT_FALSE(find_halo_exchange({all_to_all_run(2), all_to_all_run(4), all_to_all_run(8)}).has_value());
  // a pipeline sends one way only: not mutual
  std::vector<MeasuredRun> chain;
  for (int n : {2, 4, 8}) {
    MeasuredRun r;
    r.procs = n;
    r.partners.resize(static_cast<std::size_t>(n));
    for (int rank = 0; rank + 1 < n; ++rank)
      r.partners[static_cast<std::size_t>(rank)].push_back({rank + 1, 100, 800});
    r.sends_per_process = 100.0 * (n - 1) / n;
    r.message_bytes = 8;
    chain.push_back(r);
  }
  EXPECT_FALSE(find_halo_exchange(chain).has_value());
  // a 2-D face halo (2x1, 2x2, 4x2: 1, 2, 2.5 neighbours) is two-dimensional
  auto flat = find_halo_exchange({cartesian_run(2, false, 2), cartesian_run(4, false, 2), cartesian_run(8, false, 2)});
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->dimensions, 2);
  EXPECT_FALSE(flat->diagonals);
  // one run cannot tell
  EXPECT_FALSE(find_halo_exchange({cartesian_run(8, false)}).has_value());
}
