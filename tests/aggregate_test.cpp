// Aggregation of traces to fewer ranks (trace/Aggregate.hpp), on small
// hand-written traces whose aggregated form is derived by hand.
#include "core/Error.hpp"
#include "trace/Aggregate.hpp"
#include "trace/RankGrouping.hpp"
#include "trace/TraceReader.hpp"
#include "trace/TraceWriter.hpp"
#include "TestUtil.hpp"

#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// A ring of 4 ranks, 2 iterations: rank r computes (r+1)*1e6 flops, sends
// 100*(r+1) bytes to r+1 and receives from r-1, then an allreduce of 8 bytes
// and a migrate of 1000*(r+1) heap bytes.
std::string ring_rank(int r)
{
  int next = (r + 1) % 4, prev = (r + 3) % 4;
  std::string s = fmt::format("{} init\n", r);
  for (int it = 0; it < 2; ++it) {
    s += fmt::format("{} irecv {} 0 {} 6\n", r, prev, 100 * (prev + 1));
    s += fmt::format("{} isend {} 0 {} 6\n", r, next, 100 * (r + 1));
    s += fmt::format("{} compute {}\n", r, (r + 1) * 1e6);
    s += fmt::format("{} wait {} {} 0\n", r, prev, r);
    s += fmt::format("{} wait {} {} 0\n", r, r, next);
    s += fmt::format("{} compute 5e5\n", r);
    s += fmt::format("{} allreduce 8 0 6\n", r);
    s += fmt::format("{} migrate {}\n", r, 1000 * (r + 1));
  }
  s += fmt::format("{} finalize\n", r);
  return s;
}

std::string write_trace(const test::TempDir& dir, int ranks, const std::function<std::string(int)>& rank_text)
{
  std::string index;
  for (int r = 0; r < ranks; ++r) {
    dir.file(fmt::format("fine/rank-{}.txt", r), rank_text(r));
    index += fmt::format("rank-{}.txt\n", r);
  }
  return dir.file("fine/trace.txt", index);
}

std::vector<std::string> lines_of(const std::vector<Action>& actions)
{
  std::vector<std::string> out;
  for (const Action& a : actions)
    out.push_back(format_action(a));
  return out;
}

} // namespace

TEST(RankGrouping, BlocksOfA2DGridFollowRowMajorRanks)
{
  // 4x4 into 2x2: rank r = 4i + j goes to block 2*(i/2) + j/2
  RankGrouping g = block_grouping({4, 4}, {2, 2});
  ASSERT_EQ(g.coarse_ranks, 4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(g.group_of[static_cast<std::size_t>(4 * i + j)], 2 * (i / 2) + j / 2) << i << "," << j;
  // 3-D 4x2x2 into 2x1x2: r = 4i + 2j + k -> 2*(i/2) + k
  RankGrouping g3 = block_grouping({4, 2, 2}, {2, 1, 2});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(g3.group_of[static_cast<std::size_t>(4 * i + 2 * j + k)], 2 * (i / 2) + k);
}

TEST(RankGrouping, CoarseGridHasTheSquarestBlocks)
{
  EXPECT_EQ(coarse_grid_for({8, 8}, 16), (std::vector<int>{4, 4}));
  EXPECT_EQ(coarse_grid_for({8, 8}, 4), (std::vector<int>{2, 2}));
  // 8 blocks of 8x8: 4x2 (blocks 2x4) and 2x4 (blocks 4x2) tie at 6; the first dimension gets more
  EXPECT_EQ(coarse_grid_for({8, 8}, 8), (std::vector<int>{4, 2}));
  EXPECT_EQ(coarse_grid_for({64}, 8), (std::vector<int>{8}));
  EXPECT_THROW(coarse_grid_for({8, 8}, 3), Error);
  EXPECT_THROW(coarse_grid_for({8, 8}, 128), Error);
}

TEST(RankGrouping, GridTextIsChecked)
{
  EXPECT_EQ(parse_grid("4x4x4", "--grid"), (std::vector<int>{4, 4, 4}));
  EXPECT_THROW(parse_grid("4x", "--grid"), Error);
  EXPECT_THROW(parse_grid("0x4", "--grid"), Error);
  EXPECT_THROW(parse_grid("2x2x2x2", "--grid"), Error);
  EXPECT_THROW(block_grouping({8, 8}, {3, 2}), Error);
}

TEST(RankGrouping, MapFileNamingAMissingRankIsALocatedError)
{
  test::TempDir dir;
  std::string bad = dir.file("map.txt", "# fine coarse\n0 0\n1 0\n7 1\n");
  try {
    read_grouping_map(bad, 4);
    FAIL() << "accepted rank 7 of 4";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("map.txt:4: fine rank 7: expected 0..3"), std::string::npos) << e.what();
  }
  std::string missing = dir.file("map2.txt", "0 0\n1 0\n2 1\n");
  try {
    read_grouping_map(missing, 4);
    FAIL() << "accepted a map without rank 3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("map2.txt: fine rank 3 is not mapped"), std::string::npos) << e.what();
  }
  std::string twice = dir.file("map3.txt", "0 0\n1 0\n2 1\n3 1\n1 1\n");
  EXPECT_THROW(read_grouping_map(twice, 4), Error);
  std::string gap = dir.file("map4.txt", "0 0\n1 0\n2 2\n3 2\n");
  EXPECT_THROW(read_grouping_map(gap, 4), Error); // coarse rank 1 empty
  RankGrouping ok = read_grouping_map(dir.file("map5.txt", "0 1\n1 0\n2 1\n3 0\n"), 4);
  EXPECT_EQ(ok.coarse_ranks, 2);
  EXPECT_EQ(ok.group_of, (std::vector<int>{1, 0, 1, 0}));
}

TEST(Aggregate, RingOfFourIntoTwoMergesComputeAndDropsMessagesInsideGroups)
{
  test::TempDir dir;
  TraceIndex fine = read_trace_index(write_trace(dir, 4, ring_rank));
  AggregateSummary s;
  auto coarse = aggregate_trace(fine, block_grouping({4}, {2}), &s);
  // groups {0,1} and {2,3}. Messages 0->1 and 2->3 stay inside; 1->2 (200
  // bytes) and 3->0 (400 bytes) cross. Group 0: rank 0's crossing irecv from 3
  // and rank 1's crossing isend to 2 come first (pre = 0); each then computes
  // (1e6 and 2e6) before its crossing wait (mid = 3e6); then 2 x 5e5 (post).
  // Group 1 likewise: mid = 3e6 + 4e6. Migrate bytes: 1000 + 2000 and 3000 + 4000.
  std::vector<std::string> expected0 = {"0 init"};
  for (int it = 0; it < 2; ++it) {
    expected0.insert(expected0.end(), {"0 irecv 1 0 400 6", "0 isend 1 0 200 6", "0 compute 3e+06", "0 wait 1 0 0",
                                       "0 wait 0 1 0", "0 compute 1e+06", "0 allreduce 8 0 6", "0 migrate 3000"});
  }
  expected0.push_back("0 finalize");
  EXPECT_EQ(lines_of(coarse[0]), expected0);
  std::vector<std::string> expected1 = {"1 init"};
  for (int it = 0; it < 2; ++it) {
    expected1.insert(expected1.end(), {"1 irecv 0 0 200 6", "1 isend 0 0 400 6", "1 compute 7e+06", "1 wait 0 1 0",
                                       "1 wait 1 0 0", "1 compute 1e+06", "1 allreduce 8 0 6", "1 migrate 7000"});
  }
  expected1.push_back("1 finalize");
  EXPECT_EQ(lines_of(coarse[1]), expected1);
  EXPECT_EQ(s.iterations, 2);
  EXPECT_EQ(s.messages_in, 8u);
  EXPECT_EQ(s.messages_inside, 4u);
  EXPECT_EQ(s.messages_out, 4u);
}

TEST(Aggregate, IdentityGroupingKeepsEveryMessageAndComputation)
{
  test::TempDir dir;
  TraceIndex fine = read_trace_index(write_trace(dir, 4, ring_rank));
  auto same = aggregate_trace(fine, block_grouping({4}, {4}));
  double total = 0;
  std::uint64_t sent = 0;
  for (const auto& rank : same)
    for (const Action& a : rank) {
      if (a.type == ActionType::Compute)
        total += a.value;
      if (a.type == ActionType::Isend)
        sent += a.bytes;
    }
  // per iteration: sum (r+1)e6 = 10e6 plus 4 x 5e5; bytes 100+200+300+400; two iterations
  EXPECT_DOUBLE_EQ(total, 2 * (10e6 + 2e6));
  EXPECT_EQ(sent, 2u * 1000u);
}

TEST(Aggregate, CollectivesAreKeptOnTheCoarseWorldWithRootsMapped)
{
  test::TempDir dir;
  auto text = [](int r) {
    return fmt::format("{} init\n{} bcast 64 3 6\n{} allgather 16 16 6 6\n{} gatherv 8 8 8 8 8 2 6 6\n{} migrate 10\n"
                       "{} finalize\n",
                       r, r, r, r, r, r);
  };
  TraceIndex fine = read_trace_index(write_trace(dir, 4, text));
  auto coarse = aggregate_trace(fine, block_grouping({4}, {2}));
  // bcast keeps its size, root 3 is in group 1; allgather contributions add up (2 x 16);
  // gatherv's root 2 is in group 1, each group gives 8+8 bytes, counts summed over the members
  EXPECT_EQ(lines_of(coarse[0]), (std::vector<std::string>{"0 init", "0 bcast 64 1 6", "0 allgather 32 32 6 6",
                                                           "0 gatherv 16 32 32 1 6 6", "0 migrate 20", "0 finalize"}));
}

TEST(Aggregate, RanksWithDifferentIterationsAreRefused)
{
  test::TempDir dir;
  auto text = [](int r) {
    return r == 1 ? std::string("1 init\n1 compute 1\n1 finalize\n")
                  : fmt::format("{} init\n{} compute 1\n{} migrate 5\n{} finalize\n", r, r, r, r);
  };
  TraceIndex fine = read_trace_index(write_trace(dir, 2, text));
  try {
    aggregate_trace(fine, block_grouping({2}, {1}));
    FAIL() << "accepted ranks with different iterations";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank-1.txt: rank 1 has 0 migrate lines, rank 0 of its group has 1"), std::string::npos)
        << e.what();
  }
}

TEST(Aggregate, WildcardReceiveAndSubCommunicatorAreLocatedErrors)
{
  test::TempDir dir;
  auto any = [](int r) {
    return r == 0 ? std::string("0 init\n0 recv -1 0 8 6\n0 finalize\n") : std::string("1 init\n1 send 0 0 8 6\n1 finalize\n");
  };
  TraceIndex fine = read_trace_index(write_trace(dir, 2, any));
  try {
    aggregate_trace(fine, block_grouping({2}, {1}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank-0.txt:2: 'recv': peer -1"), std::string::npos) << e.what();
  }
}

TEST(AggregateCli, WritesATraceTheReplayReadsAndChecksItsArguments)
{
  test::TempDir dir;
  std::string index = write_trace(dir, 4, ring_rank);
  std::string out = dir.path() + "/coarse";
  auto r = test::run_perfcast(fmt::format("aggregate {} -o {} --ranks 2 --json", index, out));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"coarse_ranks\": 2"), std::string::npos) << r.output;
  auto again = test::run_perfcast(fmt::format("aggregate {} -o {} --ranks 2", index, out)); // its own output: replaced
  EXPECT_EQ(again.status, 0) << again.output;
  auto replay = test::replay_json(fmt::format("{} --platform {}/examples/platforms/hetero8.json", out,
                                              test::source_dir()));
  EXPECT_EQ(replay["ranks"].size(), 2u);
  EXPECT_GT(replay["makespan_s"].get<double>(), 0);

  auto bad = test::run_perfcast(fmt::format("aggregate {} -o {}/x --ranks 3", index, dir.path()));
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--ranks 3: expected a divisor of the trace's 4 ranks"), std::string::npos) << bad.output;
  auto grid = test::run_perfcast(fmt::format("aggregate {} -o {}/x --grid 3x2 --ranks 2", index, dir.path()));
  EXPECT_NE(grid.status, 0);
  EXPECT_NE(grid.output.find("--grid 3x2: 6 ranks"), std::string::npos) << grid.output;
  dir.file("foreign/notes.txt", "mine\n");
  auto foreign = test::run_perfcast(fmt::format("aggregate {} -o {}/foreign --ranks 2", index, dir.path()));
  EXPECT_NE(foreign.status, 0);
  EXPECT_NE(foreign.output.find("notes.txt"), std::string::npos) << foreign.output;
}
