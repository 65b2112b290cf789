// Halo exchanges on d-dimensional process grids from the partner lists: the
// neighbours a rank can have are bounded by the grid's dimensionality, so the
// message count follows the grid, not a power law through 2, 4 and 8
// processes (issue 13: a 3-D halo stops gaining neighbours).
#include "qn/HaloExchange.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"

#include "QnTestUtil.hpp"

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
MeasuredRun cartesian_run(int n, bool diagonals, int dimensions = 3, bool periodic = false, bool to_itself = true)
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
          if (periodic && moved == 1) { // the ends meet: every face is crossed, one message list per face
            inside = true;
            for (int i = 0; i < 3; ++i) {
              auto a = static_cast<std::size_t>(i);
              to[a] = (to[a] + dims[a]) % dims[a];
              inside = inside && (i >= dimensions ? off[a] == 0 : true);
            }
            bool self = to == at;
            if (!inside || (self && !to_itself))
              continue;
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

TEST(QnHalo, SetupTrafficLeavesTheHaloFoundAndAFarExchangeDoesNot)
{
  // a face halo on 2x1x1, 2x2x1, 2x2x2 whose rank 0 also sends rank 7 (its
  // far corner) one 16-byte message at 8: setup traffic (1 <= 50 / 10), the
  // same exchange as without it
  std::vector<MeasuredRun> clean{cartesian_run(2, false), cartesian_run(4, false), cartesian_run(8, false)};
  auto want = find_halo_exchange(clean);
  ASSERT_TRUE(want.has_value());
  std::vector<MeasuredRun> runs = clean;
  auto add = [](MeasuredRun& r, int from, int to, double messages, double bytes) {
    double all = r.sends_per_process * r.procs, all_bytes = all * r.message_bytes;
    r.partners[static_cast<std::size_t>(from)].push_back({to, messages, bytes});
    r.sends_per_process = (all + messages) / r.procs;
    r.message_bytes = (all_bytes + bytes) / (all + messages);
  };
  add(runs[2], 0, 7, 1, 16);
  auto halo = find_halo_exchange(runs);
  ASSERT_TRUE(halo.has_value());
  EXPECT_EQ(halo->dimensions, want->dimensions);
  EXPECT_EQ(halo->diagonals, want->diagonals);
  EXPECT_EQ(halo->periodic, want->periodic);
  EXPECT_NEAR(halo->messages_per_pair, kPairMessages, 1e-9);
  EXPECT_NEAR(halo->bytes, want->bytes, 1e-9 * want->bytes);
  EXPECT_NEAR(halo->exponent, want->exponent, 1e-12);
  // the grid's share of the run leaves the message out
  EXPECT_NEAR(measured_grid_traffic(runs[2]).messages, measured_grid_traffic(clean[2]).messages, 1e-9);
  // as many messages as a face's, both ways: a far exchange, no face halo
  runs = clean;
  add(runs[2], 0, 7, kPairMessages, kPairMessages * 16);
  add(runs[2], 7, 0, kPairMessages, kPairMessages * 16);
  EXPECT_FALSE(find_halo_exchange(runs).has_value());
}

TEST(QnHalo, PeriodicRingIsFoundAndCountsACutPlanePerRank)
{
  // a ring of 2, 4, 8 ranks: every rank sends kPairMessages across each of
  // its two faces (at 2 both to its one partner); on 4 and 8 the ends
  // exchange, which no chain does. At 64 (never fitted) by hand: 64 ranks x
  // 2 faces x 50 = 6,400 messages, 100 a rank, each face 60 x 60 values of 8 bytes
  std::vector<MeasuredRun> runs{cartesian_run(2, false, 1, true), cartesian_run(4, false, 1, true),
                                cartesian_run(8, false, 1, true)};
  auto halo = find_halo_exchange(runs);
  ASSERT_TRUE(halo.has_value());
  EXPECT_EQ(halo->dimensions, 1);
  EXPECT_TRUE(halo->periodic);
  GridTraffic at64 = halo_traffic(*halo, 64);
  EXPECT_NEAR(at64.messages / 64, 100, 1e-9);
  EXPECT_NEAR(at64.bytes / 64, 100 * 8 * kSide * kSide, 1e-6);
  // a chain of 64 would have sent 63 / 64 of it
  MeasuredRun truth = cartesian_run(64, false, 1, true);
  EXPECT_NEAR(at64.messages, truth.sends_per_process * 64, 1e-6);
}

TEST(QnHalo, PeriodicTwoDimensionalGridIsFoundAndExtrapolated)
{
  // 2x1, 2x2, 4x2 (the side of 1 at 2 ranks wraps onto the rank itself): at
  // 36 ranks (6x6, never fitted) by hand every rank has 4 partners, 50
  // messages each: 200 a rank; a face is 60 / 6 = 10 values across by 60
  // deep (the grid's third side of 1), 8 bytes: 200 x 4,800 = 960,000 bytes a rank
  std::vector<MeasuredRun> runs{cartesian_run(2, false, 2, true), cartesian_run(4, false, 2, true),
                                cartesian_run(8, false, 2, true)};
  auto halo = find_halo_exchange(runs);
  ASSERT_TRUE(halo.has_value());
  EXPECT_EQ(halo->dimensions, 2);
  EXPECT_TRUE(halo->periodic);
  EXPECT_NEAR(halo->exponent, 1, 1e-9);
  GridTraffic at36 = halo_traffic(*halo, 36);
  EXPECT_NEAR(at36.messages / 36, 200, 1e-9);
  EXPECT_NEAR(at36.bytes / 36, 960000, 1e-6);
  MeasuredRun truth = cartesian_run(36, false, 2, true);
  EXPECT_NEAR(at36.bytes, truth.sends_per_process * 36 * truth.message_bytes, 1e-6 * at36.bytes);
}

TEST(QnHalo, PeriodicCubeShowsItsWrapByTheMessagesARankSendsItself)
{
  // CoMD's case: 2x1x1, 2x2x1, 2x2x2 have no side of 3, so the wrap shows
  // only in the 2 x 50 messages a rank sends itself per side of 1 (and in
  // 2 x 50 per partner along the sides of 2). At 64 (4x4x4) by hand: 6
  // partners, 50 messages each, 300 a rank (a non-periodic grid: 4.5 x 50)
  std::vector<MeasuredRun> runs{cartesian_run(2, false, 3, true), cartesian_run(4, false, 3, true),
                                cartesian_run(8, false, 3, true)};
  auto halo = find_halo_exchange(runs);
  ASSERT_TRUE(halo.has_value());
  EXPECT_EQ(halo->dimensions, 3);
  EXPECT_TRUE(halo->periodic);
  EXPECT_NEAR(halo_traffic(*halo, 64).messages / 64, 300, 1e-9);
  EXPECT_NEAR(halo_traffic(*halo, 64).bytes, 6 * 64 * kPairMessages * 8 * kSide * kSide / 16, 1e-6 * 1e6);
  // a code that copies its own faces without a message shows no wrap there:
  // read as the non-periodic grid it cannot be told from
  auto silent = find_halo_exchange({cartesian_run(2, false, 3, true, false), cartesian_run(4, false, 3, true, false),
                                    cartesian_run(8, false, 3, true, false)});
  ASSERT_TRUE(silent.has_value());
  EXPECT_FALSE(silent->periodic);
}

TEST(QnHalo, FacesARankSendsItselfAreCountedAtEveryCount)
{
  // CoMD's sides of 1 wrap onto the rank: 2 faces x 50 messages each, of the
  // bytes of a whole cut plane (k = 1 here: 50 x 8 x 60^2 = 1.44e6 B a plane).
  // 1x1x1: 6 faces, 300 messages and 6 planes to itself, nothing else;
  // 2x1x1: 100 messages a rank to its partner, 200 to itself, 4 planes (the
  // y and z sides' two each) to themselves over the run, 4 to partners
  auto halo = find_halo_exchange({cartesian_run(2, false, 3, true), cartesian_run(4, false, 3, true),
                                  cartesian_run(8, false, 3, true)});
  ASSERT_TRUE(halo.has_value());
  EXPECT_TRUE(halo->to_itself);
  double plane = kPairMessages * 8 * kSide * kSide;
  GridTraffic one = halo_traffic(*halo, 1), two = halo_traffic(*halo, 2), big = halo_traffic(*halo, 64);
  EXPECT_NEAR(one.self_messages, 300, 1e-9);
  EXPECT_NEAR(one.messages, 300, 1e-9);
  EXPECT_NEAR(one.self_bytes, 6 * plane, 1e-6 * plane);
  EXPECT_NEAR(one.bytes, 6 * plane, 1e-6 * plane);
  EXPECT_NEAR(two.self_messages / 2, 200, 1e-9);
  EXPECT_NEAR(two.messages / 2, 300, 1e-9);
  EXPECT_NEAR(two.self_bytes, 4 * plane, 1e-6 * plane);
  EXPECT_NEAR(two.bytes, 8 * plane, 1e-6 * plane);
  EXPECT_EQ(big.self_messages, 0); // 4x4x4: no side of 1
  // a code that copies its faces without a message sends itself nothing
  HaloExchange silent = *halo;
  silent.to_itself = false;
  EXPECT_EQ(halo_traffic(silent, 1).messages, 0);
  EXPECT_NEAR(halo_traffic(silent, 2).messages / 2, 100, 1e-9);
  EXPECT_EQ(halo_traffic(silent, 2).self_bytes, 0);
}

TEST(QnHalo, OneProcessRunPaysForTheFacesItSendsItselfOverItsOwnLinks)
{
  // one process on a host without loopback (SimGrid routes its messages to
  // itself over its up and down links, as the replay of CoMD's one-process
  // run shows: 1.9 s of its 18 s in MPI). W = 9.6e9 flop at 9.6 Gflop/s is
  // 1 s; the 300 messages of 6 planes of 1.44e6 B move 8.64e6 B at 125 MB/s,
  // 0.06912 s, once (a transfer holds the up and down links at once), and pay
  // the route's latency each: T = 1 + 0.06912 + 300 x latency (Net_Constant
  // 1, no SMPI factors, V_comm 0). Without the wrap: T = 1 s, as before
  Platform p = test::qn_two_nodes();
  QueueingModel m = test::qn_plain_model(0, 9.6e9);
  m.halo = find_halo_exchange({cartesian_run(2, false, 3, true), cartesian_run(4, false, 3, true),
                               cartesian_run(8, false, 3, true)});
  ASSERT_TRUE(m.halo.has_value());
  double latency = p.route(0, 0).latency_s;
  EXPECT_GT(latency, 0);
  double bytes = 6 * kPairMessages * 8 * kSide * kSide;
  EXPECT_NEAR(predict_run_time(m, p, {{0, 1}}).time_s, 1 + bytes / 125e6 + 300 * latency, 1e-9);
  m.halo->to_itself = false;
  EXPECT_NEAR(predict_run_time(m, p, {{0, 1}}).time_s, 1, 1e-9);
}

TEST(QnHalo, NonPeriodicGridsAreUnchangedAndOldModelsReadAsNonPeriodic)
{
  auto cube = find_halo_exchange({cartesian_run(2, false), cartesian_run(4, false), cartesian_run(8, false)});
  ASSERT_TRUE(cube.has_value());
  EXPECT_FALSE(cube->periodic);
  EXPECT_NEAR(halo_traffic(*cube, 64).messages, kPairMessages * 64 * 4.5, 1e-6);
  auto flat = find_halo_exchange({cartesian_run(2, false, 2), cartesian_run(4, false, 2), cartesian_run(8, false, 2)});
  ASSERT_TRUE(flat.has_value());
  EXPECT_FALSE(flat->periodic);
  // model.json: the field is written and read back; a model from before it lacks it
  HaloExchange h = *cube;
  h.periodic = true;
  nlohmann::json j = h;
  EXPECT_TRUE(j.at("periodic").get<bool>());
  EXPECT_TRUE(j.get<HaloExchange>().periodic);
  h.to_itself = true;
  j = h;
  EXPECT_TRUE(j.get<HaloExchange>().to_itself);
  j.erase("periodic");
  j.erase("to_itself");
  HaloExchange old = j.get<HaloExchange>();
  EXPECT_FALSE(old.periodic);
  EXPECT_FALSE(old.to_itself);
  EXPECT_DOUBLE_EQ(old.messages_per_pair, cube->messages_per_pair);
  j.erase("bytes");
  EXPECT_THROW(j.get<HaloExchange>(), nlohmann::json::exception);
}
