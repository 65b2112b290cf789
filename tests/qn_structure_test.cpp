// The queueing model's inputs from the traffic's structure (issue 13): a halo
// exchange on a process grid found in the runs' partner lists, and SMPI's
// factors taken per message size instead of at the mean size.
#include "net/SmpiFactors.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/TrafficStructure.hpp"
#include "TestUtil.hpp"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// A 2-D stencil on an N x N grid of 8-byte values, halo width 2, 10 sweeps,
// strong scaling on MPI_Dims_create's px x py grid (rank = x + px y): a rank
// sends each x neighbour its 2 (N / py)-value face and each y neighbour its
// 2 (N / px) face, every sweep.
constexpr double kN = 1200, kHalo = 2, kSweeps = 10;

MeasuredRun stencil_run(int n, double extra_messages = 0, bool unit_stride_on_smaller = true)
{
  MeasuredRun r;
  r.procs = n;
  r.placement = {{"e5620-0", n}};
  r.time_s = 1, r.mpi_s = 0.1;
  auto [px, py] = grid_dims(n, unit_stride_on_smaller);
  r.partners.resize(static_cast<std::size_t>(n));
  double messages = 0, bytes = 0;
  for (int rank = 0; rank < n; ++rank) {
    int x = rank % px, y = rank / px;
    auto add = [&](int to, double face) {
      r.partners[static_cast<std::size_t>(rank)].push_back({to, kSweeps, kSweeps * kHalo * face * 8});
      messages += kSweeps;
      bytes += kSweeps * kHalo * face * 8;
    };
    if (x > 0)
      add(rank - 1, kN / py);
    if (x < px - 1)
      add(rank + 1, kN / py);
    if (y > 0)
      add(rank - px, kN / px);
    if (y < py - 1)
      add(rank + px, kN / px);
  }
  // collectives beside the exchange (an allreduce's 8-byte messages) are no partners
  messages += extra_messages * n;
  bytes += 8 * extra_messages * n;
  r.sends_per_process = messages / n;
  r.message_bytes = messages > 0 ? bytes / messages : 0;
  return r;
}

} // namespace

TEST(QnStructure, GridDimsAreMpiDimsCreates)
{
  EXPECT_EQ(grid_dims(8, true), (std::pair{2, 4}));
  EXPECT_EQ(grid_dims(8, false), (std::pair{4, 2}));
  EXPECT_EQ(grid_dims(32, true), (std::pair{4, 8}));
  EXPECT_EQ(grid_dims(64, true), (std::pair{8, 8}));
  EXPECT_EQ(grid_dims(12, true), (std::pair{3, 4}));
  EXPECT_EQ(grid_dims(7, true), (std::pair{1, 7}));
}

TEST(QnStructure, StencilBytesFollowTheGridsCutLines)
{
  // fitted on 2 (1x2), 4 (2x2) and 8 (2x4), where the bytes grow linearly
  // (1, 2, 4 cut lines), the exchange at n sends 2 x 10 x 2 x 8 N bytes per
  // cut line, (px - 1) + (py - 1) lines: 6 at 16 (4x4), 10 at 32, 14 at 64
  std::vector<MeasuredRun> runs{stencil_run(2), stencil_run(4), stencil_run(8)};
  auto g = find_grid_exchange(runs);
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->unit_stride_on_smaller);
  EXPECT_NEAR(g->exponent_x, 1, 1e-9);
  EXPECT_NEAR(g->exponent_y, 1, 1e-9);
  const double per_line = 2 * kSweeps * kHalo * 8 * kN;
  for (auto [n, lines, pairs] : {std::tuple{16, 6, 48}, {32, 10, 104}, {64, 14, 224}}) {
    GridTraffic t = grid_traffic(*g, n);
    EXPECT_NEAR(t.bytes, lines * per_line, 1e-6 * per_line) << n;
    // ordered neighbour pairs: 2 ((px-1) py + px (py-1))
    EXPECT_NEAR(t.messages, kSweeps * pairs, 1e-9) << n;
  }
  // and the model fitted on them: B(64) is the grid's plus the allreduce's
  std::vector<MeasuredRun> with_allreduce{stencil_run(2, 3), stencil_run(4, 3), stencil_run(8, 3)};
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  for (MeasuredRun& r : with_allreduce)
    r.placement = {{"e5620-0", r.procs / 2}, {"e5620-1", r.procs / 2}}, r.time_s = 1 + 0.1 * r.procs;
  QueueingModel m = fit_queueing_model(with_allreduce, p);
  ASSERT_TRUE(m.grid.has_value());
  double want = 14 * per_line + 8 * 3 * 64;
  EXPECT_NEAR(message_bytes_at(m, 64) * 64 * (m.sends(64) + kSweeps * 224 / 64.0), want, 1e-6 * want);
  // without the structure the bytes' curve through 2, 4 and 8 is a line: 32 cut lines at 64, not 14
  ModelVariant blind;
  blind.traffic_structure = false;
  QueueingModel b = fit_queueing_model(with_allreduce, p, blind);
  EXPECT_FALSE(b.grid.has_value());
  EXPECT_GT((*b.run_bytes)(64) / want, 1.5);
}

TEST(QnStructure, ChainsRingsAndIncompleteGridsAreNoGrid)
{
  auto chain = [](int n, bool ring) {
    MeasuredRun r;
    r.procs = n;
    r.sends_per_process = 1;
    r.partners.resize(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k)
      if (k + 1 < n || ring)
        r.partners[static_cast<std::size_t>(k)].push_back({(k + 1) % n, 1, 100});
    return r;
  };
  // a pipeline (rank k to k+1) and a ring are 1-D: not a 2x2 grid at 4
  EXPECT_FALSE(find_grid_exchange({chain(2, false), chain(4, false), chain(8, false)}).has_value());
  EXPECT_FALSE(find_grid_exchange({chain(2, true), chain(4, true), chain(8, true)}).has_value());
  // a stencil that skips one neighbour is not the full exchange
  std::vector<MeasuredRun> runs{stencil_run(2), stencil_run(4), stencil_run(8)};
  runs[2].partners[3].pop_back();
  EXPECT_FALSE(find_grid_exchange(runs).has_value());
  // runs without partner lists (older replays, CSV) tell nothing
  runs = {stencil_run(2), stencil_run(4), stencil_run(8)};
  runs[1].partners.clear();
  EXPECT_FALSE(find_grid_exchange(runs).has_value());
  // runs of 1 and 2 only never show a 2-D grid
  EXPECT_FALSE(find_grid_exchange({stencil_run(2), stencil_run(2)}).has_value());
}

namespace {

// Adds `messages` messages of `bytes` bytes in all from rank `from` to `to` beside the run's other traffic.
void add_pair(MeasuredRun& r, int from, int to, double messages, double bytes)
{
  double all = r.sends_per_process * r.procs, all_bytes = all * r.message_bytes;
  r.partners[static_cast<std::size_t>(from)].push_back({to, messages, bytes});
  r.sends_per_process = (all + messages) / r.procs;
  r.message_bytes = (all_bytes + bytes) / (all + messages);
}

} // namespace

TEST(QnStructure, SetupLimitIsATenthOfTheMedianPairsMessages)
{
  // 2x4 at 8: 20 ordered neighbour pairs of 10 messages; a one-off pair beside them
  MeasuredRun r = stencil_run(8);
  EXPECT_NEAR(setup_messages_limit(r), 1.0, 1e-12);
  add_pair(r, 0, 7, 1, 16);
  EXPECT_NEAR(setup_messages_limit(r), 1.0, 1e-12);
  EXPECT_TRUE(is_setup_pair(1, setup_messages_limit(r)));
  EXPECT_FALSE(is_setup_pair(2, setup_messages_limit(r)));
  EXPECT_FALSE(is_setup_pair(0, setup_messages_limit(r)));
  // the grid's share of the run leaves the one-off message with the rest: 200 messages, not 201
  GridTraffic on_grid = measured_grid_traffic(r);
  EXPECT_NEAR(on_grid.messages, kSweeps * 20, 1e-9);
  EXPECT_NEAR(on_grid.bytes, measured_grid_traffic(stencil_run(8)).bytes, 1e-9);
  EXPECT_EQ(setup_messages_limit(MeasuredRun{}), 0);
}

TEST(QnStructure, OneSetupMessageOffTheGridLeavesTheGridFound)
{
  // minisweep's 8-process run (issue 13): a 4x2 grid (unit stride on the
  // larger side) whose rank 0 also sends rank 7 one 16-byte message, off
  // the grid; the pairs on it carry 10 messages each
  std::vector<MeasuredRun> clean{stencil_run(2, 0, false), stencil_run(4, 0, false), stencil_run(8, 0, false)};
  std::vector<MeasuredRun> runs = clean;
  add_pair(runs[2], 0, 7, 1, 16);
  auto want = find_grid_exchange(clean);
  ASSERT_TRUE(want.has_value());
  EXPECT_FALSE(want->unit_stride_on_smaller);
  auto g = find_grid_exchange(runs);
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(g->unit_stride_on_smaller);
  // the same exchange as without the message: 10 messages a pair, faces N / p of the other side
  EXPECT_EQ(g->messages_x, want->messages_x);
  EXPECT_EQ(g->messages_y, want->messages_y);
  EXPECT_NEAR(g->messages_x, kSweeps, 1e-9);
  EXPECT_NEAR(g->bytes_x, want->bytes_x, 1e-9 * want->bytes_x);
  EXPECT_NEAR(g->exponent_x, 1, 1e-9);
  // at 64 (8x8): 14 cut lines, 224 ordered pairs
  const double per_line = 2 * kSweeps * kHalo * 8 * kN;
  GridTraffic t = grid_traffic(*g, 64);
  EXPECT_NEAR(t.bytes, 14 * per_line, 1e-6 * per_line);
  EXPECT_NEAR(t.messages, kSweeps * 224, 1e-9);
  // the model: beside an allreduce in every run (3 messages a rank, as
  // minisweep's collectives), the message is fitted with the rest beside the
  // grid; alone beside the grid (in one run of three) it is left out, and the
  // grid carries every message
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  std::vector<MeasuredRun> with_allreduce{stencil_run(2, 3, false), stencil_run(4, 3, false), stencil_run(8, 3, false)};
  add_pair(with_allreduce[2], 0, 7, 1, 16);
  for (auto* set : {&runs, &with_allreduce})
    for (MeasuredRun& r : *set)
      r.placement = {{"e5620-0", r.procs / 2}, {"e5620-1", r.procs / 2}}, r.time_s = 1 + 0.1 * r.procs;
  QueueingModel m = fit_queueing_model(with_allreduce, p);
  ASSERT_TRUE(m.grid.has_value());
  ASSERT_TRUE(m.run_bytes.has_value());
  EXPECT_GT(m.sends(8), 3); // 3 + 1/8 measured
  EXPECT_GT((*m.run_bytes)(8), 8 * 3 * 8.0);
  QueueingModel alone = fit_queueing_model(runs, p);
  ASSERT_TRUE(alone.grid.has_value());
  EXPECT_EQ(alone.sends(8), 0);
}

TEST(QnStructure, AFarExchangeIsNoSetupTraffic)
{
  // rank 0 and rank 7 exchange as often as the grid's pairs (10 messages), or
  // half as often (5 > a tenth of 10): a real far exchange, no grid
  for (double messages : {kSweeps, kSweeps / 2}) {
    std::vector<MeasuredRun> runs{stencil_run(2, 0, false), stencil_run(4, 0, false), stencil_run(8, 0, false)};
    add_pair(runs[2], 0, 7, messages, messages * 16);
    add_pair(runs[2], 7, 0, messages, messages * 16);
    EXPECT_FALSE(find_grid_exchange(runs).has_value()) << messages;
  }
  // one-off pairs that outnumber the grid's (every rank to every other once
  // more) set the median: none is setup, the grid is not claimed
  std::vector<MeasuredRun> runs{stencil_run(2, 0, false), stencil_run(4, 0, false), stencil_run(8, 0, false)};
  auto [px, py] = grid_dims(8, false);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (std::abs(a % px - b % px) + std::abs(a / px - b / px) > 1)
        add_pair(runs[2], a, b, 1, 16);
  EXPECT_FALSE(find_grid_exchange(runs).has_value());
}

TEST(QnStructure, SmpiFactorsApplyPerMessageSize)
{
  // half the messages 48 bytes, half 200,000 - 48: mean 100,000. Each message
  // pays its own latency factor (2.01467 below 257 bytes with the envelope,
  // 11.6436 above 65472), each byte its own message's bandwidth factor
  std::vector<SizeShare> mix{{48 / 1e5, 0.5}, {(2e5 - 48) / 1e5, 0.5}};
  auto [latency, per_byte] = smpi_mixed_factors(mix, 1e5, 16);
  EXPECT_NEAR(latency, 0.5 * 2.01467 + 0.5 * 11.6436, 1e-9);
  double bytes_small = 48, bytes_large = 2e5 - 48;
  EXPECT_NEAR(per_byte, (bytes_small / 0.812084 + bytes_large / 0.940694) / 2e5, 1e-9);
  // at the mean size, the small messages would pay 11.6436 too
  auto [at_mean, per_byte_at_mean] = smpi_mixed_factors({}, 1e5, 16);
  EXPECT_NEAR(at_mean, smpi_lat_factor(1e5 + 16), 1e-12);
  EXPECT_NEAR(per_byte_at_mean, 1 / smpi_bw_factor(1e5 + 16), 1e-12);
  // the mix of the largest run that reports sizes, relative to its mean
  MeasuredRun small, large;
  small.procs = 2, large.procs = 8;
  small.message_sizes = {{0, 1023, 4, 400}};
  large.message_sizes = {{32, 63, 30, 1200}, {65536, 131071, 10, 1e6}};
  auto got = size_mix({small, large});
  ASSERT_EQ(got.size(), 2u);
  double mean = (1200 + 1e6) / 40;
  EXPECT_NEAR(got[0].relative_size, 40 / mean, 1e-12);
  EXPECT_NEAR(got[0].message_share, 0.75, 1e-12);
  EXPECT_NEAR(got[1].relative_size, 1e5 / mean, 1e-12);
}
