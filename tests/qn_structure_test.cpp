// The queueing model's inputs from the traffic's structure (issue 13): the
// point-to-point traffic classed on a process grid given or found in the runs'
// partner lists, and SMPI's factors taken per message size instead of at the
// mean size.
#include "core/Error.hpp"
#include "net/SmpiFactors.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/GridClasses.hpp"
#include "qn/HaloExchange.hpp"
#include "qn/Study.hpp"
#include "qn/TrafficStructure.hpp"
#include "QnTestUtil.hpp"
#include "TestUtil.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <gtest/gtest.h>
#include <set>

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
  std::vector<int> dims = balanced_dims(n, 2); // largest first
  int px = unit_stride_on_smaller ? dims[1] : dims[0], py = n / px;
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

// The grid the partner lists show without a user's grid (detection: MPI_Dims_create's 1-, 2- and 3-D grids).
std::optional<GridClasses> find_grid(const std::vector<MeasuredRun>& runs)
{
  return fit_grid_classes(runs, grid_rules_from_spec(""), true).table;
}

const GridClass* class_of(const GridClasses& t, std::vector<int> offset)
{
  for (const GridClass& k : t.classes)
    if (k.offset == offset)
      return &k;
  return nullptr;
}

} // namespace

TEST(QnStructure, GridRulesAreMpiDimsCreatesEitherWay)
{
  GridRule two;
  two.dimensions = 2;
  EXPECT_EQ(two.at(8).dims, (std::vector<int>{4, 2}));
  EXPECT_EQ(two.at(12).dims, (std::vector<int>{4, 3}));
  EXPECT_EQ(two.at(7).dims, (std::vector<int>{7, 1}));
  two.transposed = true;
  EXPECT_EQ(two.at(8).dims, (std::vector<int>{2, 4}));
  EXPECT_EQ(two.at(64).dims, (std::vector<int>{8, 8}));
  GridRule three;
  three.dimensions = 3;
  three.periodic = true;
  EXPECT_EQ(three.at(64).dims, (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(three.at(64).periodic, (std::vector<bool>{true, true, true}));
  // x fastest in rank order
  ProcessGrid g = two.at(8);
  EXPECT_EQ(g.coordinates(5), (std::vector<int>{1, 2}));
  EXPECT_EQ(g.rank_at({1, 2}), 5);
  // --grid specs: dims_create tries 1, 2 and 3 axes, each non-periodic before periodic, both orientations
  EXPECT_EQ(grid_rules_from_spec("dims_create").size(), 2u + 4u + 4u);
  auto pinned = grid_rules_from_spec("dims_create:3:periodic");
  ASSERT_EQ(pinned.size(), 2u);
  EXPECT_TRUE(pinned[0].periodic);
  EXPECT_EQ(pinned[0].dimensions, 3);
  EXPECT_THROW(grid_rules_from_spec("dims_create:4"), Error);
  EXPECT_THROW(grid_rules_from_spec("cart"), Error);
}

TEST(QnStructure, GridFileNamesEachCountsGridAndABadLineIsAClearError)
{
  GridRule r = parse_grid_file("# PENNANT's grids\n2 1x2\n64 2x32   # the last\n", "g.txt");
  EXPECT_EQ(r.kind, "file");
  EXPECT_EQ(r.at(64).dims, (std::vector<int>{2, 32}));
  EXPECT_EQ(r.at(64).periodic, (std::vector<bool>{false, false}));
  // one process, unnamed: every side 1 (the one-process run a fit takes)
  EXPECT_EQ(r.at(1).dims, (std::vector<int>{1, 1}));
  // a count the file does not name: an error saying which counts it names
  EXPECT_THROW(
      {
        try {
          r.at(16);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("g.txt: the grid file names no grid for 16 processes (it names 2, 64)"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  auto message = [](const std::string& text) {
    try {
      parse_grid_file(text, "g.txt");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("64 8x8\n32 4x4\n"), "g.txt:2: grid 4x4 holds 16 processes, not 32");
  EXPECT_EQ(message("64 8x8 periodc\n"),
            "g.txt:1: expected 'N AxB[xC] [periodic]', such as '64 8x8' or '64 4x4x4 periodic'");
  EXPECT_NE(message("64\n").find("g.txt:1: expected"), std::string::npos);
  EXPECT_NE(message("sixty 8x8\n").find("g.txt:1: process count 'sixty' is not a positive integer"),
            std::string::npos);
  EXPECT_NE(message("64 8xy\n").find("g.txt:1: grid '8xy': side 'y' is not a positive integer"), std::string::npos);
  EXPECT_NE(message("4 2x2\n8 8\n").find("g.txt:2: grid 8 has 1 axes where the lines before have 2"),
            std::string::npos);
  EXPECT_NE(message("4 2x2\n4 4x1\n").find("g.txt:2: a second grid for 4 processes"), std::string::npos);
  EXPECT_NE(message("# nothing\n").find("g.txt: no grid in the file"), std::string::npos);
}

TEST(QnStructure, StencilBytesFollowTheGridsCutLines)
{
  // fitted on 2 (1x2), 4 (2x2) and 8 (2x4), where the bytes grow linearly
  // (1, 2, 4 cut lines), the exchange at n sends 2 x 10 x 2 x 8 N bytes per
  // cut line, (px - 1) + (py - 1) lines: 6 at 16 (4x4), 10 at 32, 14 at 64
  std::vector<MeasuredRun> runs{stencil_run(2), stencil_run(4), stencil_run(8)};
  auto g = find_grid(runs);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->rule.dimensions, 2);
  EXPECT_TRUE(g->rule.transposed); // ranks r, r+1 along the smaller side
  EXPECT_EQ(g->classes.size(), 4u); // the four faces
  for (const GridClass& k : g->classes) {
    EXPECT_TRUE(k.cut) << k.name();
    EXPECT_NEAR(k.exponent, 1, 1e-9) << k.name();
    EXPECT_NEAR(k.messages_per_pair, kSweeps, 1e-9) << k.name();
  }
  const double per_line = 2 * kSweeps * kHalo * 8 * kN;
  for (auto [n, lines, pairs] : {std::tuple{16, 6, 48}, {32, 10, 104}, {64, 14, 224}}) {
    ClassTrafficAt t = grid_class_traffic(*g, n);
    EXPECT_NEAR(t.bytes, lines * per_line, 1e-6 * per_line) << n;
    // ordered neighbour pairs: 2 ((px-1) py + px (py-1))
    EXPECT_NEAR(t.messages, kSweeps * pairs, 1e-9) << n;
    EXPECT_TRUE(t.unseen.empty());
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

TEST(QnStructure, ChainsAreOneDGridsAndIncompleteGridsAreNone)
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
  // a pipeline (rank k to k+1) is a 1-D grid whose backward faces are silent;
  // a ring a periodic one (its wrap n-1 -> 0 a neighbour pair)
  auto pipeline = find_grid({chain(2, false), chain(4, false), chain(8, false)});
  ASSERT_TRUE(pipeline.has_value());
  EXPECT_EQ(pipeline->rule.dimensions, 1);
  EXPECT_FALSE(pipeline->rule.periodic);
  ASSERT_EQ(pipeline->classes.size(), 1u);
  EXPECT_EQ(pipeline->classes[0].offset, std::vector<int>{1});
  EXPECT_NEAR(grid_class_traffic(*pipeline, 64).messages, 63, 1e-9);
  auto both_ways = [&](int n) {
    MeasuredRun r = chain(n, true);
    for (int k = 0; k < n; ++k)
      r.partners[static_cast<std::size_t>((k + 1) % n)].push_back({k, 1, 100});
    return r;
  };
  auto ring = find_grid({both_ways(2), both_ways(4), both_ways(8)});
  ASSERT_TRUE(ring.has_value());
  EXPECT_EQ(ring->rule.dimensions, 1);
  EXPECT_TRUE(ring->rule.periodic);
  EXPECT_NEAR(grid_class_traffic(*ring, 64).messages, 128, 1e-9);
  // a one-way ring: at 2 its one pair is both faces, so detection cannot class
  // it (the backward face carries at 2 and not at 4); given the periodic grid,
  // the largest run's classes hold, one message a rank
  GridFit one_way = fit_grid_classes({chain(2, true), chain(4, true), chain(8, true)},
                                     grid_rules_from_spec("dims_create:1:periodic"), false);
  ASSERT_TRUE(one_way.table.has_value());
  EXPECT_NEAR(grid_class_traffic(*one_way.table, 64).messages, 64, 1e-9);
  EXPECT_NEAR(grid_class_traffic(*one_way.table, 2).messages, 2, 1e-9);
  // a stencil that skips one neighbour is not the full exchange
  std::vector<MeasuredRun> runs{stencil_run(2), stencil_run(4), stencil_run(8)};
  runs[2].partners[3].pop_back();
  EXPECT_FALSE(find_grid(runs).has_value());
  // runs without partner lists (older replays, CSV) tell nothing
  runs = {stencil_run(2), stencil_run(4), stencil_run(8)};
  runs[1].partners.clear();
  EXPECT_FALSE(find_grid(runs).has_value());
  // runs at one count show no growth: no grid is detected from them
  EXPECT_FALSE(find_grid({stencil_run(2), stencil_run(2)}).has_value());
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
  auto want = find_grid(clean);
  ASSERT_TRUE(want.has_value());
  EXPECT_FALSE(want->rule.transposed);
  auto g = find_grid(runs);
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(g->rule.transposed);
  // the same exchange as without the message: 10 messages a pair, faces N / p of the other side
  ASSERT_EQ(g->classes.size(), want->classes.size());
  for (const GridClass& k : want->classes) {
    const GridClass* got = class_of(*g, k.offset);
    ASSERT_NE(got, nullptr) << k.name();
    EXPECT_EQ(got->messages_per_pair, k.messages_per_pair) << k.name();
    EXPECT_NEAR(got->messages_per_pair, kSweeps, 1e-9) << k.name();
    EXPECT_NEAR(got->bytes, k.bytes, 1e-9 * k.bytes) << k.name();
    EXPECT_NEAR(got->exponent, 1, 1e-9) << k.name();
  }
  // at 64 (8x8): 14 cut lines, 224 ordered pairs
  const double per_line = 2 * kSweeps * kHalo * 8 * kN;
  ClassTrafficAt t = grid_class_traffic(*g, 64);
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
    add_pair(runs[2], 0, 7, messages, messages * 4800);
    add_pair(runs[2], 7, 0, messages, messages * 4800);
    GridFit fit = fit_grid_classes(runs, grid_rules_from_spec(""), true);
    EXPECT_FALSE(fit.table.has_value()) << messages;
    // irregular: some far pairs talk, not all; said with the 8-process run that broke it
    EXPECT_TRUE(fit.irregular) << messages;
    EXPECT_NE(fit.why.find("at 8 processes"), std::string::npos) << fit.why;
  }
  // one-off pairs that outnumber the grid's (every rank to every other once
  // more) set the median: none is setup, the grid is not claimed
  std::vector<MeasuredRun> runs{stencil_run(2, 0, false), stencil_run(4, 0, false), stencil_run(8, 0, false)};
  const int px = 4;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (std::abs(a % px - b % px) + std::abs(a / px - b / px) > 1)
        add_pair(runs[2], a, b, 1, 16);
  EXPECT_FALSE(find_grid(runs).has_value());
}

TEST(QnStructure, FaceExchangeLearnedOnSmallGridsPredictsEachRankOnEightByEight)
{
  // learned on 2x1, 2x2, 4x2 (x the longer side, as minisweep): at 8x8 a rank
  // at (x, y) receives from each neighbour 10 messages of 2 x 8 N / py bytes
  // across x and of 2 x 8 N / px across y (N = 1200, px = py = 8): an inner
  // rank 4 faces, a corner rank 2, an edge rank 3
  auto g = find_grid({stencil_run(2, 0, false), stencil_run(4, 0, false), stencil_run(8, 0, false)});
  ASSERT_TRUE(g.has_value());
  ClassTrafficAt t = grid_class_traffic(*g, 64);
  EXPECT_EQ(t.grid.dims, (std::vector<int>{8, 8}));
  const double face = kSweeps * kHalo * 8 * kN / 8;
  EXPECT_NEAR(t.received[0], 2 * face, 1e-6 * face);       // (0, 0)
  EXPECT_NEAR(t.received[3], 3 * face, 1e-6 * face);       // (3, 0)
  EXPECT_NEAR(t.received[8 + 3], 4 * face, 1e-6 * face);   // (3, 1)
  EXPECT_NEAR(t.received[63], 2 * face, 1e-6 * face);      // (7, 7)
  // every pair: 224 ordered neighbour pairs of 10 messages; the busiest
  // receiver (an inner rank) gets 4 faces of the 224 x face bytes, with
  // nothing beside the grid
  EXPECT_NEAR(t.messages, 2240, 1e-9);
  EXPECT_NEAR(grid_hot_receive_share(*g, t, 0), 4.0 / 224, 1e-12);
  // beside it, B bytes of a collective spread evenly (no rest_hot_receive): each rank B / 64 more
  const double rest = 64 * face;
  EXPECT_NEAR(grid_hot_receive_share(*g, t, rest), (4 * face + face) / (224 * face + rest), 1e-12);
}

namespace {

// CoSP2's exchange: each rank sends its two ring neighbours kRing messages of
// kRingBytes (both to its one partner at 2 processes) and every other rank one
// message of kV / n bytes (its share of a matrix of kV bytes), beside an
// allreduce of kReduce messages of kReduceBytes a rank. `sized`: an SMPI replay
// that reports its size classes (power-of-two bins)
constexpr double kRing = 31, kV = 6.4e6, kRingBytes = 4000, kReduce = 3, kReduceBytes = 8;
MeasuredRun cosp2_run(int n, bool sized)
{
  MeasuredRun r;
  r.procs = n;
  r.placement = {{"e5620-0", n / 2}, {"e5620-1", n / 2}};
  r.time_s = 1 + 0.1 * n, r.mpi_s = 0.1;
  if (sized)
    r.network = "smpi";
  r.partners.resize(static_cast<std::size_t>(n));
  std::map<double, GridTraffic> by_size;
  by_size[kReduceBytes] = {kReduce * n, kReduce * n * kReduceBytes};
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b)
        continue;
      bool ring = (b - a + n) % n == 1 || (a - b + n) % n == 1;
      double m = ring ? kRing * ((n == 2) ? 2 : 1) : 1, size = ring ? kRingBytes : kV / n;
      r.partners[static_cast<std::size_t>(a)].push_back({b, m, m * size, {}});
      by_size[size].messages += m, by_size[size].bytes += m * size;
    }
  double messages = 0, bytes = 0;
  for (const auto& [size, t] : by_size) {
    double low = std::exp2(std::floor(std::log2(size)));
    if (sized)
      r.message_sizes.push_back({low, 2 * low - 1, t.messages, t.bytes});
    messages += t.messages, bytes += t.bytes;
  }
  r.sends_per_process = messages / n;
  r.message_bytes = bytes / messages;
  return r;
}

// The model's messages by size equal `expected` (bytes per message -> messages), each size once.
void expect_sizes(const std::vector<SizeAt>& got, const std::map<double, double>& expected)
{
  ASSERT_EQ(got.size(), expected.size());
  for (const SizeAt& s : got) {
    auto it = expected.lower_bound(s.bytes * (1 - 1e-9));
    ASSERT_NE(it, expected.end()) << s.bytes;
    EXPECT_NEAR(s.bytes, it->first, 1e-6 * it->first);
    EXPECT_NEAR(s.messages, it->second, 1e-6 * it->second) << s.bytes;
  }
}

} // namespace

TEST(QnStructure, RingBesideAllPairsGrowsAsAConstantPlusNMinusThree)
{
  // CoSP2's exchange: each rank sends its two ring neighbours R = 31
  // messages (both to its one partner at 2 processes) and every other rank
  // one message of V / n bytes (its share of a matrix of V bytes), beside an
  // allreduce of 3 messages a rank. Per rank at n: 2 R + (n - 3) messages,
  // and the all-pairs class's bytes per run n (n - 3) V / n = (n - 3) V
  auto cosp2 = [](int n) { return cosp2_run(n, false); };
  std::vector<MeasuredRun> runs{cosp2(2), cosp2(4), cosp2(8)};
  ModelVariant ring;
  ring.grid_rules = grid_rules_from_spec("dims_create:1:periodic");
  ring.grid_given = true;
  GridFit fit = fit_grid_classes(runs, ring.grid_rules, false);
  ASSERT_TRUE(fit.table.has_value());
  EXPECT_EQ(fit.table->describe(), "1-D periodic grid, 2 classes + all-to-all");
  for (int n : {16, 32, 64}) {
    ClassTrafficAt t = grid_class_traffic(*fit.table, n);
    EXPECT_NEAR(t.messages / n, 2 * kRing + (n - 3), 1e-9) << n;
    EXPECT_NEAR(t.bytes, n * 2 * kRing * kRingBytes + (n - 3) * kV, 1e-6 * t.bytes) << n;
    // every rank receives its two ring faces and one message of V / n from each of the n - 3 others
    for (int r : {0, n / 2, n - 1})
      EXPECT_NEAR(t.received[static_cast<std::size_t>(r)], 2 * kRing * kRingBytes + (n - 3) * kV / n,
                  1e-9 * t.bytes / n)
          << n << " rank " << r;
  }
  // the model: at 64 its messages per process are the ring's, the all pairs' and the allreduce's
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  QueueingModel m = fit_queueing_model(runs, p, ring);
  ASSERT_TRUE(m.grid.has_value());
  EXPECT_NEAR(cycles_at(m, 64), 2 * kRing + 61 + 3, 1e-6);
}

TEST(QnStructure, PeriodicSideOfTwoSendsBothFacesToItsOnePartner)
{
  // a periodic ring sending m = 7 messages of 100 bytes across each face,
  // learned on 4 and 8 ranks: at 2 both faces of a rank go to its one
  // partner (14 messages a pair, twice one face's), at 1 both to itself
  auto ring = [](int n) {
    MeasuredRun r;
    r.procs = n;
    r.sends_per_process = 14;
    r.partners.resize(static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a)
      for (int b : {(a + 1) % n, (a + n - 1) % n})
        r.partners[static_cast<std::size_t>(a)].push_back({b, 7, 700});
    return r;
  };
  GridFit fit = fit_grid_classes({ring(4), ring(8)}, grid_rules_from_spec("dims_create:1:periodic"), false);
  ASSERT_TRUE(fit.table.has_value());
  ClassTrafficAt two = grid_class_traffic(*fit.table, 2);
  EXPECT_NEAR(two.messages, 2 * 14, 1e-9);
  EXPECT_NEAR(two.received[1], 1400, 1e-9);
  EXPECT_EQ(two.self_messages, 0);
  ClassTrafficAt one = grid_class_traffic(*fit.table, 1);
  EXPECT_NEAR(one.self_messages, 14, 1e-9);
  // and learned on 2 (one pair of 14), the class is 7 a face: 16 ranks send 14 each
  GridFit small = fit_grid_classes({ring(2), ring(4)}, grid_rules_from_spec("dims_create:1:periodic"), false);
  ASSERT_TRUE(small.table.has_value());
  for (const GridClass& k : small.table->classes)
    EXPECT_NEAR(k.messages_per_pair, 7, 1e-9) << k.name();
  EXPECT_NEAR(grid_class_traffic(*small.table, 16).messages, 16 * 14, 1e-9);
}

TEST(QnStructure, APeriodicSideOfTwoThatCarriesOneFaceIsLearnedAsSuch)
{
  // CoSP2's ring (session 18): 7 messages of 100 bytes to each of a rank's
  // two partners at 4 and 8 ranks, but at 2, where both are one rank, 7 in
  // all, not 14. Split over the two offsets as a pair that carries both
  // faces, each class would read 3.5 at 2 and 7 elsewhere, and the model
  // would lay 14 on the pair at 2: the fit could not match that run. Every
  // class at half there: the table says so and lays one offset's traffic
  auto ring = [](int n) {
    MeasuredRun r;
    r.procs = n;
    r.partners.resize(static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a) {
      std::set<int> to{(a + 1) % n, (a + n - 1) % n};
      for (int b : to)
        r.partners[static_cast<std::size_t>(a)].push_back({b, 7, 700});
    }
    r.sends_per_process = n == 2 ? 7 : 14;
    return r;
  };
  GridFit fit = fit_grid_classes({ring(2), ring(4), ring(8)}, grid_rules_from_spec(""), true, true);
  ASSERT_TRUE(fit.table.has_value());
  EXPECT_TRUE(fit.table->rule.periodic);
  EXPECT_TRUE(fit.table->side_two_once);
  for (const GridClass& k : fit.table->classes)
    EXPECT_NEAR(k.messages_per_pair, 7, 1e-9) << k.name();
  EXPECT_NEAR(grid_class_traffic(*fit.table, 2).messages, 2 * 7, 1e-9);
  EXPECT_NEAR(grid_class_traffic(*fit.table, 16).messages, 16 * 14, 1e-9);
  // and through the model file
  nlohmann::json j = *fit.table;
  EXPECT_TRUE(j.get<GridClasses>().side_two_once);
  // a ring that sends both faces at 2 (14 to its one partner) is not so
  auto both = [&](int n) {
    MeasuredRun r = ring(n);
    if (n == 2)
      for (auto& list : r.partners)
        list.front().messages = 14, list.front().bytes = 1400, r.sends_per_process = 14;
    return r;
  };
  GridFit twice = fit_grid_classes({both(2), both(4), both(8)}, grid_rules_from_spec(""), true, true);
  ASSERT_TRUE(twice.table.has_value());
  EXPECT_FALSE(twice.table->side_two_once);
  EXPECT_NEAR(grid_class_traffic(*twice.table, 2).messages, 2 * 14, 1e-9);
}

TEST(QnStructure, OffsetsTheTrainingGridsNeverHadAreUnseenAndWidenTheBand)
{
  // a y-face exchange learned on 1 x n strips (PENNANT at 2, 4, 8) and asked
  // at 2 x 16: the x faces were never possible, so they are guessed from the
  // seen faces and named
  std::vector<MeasuredRun> runs;
  for (int n : {2, 4, 8}) {
    MeasuredRun r;
    r.procs = n;
    r.sends_per_process = 1;
    r.partners.resize(static_cast<std::size_t>(n));
    for (int a = 0; a + 1 < n; ++a) {
      r.partners[static_cast<std::size_t>(a)].push_back({a + 1, 10, 10 * 1932.0});
      r.partners[static_cast<std::size_t>(a + 1)].push_back({a, 10, 10 * 1932.0});
    }
    runs.push_back(r);
  }
  GridRule strips = parse_grid_file("2 1x2\n4 1x4\n8 1x8\n32 2x16\n", "pennant.grid");
  GridFit fit = fit_grid_classes(runs, {strips}, false);
  ASSERT_TRUE(fit.table.has_value());
  ClassTrafficAt at8 = grid_class_traffic(*fit.table, 8);
  EXPECT_TRUE(at8.unseen.empty());
  ClassTrafficAt at32 = grid_class_traffic(*fit.table, 32);
  // the x faces and the diagonals were never possible; only faces were
  // seen, so the x faces take the y faces' 10 messages a pair (32 ordered
  // pairs across the one cut) and their size at 2 x 16 (1932 / 2 bytes: the
  // y faces' A = 1/2, k = 1 borrowed), and the diagonals (60 ordered pairs)
  // stay silent, counted only in the unseen share
  EXPECT_EQ(at32.unseen.size(), 6u);
  EXPECT_NEAR(at32.messages, 320 + 10 * 2 * 2 * 15, 1e-9);
  EXPECT_NEAR(at32.bytes, (320 + 10 * 2 * 2 * 15) * 1932.0 / 2, 1e-6);
  EXPECT_NEAR(at32.unseen_messages, 320 + 600, 1e-9);
}

TEST(QnStructure, SmpiFactorsApplyPerMessageSize)
{
  // half the messages 48 bytes, half 200,000 - 48: mean 100,000. Each message
  // pays its own latency factor (2.01467 below 257 bytes with the envelope,
  // 11.6436 above 65472), each byte its own message's bandwidth factor
  std::vector<SizeShare> mix{{48 / 1e5, 0.5}, {(2e5 - 48) / 1e5, 0.5}};
  auto [latency, per_byte] = smpi_mixed_factors(sizes_at_mean(mix, 1e5), 16);
  EXPECT_NEAR(latency, 0.5 * 2.01467 + 0.5 * 11.6436, 1e-9);
  double bytes_small = 48, bytes_large = 2e5 - 48;
  EXPECT_NEAR(per_byte, (bytes_small / 0.812084 + bytes_large / 0.940694) / 2e5, 1e-9);
  // at the mean size, the small messages would pay 11.6436 too
  auto [at_mean, per_byte_at_mean] = smpi_mixed_factors(sizes_at_mean({}, 1e5), 16);
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

TEST(QnStructure, GridClassesKeepTheirOwnMessageSizesAtTheTarget)
{
  // CoSP2's exchange as above (ring of R messages of 4,000 B, one message of
  // V / n to every other rank, an allreduce of 3 messages of 8 B a rank), now
  // with the size classes the replay reports. At 64 each class has its own
  // size: 4,000 B, V / 64 and 8 B; the largest run's mix relative to its mean
  // (8 processes: V / 8 = 800 kB blocks) would move them all with the mean
  auto cosp2 = [](int n) { return cosp2_run(n, true); };
  std::vector<MeasuredRun> runs{cosp2(2), cosp2(4), cosp2(8)};
  // beside the grid's classes, the 8-process run sent only the allreduce's 8-byte messages
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  ModelVariant ring;
  ring.grid_rules = grid_rules_from_spec("dims_create:1:periodic");
  ring.grid_given = true;
  QueueingModel m = fit_queueing_model(runs, p, ring);
  ASSERT_TRUE(m.grid.has_value());
  ASSERT_TRUE(m.smpi_factors);
  EXPECT_TRUE(m.size_mix_of_rest);
  ASSERT_EQ(m.size_mix.size(), 1u);
  EXPECT_NEAR(m.size_mix[0].relative_size, 1, 1e-12);
  EXPECT_NEAR(m.size_mix[0].message_share, 1, 1e-12);
  // at 64, every message at its own size
  std::vector<SizeAt> got = message_sizes_at(m, 64);
  std::map<double, double> expected{{kV / 64, 64 * 61.0}, {kRingBytes, 64 * 2 * kRing}, {kReduceBytes, 64 * kReduce}};
  expect_sizes(got, expected);
  // so SMPI's factors are those of the three sizes, weighted by messages and by bytes
  double latency = 0, per_byte = 0, messages = 0, bytes = 0;
  for (const auto& [size, count] : expected) {
    latency += count * smpi_lat_factor(size + 16);
    per_byte += count * size / smpi_bw_factor(size + 16);
    messages += count, bytes += count * size;
  }
  auto [lat, per] = smpi_mixed_factors(got, 16);
  EXPECT_NEAR(lat, latency / messages, 1e-9);
  EXPECT_NEAR(per, per_byte / bytes, 1e-9);
  // the model file keeps which mix it is
  auto [back, amdahl] = model_from_json(model_to_json(m, AmdahlModel{}).dump(), "model.json");
  EXPECT_TRUE(back.size_mix_of_rest);
  EXPECT_EQ(message_sizes_at(back, 64).size(), 3u);
}

TEST(QnStructure, AClassOfTwoSizesKeepsBothAndTheRestIsWhatTheGridDidNotSend)
{
  // PENNANT's faces: each neighbour pair on a chain sends R messages of 1,000
  // bytes and R of 2,000 per run (class mean 1,500, in the [1024, 2048) size
  // class where only the 2,000-byte half is), beside an allreduce of 3
  // messages of 8 bytes a rank. With each pair's sizes, the class keeps its
  // two sizes (2/3 and 4/3 of its mean) and the rest is the allreduce alone
  const double kR = 50, kSmall = 1000, kLarge = 2000, kReduce = 3;
  auto chain = [&](int n, bool with_pair_sizes) {
    MeasuredRun r;
    r.procs = n;
    r.placement = {{"e5620-0", n / 2}, {"e5620-1", n / 2}};
    r.time_s = 1 + 0.1 * n, r.mpi_s = 0.1;
    r.network = "smpi";
    r.partners.resize(static_cast<std::size_t>(n));
    double faces = 0;
    for (int a = 0; a < n; ++a)
      for (int b : {a - 1, a + 1}) {
        if (b < 0 || b >= n)
          continue;
        PartnerTraffic p{b, 2 * kR, kR * (kSmall + kLarge), {}};
        if (with_pair_sizes)
          p.sizes = {{512, 1023, kR, kR * kSmall}, {1024, 2047, kR, kR * kLarge}};
        r.partners[static_cast<std::size_t>(a)].push_back(p);
        faces += 1;
      }
    r.message_sizes = {{8, 15, kReduce * n, 8 * kReduce * n},
                       {512, 1023, faces * kR, faces * kR * kSmall},
                       {1024, 2047, faces * kR, faces * kR * kLarge}};
    double messages = kReduce * n + 2 * kR * faces, bytes = 8 * kReduce * n + faces * kR * (kSmall + kLarge);
    r.sends_per_process = messages / n;
    r.message_bytes = bytes / messages;
    return r;
  };
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  ModelVariant line;
  line.grid_rules = grid_rules_from_spec("dims_create:1");
  line.grid_given = true;
  QueueingModel m = fit_queueing_model({chain(2, true), chain(4, true), chain(8, true)}, p, line);
  ASSERT_TRUE(m.grid.has_value());
  for (const GridClass& k : m.grid->classes) {
    ASSERT_EQ(k.mix.size(), 2u) << k.name();
    EXPECT_NEAR(k.mix[0].relative_size, 2.0 / 3, 1e-12);
    EXPECT_NEAR(k.mix[1].relative_size, 4.0 / 3, 1e-12);
    EXPECT_NEAR(k.mix[0].message_share, 0.5, 1e-12);
  }
  ASSERT_EQ(m.size_mix.size(), 1u); // the 8-byte allreduce, exactly what the grid did not send
  EXPECT_NEAR(m.size_mix[0].relative_size, 1, 1e-12);
  std::map<double, double> expected{{8, kReduce * 64}, {kSmall, 2 * 63 * kR}, {kLarge, 2 * 63 * kR}};
  std::vector<SizeAt> got = message_sizes_at(m, 64);
  expect_sizes(got, expected);
  // the class's sizes survive the model file
  auto [back, amdahl] = model_from_json(model_to_json(m, AmdahlModel{}).dump(), "model.json");
  EXPECT_EQ(message_sizes_at(back, 64).size(), 3u);
  // run files without each pair's sizes: the class at its mean size
  QueueingModel old = fit_queueing_model({chain(2, false), chain(4, false), chain(8, false)}, p, line);
  ASSERT_TRUE(old.grid.has_value());
  for (const GridClass& k : old.grid->classes)
    EXPECT_TRUE(k.mix.empty());
  bool at_mean = false;
  for (const SizeAt& s : message_sizes_at(old, 64))
    at_mean = at_mean || std::abs(s.bytes - 1500) < 1e-6;
  EXPECT_TRUE(at_mean);
}

TEST(QnStructure, AGridWhoseSidesAreAllTwoOrOneMayWrapOrNotAndTheFitSaysSo)
{
  // miniMD's exchange (session 18): a periodic 3-D face exchange, m = 10
  // messages of 100 bytes a face, each side of 1 copied without a message.
  // On 2, 4 and 8 ranks (2x1x1, 2x2x1, 2x2x2) a rank sends both faces of
  // each side of 2 to its one partner, 20 messages: a non-periodic grid
  // sending 20 across its one face there is the same partner lists
  GridRule rule = grid_rules_from_spec("dims_create:3:periodic").front();
  auto run = [&](int n) {
    ProcessGrid g = rule.at(n);
    MeasuredRun r;
    r.procs = n;
    r.partners.resize(static_cast<std::size_t>(n));
    for (int rank = 0; rank < n; ++rank) {
      std::map<int, double> to;
      for (std::size_t axis = 0; axis < 3; ++axis)
        for (int step : {-1, 1}) {
          std::vector<int> c = g.coordinates(rank);
          if (g.dims[axis] == 1)
            continue; // copied locally
          c[axis] = (c[axis] + step + g.dims[axis]) % g.dims[axis];
          to[g.rank_at(c)] += 10;
        }
      for (const auto& [t, m] : to)
        r.partners[static_cast<std::size_t>(rank)].push_back({t, m, 100 * m});
    }
    r.sends_per_process = 10.0 * 2 * (n == 2 ? 1 : n == 4 ? 2 : 3); // 2, 4, 8 (16 set below)
    r.message_bytes = 100;
    return r;
  };
  std::vector<MeasuredRun> runs{run(2), run(4), run(8)};
  std::optional<GridClasses> found = find_grid(runs);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->rule.dimensions, 3);
  EXPECT_FALSE(found->rule.periodic); // the first reading that fits
  // without local copies the periodic reading does not fit: its sides of 1 are silent at 2 and 4, carried at 8
  EXPECT_FALSE(fit_grid_classes(runs, {rule}, true).table.has_value());
  PeriodicAmbiguity untold = periodic_ambiguity(runs, *found);
  ASSERT_TRUE(untold.wrapped.has_value());
  EXPECT_NE(untold.warning.find("cannot tell whether the 3-D grid wraps"), std::string::npos) << untold.warning;
  EXPECT_NE(untold.warning.find("--grid dims_create:3:periodic"), std::string::npos);
  // at 64 (4x4x4) the periodic reading's ranks send 6 faces of 10, 60 each;
  // the non-periodic reading's 20 a face, 1.5 neighbours an axis on average: 90
  EXPECT_NEAR(grid_class_traffic(*untold.wrapped, 64).messages, 64 * 60, 1e-6);
  EXPECT_NEAR(grid_class_traffic(*found, 64).messages, 64 * 90, 1e-6);
  EXPECT_NE(untold.warning.find("90 messages"), std::string::npos);
  EXPECT_NE(untold.warning.find("gives 60"), std::string::npos);
  // the training runs themselves: both readings give their traffic exactly
  for (const MeasuredRun& r : runs) {
    EXPECT_NEAR(classed_traffic(*untold.wrapped, r).messages, r.sends_per_process * r.procs, 1e-9);
    EXPECT_NEAR(classed_traffic(*found, r).messages, r.sends_per_process * r.procs, 1e-9);
  }
  EXPECT_NE(untold.warning.find("(5 processes here, 16 in powers of two)"), std::string::npos) << untold.warning;
  // a model of either reading predicts both; the band at 64 spans them and the warning names the periodic one
  Platform p = test::qn_two_nodes();
  QueueingModel m = test::qn_plain_model(0, 9.6e9);
  m.sends = {CurveForm::Constant, 0, 0}; // the grid's traffic only
  m.grid = found;
  m.grid_wrapped = untold.wrapped;
  m.reliability.queueing_error = 0.02;
  HostCounts at64{{0, 32}, {1, 32}};
  QueueingModel open = m, wrapped = m;
  open.grid_wrapped.reset();
  wrapped.grid = untold.wrapped;
  wrapped.grid_wrapped.reset();
  double t_open = predict_run_time(open, p, at64).time_s, t_wrapped = predict_run_time(wrapped, p, at64).time_s;
  ASSERT_GT(std::fabs(t_wrapped - t_open) / t_open, kUntoldGridNote); // 60 against 90 messages a rank
  BandTerms terms = model_band_terms(m, p, at64);
  EXPECT_DOUBLE_EQ(terms.if_periodic_s, t_wrapped);
  EXPECT_NEAR(terms.wrap, std::fabs(t_wrapped - t_open) / t_open, 1e-12);
  EXPECT_GE(prediction_band(m.reliability, terms, false, 64), terms.wrap);
  std::string why = prediction_warning(m, terms, false, 64, t_open, t_open);
  EXPECT_NE(why.find("periodic reading"), std::string::npos) << why;
  EXPECT_EQ(model_band_terms(open, p, at64).if_periodic_s, -1); // a told grid has no second reading
  // a run on 16 (4x2x2), whose side of 4 shows the wrap, settles it: the non-periodic grid's ends talk while
  // other far pairs do not, and the periodic reading fits, its sides of 1 at 2 and 4 copied without a message
  runs.push_back(run(16));
  runs.back().sends_per_process = 2 * 10 + 2 * 20;
  GridFit settled = fit_grid_classes(runs, grid_rules_from_spec(""), true, true);
  ASSERT_TRUE(settled.table.has_value());
  EXPECT_TRUE(settled.table->rule.periodic);
  EXPECT_EQ(settled.table->rule.dimensions, 3);
  EXPECT_TRUE(periodic_ambiguity(runs, *settled.table).warning.empty());
}
