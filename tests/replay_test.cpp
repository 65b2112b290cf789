// Replay engine on small hand-written traces with closed-form answers.
#include "core/Error.hpp"
#include "net/SmpiFactors.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "sim/Replay.hpp"
#include "TestUtil.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// 4 hosts of 1 Gflop/s and one core, 125 MB/s and 50 us per link, no backbone.
const char* kCluster = R"(<platform version="4.1">
  <cluster id="c" prefix="n" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/></platform>)";

struct Fixture {
  test::TempDir dir;
  Platform platform = parse_simgrid_platform(kCluster, "c.xml");

  // Writes one file per rank and an index; returns the index path.
  std::string trace(const std::vector<std::string>& ranks)
  {
    std::string index;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      dir.file("rank" + std::to_string(r) + ".txt", ranks[r]);
      index += "rank" + std::to_string(r) + ".txt\n";
    }
    return dir.file("index.txt", index);
  }

  ReplayReport replay(const std::vector<std::string>& ranks, Placement placement = {},
                      ReplayOptions options = ReplayOptions{})
  {
    TraceIndex t = read_trace_index(trace(ranks));
    if (placement.empty())
      placement = place_by_policy(platform, "round-robin", t.ranks());
    return replay_trace(t, platform, placement, options);
  }

  /// The error the replay of `ranks` stops with; a test failure (and "") when it does not stop with one.
  std::string replay_error(const std::vector<std::string>& ranks)
  {
    try {
      replay(ranks);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected the replay to stop with an error";
    return "";
  }
};

// One message across two cluster links: 100 us of latency, 125 MB/s.
double message_time(double payload)
{
  double S = payload + 16, L = 100e-6;
  return L * smpi_lat_factor(S) + S / (smpi_bw_factor(S) * std::min(1.25e8, 4194304.0 / (2 * L)));
}

} // namespace

TEST(Replay, ComputeTakesFlopsOverSpeed)
{
  Fixture f;
  auto r = f.replay({"0 init\n0 compute 2e9\n0 finalize\n", "1 init\n1 compute 5e8\n1 finalize\n"});
  EXPECT_DOUBLE_EQ(r.makespan_s, 2.0);
  EXPECT_DOUBLE_EQ(r.ranks[1].finish_s, 0.5);
  EXPECT_DOUBLE_EQ(r.ranks[0].compute_s, 2.0);
}

TEST(Replay, RanksSharingOneCoreSplitIt)
{
  // two ranks on one single-core host: each runs at half speed while both run
  Fixture f;
  auto r = f.replay({"0 compute 1e9\n", "1 compute 3e9\n"}, {0, 0});
  EXPECT_DOUBLE_EQ(r.ranks[0].finish_s, 2.0); // 1e9 flops at 0.5 Gf/s
  EXPECT_DOUBLE_EQ(r.ranks[1].finish_s, 4.0); // 1e9 at half speed, then 2e9 alone
}

TEST(Replay, EagerSendReturnsAtOnceReceiverWaitsForTransfer)
{
  Fixture f;
  auto r = f.replay({"0 send 1 0 1000\n", "1 recv 0 0 1000\n"});
  EXPECT_DOUBLE_EQ(r.ranks[0].finish_s, 0.0);
  EXPECT_NEAR(r.ranks[1].finish_s, message_time(1000), 1e-12);
  EXPECT_EQ(r.ranks[0].messages_sent, 1u);
  EXPECT_EQ(r.ranks[1].bytes_received, 1000u);
}

TEST(Replay, RendezvousSendBlocksUntilTheTransferEnds)
{
  Fixture f;
  // the receiver posts 1 s late: nothing moves before, then one transfer
  auto r = f.replay({"0 send 1 0 100000\n", "1 compute 1e9\n1 recv 0 0 100000\n"});
  double t = 1.0 + message_time(100000);
  EXPECT_NEAR(r.ranks[0].finish_s, t, 1e-12);
  EXPECT_NEAR(r.ranks[1].finish_s, t, 1e-12);
  EXPECT_NEAR(r.ranks[0].wait_s, 1.0, 1e-12); // waited for the receiver
}

TEST(Replay, ComputePhasesTakeEachPhasesSlowestRank)
{
  Fixture f;
  // rank 0 computes 1 then 3 Gflop, rank 1 3 then 1, an allreduce between: each has 4 in all (no imbalance), but
  // each phase waits for its slowest rank, 3 + 3 = 6 against a mean of 2 + 2 = 4
  auto r = f.replay({"0 compute 1e9\n0 allreduce 8 0\n0 compute 3e9\n",
                     "1 compute 3e9\n1 allreduce 8 0\n1 compute 1e9\n"});
  EXPECT_EQ(r.phases.phases, 2u);
  EXPECT_DOUBLE_EQ(r.phases.slowest_flops, 6e9);
  EXPECT_DOUBLE_EQ(r.phases.mean_flops, 4e9);
  // the replay's clock agrees: each phase lasts its slowest rank's compute (1 Gflop/s hosts), plus the allreduce
  EXPECT_GT(r.makespan_s, 6.0);
  // without collectives the whole trace is one phase
  auto one = f.replay({"0 compute 2e9\n", "1 compute 1e9\n"});
  EXPECT_EQ(one.phases.phases, 1u);
  EXPECT_DOUBLE_EQ(one.phases.slowest_flops, 2e9);
  EXPECT_DOUBLE_EQ(one.phases.mean_flops, 1.5e9);
}

TEST(Replay, DatatypeSizesScaleCounts)
{
  Fixture f;
  // 125 doubles are 1000 bytes
  auto r = f.replay({"0 isend 1 3 125 0\n0 wait 0 1 3\n", "1 irecv 0 3 125 0\n1 waitall\n"});
  EXPECT_NEAR(r.ranks[1].finish_s, message_time(1000), 1e-12);
}

TEST(Replay, MessagesDoNotOvertake)
{
  // two messages with one tag: the first receive gets the first message, so
  // the 1 MB receive waits for the 1 MB message even though it is second
  Fixture f;
  auto r = f.replay({"0 isend 1 0 10\n0 isend 1 0 1000000\n0 waitall\n",
                     "1 recv 0 0 10\n1 recv 0 0 1000000\n"});
  EXPECT_EQ(r.ranks[1].bytes_received, 1000010u);
  EXPECT_GT(r.ranks[1].finish_s, message_time(1000000) * 0.99);
}

TEST(Replay, AnySourceTakesTheFirstArrival)
{
  // rank 1 is slow, rank 2 fast: the wildcard receive matches rank 2, and the
  // second (explicit) receive from rank 1 completes last
  Fixture f;
  auto r = f.replay({"0 recv -333 5 8\n0 recv 1 5 8\n", "1 compute 3e9\n1 send 0 5 8\n", "2 compute 1e9\n2 send 0 5 8\n"});
  EXPECT_NEAR(r.ranks[0].finish_s, 3.0 + message_time(8), 1e-12);
  EXPECT_EQ(r.ranks[0].messages_received, 2u);
}

TEST(Replay, DeadlockNamesRanksAndActions)
{
  Fixture f;
  std::string m = f.replay_error({"0 init\n0 recv 1 0 8\n", "1 init\n1 recv 0 0 8\n"});
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("rank0.txt:2: 'recv'"), std::string::npos) << m;
  EXPECT_NE(m.find("rank 1 blocked at"), std::string::npos) << m;
  EXPECT_NE(m.find("recv 0->1 tag 0 8 bytes"), std::string::npos) << m;
}

// two groups whose collectives ran on sub-communicators, traced without them
// (SMPI's time-independent format): one group did one allreduce more, so the
// world-wide pairing slips and the deadlock says why
TEST(Replay, CollectivesThatDoNotPairUpAreNamedInTheDeadlock)
{
  Fixture f;
  std::string m =
      f.replay_error({"0 allreduce 8 0\n0 allreduce 8 0\n0 alltoall 8 8\n", "1 allreduce 8 0\n1 alltoall 8 8\n"});
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("different collectives of MPI_COMM_WORLD (allreduce on 1 rank(s) from 0, alltoall on 1 rank(s) from 1)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("perfcast trace"), std::string::npos) << m;
}

// a plain point-to-point deadlock gets no such hint
TEST(Replay, PointToPointDeadlockHasNoCollectiveHint)
{
  Fixture f;
  std::string m = f.replay_error({"0 recv 1 0 8\n", "1 recv 0 0 8\n"});
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_EQ(m.find("different collectives"), std::string::npos) << m;
}

TEST(Replay, UnreceivedSendIsReported)
{
  Fixture f;
  std::string m = f.replay_error({"0 send 1 0 100000\n", "1 init\n"});
  EXPECT_NE(m.find("rank 0 blocked at"), std::string::npos) << m;
  EXPECT_NE(m.find("never received"), std::string::npos) << m;
}

TEST(Replay, BarrierReleasesEveryoneAfterTheLast)
{
  Fixture f;
  auto r = f.replay({"0 barrier\n", "1 compute 1e9\n1 barrier\n", "2 barrier\n"});
  // rank 1 arrives at 1 s and sends rank 0 an empty message (16 bytes with the
  // envelope); rank 0 then sends to ranks 1 and 2 at once, and those two
  // flows share rank 0's up link: each gets B/2.
  double S = 16, L = 100e-6;
  double shared = L * smpi_lat_factor(S) + S / (smpi_bw_factor(S) * 1.25e8 / 2);
  EXPECT_NEAR(r.ranks[1].finish_s, 1.0 + message_time(0) + shared, 1e-12);
  EXPECT_NEAR(r.ranks[2].finish_s, r.ranks[1].finish_s, 1e-12);
}

TEST(Replay, CollectivesCompleteOnAnyRankCount)
{
  for (int P : {2, 3, 5, 8}) {
    std::vector<std::string> ranks;
    for (int r = 0; r < P; ++r) {
      std::string counts;
      for (int i = 0; i < P; ++i)
        counts += " 4";
      std::string s = std::to_string(r) + " ";
      ranks.push_back(s + "init\n" + s + "bcast 100 1\n" + s + "reduce 100 1e6 0\n" + s + "allreduce 10 0\n" + s +
                      "alltoall 20 20\n" + s + "allgather 20 20\n" + s + "gather 10 10 0\n" + s + "scatter 10 10 0\n" +
                      s + "scan 5 0\n" + s + "alltoallv 100" + counts + " 100" + counts + "\n" + s + "gatherv 4" +
                      counts + " 0\n" + s + "allgatherv 4" + counts + "\n" + s + "reducescatter" + counts + " 10\n" +
                      s + "barrier\n" + s + "finalize\n");
    }
    for (const char* alg : {"default", "recursive-doubling", "ring", "rabenseifner"}) {
      Fixture f;
      ReplayOptions o;
      o.collectives.algorithm["allreduce"] = alg;
      auto r = f.replay(ranks, place_by_policy(f.platform, "round-robin", P), o);
      EXPECT_GT(r.makespan_s, 0) << P << " " << alg;
      // every message sent is received, and each rank gets at least its share
      // of the alltoall and the allgather: 20 bytes from each other rank in each
      std::uint64_t sent = 0, received = 0;
      for (const auto& rank : r.ranks) {
        sent += rank.bytes_sent;
        received += rank.bytes_received;
        EXPECT_GE(rank.bytes_received, 40u * static_cast<std::uint64_t>(P - 1)) << P << " " << alg;
      }
      EXPECT_EQ(sent, received) << P << " " << alg;
    }
  }
}

TEST(Replay, LogGpIgnoresContention)
{
  Fixture f;
  ReplayOptions o;
  o.network = "loggp";
  auto r = f.replay({"0 send 1 0 1000\n", "1 recv 0 0 1000\n"}, {}, o);
  // L = 100 us of route latency, G = 1/125 MB/s, o = 0, envelope 16 bytes
  EXPECT_NEAR(r.ranks[1].finish_s, 100e-6 + 1016 / 1.25e8, 1e-15);
}

namespace {

// A master dealing `tasks` tasks of `flops` each to workers 1..W over
// wildcard receives, in perfcast's elastic form.
std::vector<std::string> elastic_farm(int workers, int tasks, double flops)
{
  std::string master = "0 init\n";
  int sent = 0;
  for (int w = 1; w <= workers && sent < tasks; ++w, ++sent)
    master += fmt::format("0 send {} 1 64\n", w);
  for (int done = 0; done < tasks; ++done) {
    master += "0 recv -1 2 8\n";
    if (sent < tasks) {
      master += "0 send @ 1 64\n";
      ++sent;
    }
  }
  for (int w = 1; w <= workers; ++w)
    master += fmt::format("0 send {} 3 0\n", w);
  std::vector<std::string> ranks{master};
  for (int w = 1; w <= workers; ++w)
    ranks.push_back(fmt::format("{0} init\n{0} loop_begin 3\n{0} recv 0 -1 64\n{0} compute {1}\n{0} send 0 2 8\n"
                                "{0} loop_end\n{0} finalize\n",
                                w, flops));
  return ranks;
}

} // namespace

TEST(Replay, ElasticFarmDealsMoreTasksToFasterWorkers)
{
  // worker 1 on a 3 Gf/s host, worker 2 on a 1 Gf/s host; tasks of 3e8 flops
  // (0.1 s and 0.3 s): while worker 2 does one task worker 1 does three, so of
  // 8 tasks worker 1 takes 6 and worker 2 takes 2; the end is near 0.6 s.
  Fixture f;
  Platform p = parse_simgrid_platform(R"(<platform version="4.1"><zone id="z" routing="Cluster">
    <host id="m" speed="1Gf"/><host id="fast" speed="3Gf"/><host id="slow" speed="1Gf"/>
    <link id="lm" bandwidth="125MBps" latency="1us"/><link id="lf" bandwidth="125MBps" latency="1us"/>
    <link id="ls" bandwidth="125MBps" latency="1us"/>
    <host_link id="m" up="lm" down="lm"/><host_link id="fast" up="lf" down="lf"/><host_link id="slow" up="ls" down="ls"/>
    </zone></platform>)",
                                      "farm.xml");
  TraceIndex t = read_trace_index(f.trace(elastic_farm(2, 8, 3e8)));
  ReplayReport r = replay_trace(t, p, {0, 1, 2}, ReplayOptions{});
  // each worker receives its tasks plus the stop message
  EXPECT_EQ(r.ranks[1].messages_received, 6u + 1);
  EXPECT_EQ(r.ranks[2].messages_received, 2u + 1);
  EXPECT_NEAR(r.makespan_s, 0.6, 0.001);
}

TEST(Replay, ElasticSendWithoutWildcardReceiveIsAnError)
{
  Fixture f;
  std::string m = f.replay_error({"0 send @ 1 8\n", "1 recv 0 1 8\n"});
  EXPECT_NE(m.find("rank0.txt:1: send to '@'"), std::string::npos) << m;
}

TEST(Replay, LoopBlockErrorsNameTheLine)
{
  Fixture f;
  std::string m = f.replay_error({"0 loop_begin 3\n0 compute 1\n0 loop_end\n"});
  EXPECT_NE(m.find("rank0.txt:1: a loop block needs a receive"), std::string::npos) << m;
  m = f.replay_error({"0 loop_begin 3\n0 recv 1 0 8\n", "1 send 0 3 8\n"});
  EXPECT_NE(m.find("no matching 'loop_end'"), std::string::npos) << m;
}

TEST(Replay, WaitanyConsumesTheFirstRequestToComplete)
{
  // senders finish computing at 3 s (slow) and 1 s (fast). waitany returns
  // when the fast message is in (1 s + m), rank 0 computes 0.5 s, and the
  // final waitall ends when the slow message is in: 3 s + m. Had waitany
  // waited for both, rank 0 would end at 3.5 s + m.
  Fixture f;
  auto r = f.replay({"0 irecv 1 0 8\n0 irecv 2 0 8\n0 waitany 2\n0 compute 5e8\n0 waitall\n",
                     "1 compute 3e9\n1 send 0 0 8\n", "2 compute 1e9\n2 send 0 0 8\n"});
  EXPECT_NEAR(r.ranks[0].finish_s, 3.0 + message_time(8), 1e-12);
  EXPECT_NEAR(r.ranks[0].compute_s, 0.5, 1e-12);
}

TEST(Replay, SmpiWaitAnySpellingIsReadAsWaitany)
{
  // SMPI 3.32's -trace-ti writes MPI_Waitany as "waitAny COUNT" (miniAMR's
  // trace stopped at it): the same scenario as above, the same times
  Fixture f;
  auto r = f.replay({"0 irecv 1 0 8\n0 irecv 2 0 8\n0 waitAny 2\n0 compute 5e8\n0 waitall\n",
                     "1 compute 3e9\n1 send 0 0 8\n", "2 compute 1e9\n2 send 0 0 8\n"});
  EXPECT_NEAR(r.ranks[0].finish_s, 3.0 + message_time(8), 1e-12);
  EXPECT_NEAR(r.ranks[0].compute_s, 0.5, 1e-12);
}

TEST(Replay, WaitsomeConsumesEverythingCompleted)
{
  // both messages are in by the time rank 0 looks (it computes 3 s first):
  // waitsome takes both, the following waitany has nothing left to wait for
  Fixture f;
  auto r = f.replay({"0 irecv 1 0 8\n0 irecv 2 0 8\n0 compute 3e9\n0 waitsome 2\n0 waitany 2\n",
                     "1 send 0 0 8\n", "2 send 0 0 8\n"});
  EXPECT_NEAR(r.ranks[0].finish_s, 3.0, 1e-12);
}

TEST(Replay, TestallCostsOneTestAndReleasesAllRequestsOnlyWhenAllAreComplete)
{
  // SMPI's -trace-ti writes MPI_Testall as "testall" without arguments
  // (hypre, in LLNL's AMG). Both messages in before rank 0 looks (it computes
  // 3 s first): the testall costs one smpi/test delay, 1e-4 s, and completes
  // them, so the waitall after it has nothing to wait for
  Fixture f;
  auto done = f.replay({"0 irecv 1 0 8\n0 irecv 2 0 8\n0 compute 3e9\n0 testall\n0 waitall\n",
                        "1 send 0 0 8\n", "2 send 0 0 8\n"});
  EXPECT_NEAR(done.ranks[0].finish_s, 3.0 + 1e-4, 1e-12);
  // one message still out at 1 s (rank 2 sends at 3 s): the testall costs its
  // delay and completes nothing; rank 0 computes 0.5 s and its waitall ends
  // when the late message is in, 3 s + m
  auto open = f.replay({"0 irecv 1 0 8\n0 irecv 2 0 8\n0 compute 1e9\n0 testall\n0 compute 5e8\n0 waitall\n",
                        "1 send 0 0 8\n", "2 compute 3e9\n2 send 0 0 8\n"});
  EXPECT_NEAR(open.ranks[0].finish_s, 3.0 + message_time(8), 1e-12);
  EXPECT_NEAR(open.ranks[0].compute_s, 1.5, 1e-12);
  // with nothing pending it returns at once, without the delay (MPI: flag true)
  auto idle = f.replay({"0 compute 1e9\n0 testall\n"});
  EXPECT_NEAR(idle.ranks[0].finish_s, 1.0, 1e-12);
}

TEST(Replay, NonBlockingCollectiveOverlapsComputation)
{
  // a 1 MB allreduce (reduce to 0 + bcast: two rendezvous transfers, about
  // 17 ms) overlaps 1 s of compute: the rank ends at 1 s, not 1 s + 17 ms
  Fixture f;
  std::vector<std::string> nb, blocking;
  for (int r = 0; r < 2; ++r) {
    std::string s = std::to_string(r);
    nb.push_back(s + " iallreduce 1000000 0 6\n" + s + " compute 1e9\n" + s + " wait " + s + " " + s + " -2\n");
    blocking.push_back(s + " allreduce 1000000 0 6\n" + s + " compute 1e9\n");
  }
  auto r_nb = f.replay(nb);
  auto r_b = f.replay(blocking);
  double transfer = message_time(1000000);
  EXPECT_NEAR(r_b.makespan_s, 1.0 + 2 * transfer, 1e-9);
  EXPECT_NEAR(r_nb.makespan_s, 1.0, 1e-12);
  EXPECT_EQ(r_nb.ranks[1].bytes_received, 1000000u);
}

TEST(Replay, WaitingForANonBlockingCollectiveBlocksUntilItEnds)
{
  Fixture f;
  auto r = f.replay({"0 ibcast 1000000 0 6\n0 waitall\n", "1 ibcast 1000000 0 6\n1 waitall\n"});
  EXPECT_NEAR(r.makespan_s, message_time(1000000), 1e-12);
}

namespace {

// Four ranks split by parity into {0, 2} and {1, 3}; inside each half, local
// rank 0 broadcasts 1 MB and sends 8 bytes to local rank 1.
std::vector<std::string> split_halves_ranks()
{
  std::vector<std::string> ranks;
  for (int r = 0; r < 4; ++r) {
    std::string s = std::to_string(r);
    std::string t = s + " comm_split 1 " + std::to_string(r % 2) + " " + s + "\n" + s + " bcast 1000000 0 6 comm=1\n";
    t += r < 2 ? s + " send 1 0 8 comm=1\n" : s + " recv 0 0 8 comm=1\n";
    ranks.push_back(t);
  }
  return ranks;
}

} // namespace

TEST(Replay, SubCommunicatorsRouteByLocalRank)
{
  // comm_split 1 by parity: {0, 2} and {1, 3}; inside each, local rank 0
  // broadcasts 1 MB and sends 8 bytes to local rank 1. The split itself is an
  // allgather of 8 bytes over the world: 3 x 8 bytes in per rank.
  Fixture f;
  auto r = f.replay(split_halves_ranks());
  EXPECT_EQ(r.ranks[0].bytes_received, 24u);
  EXPECT_EQ(r.ranks[1].bytes_received, 24u);
  EXPECT_EQ(r.ranks[2].bytes_received, 24u + 1000000 + 8);
  EXPECT_EQ(r.ranks[3].bytes_received, 24u + 1000000 + 8);
  EXPECT_EQ(r.ranks[2].messages_received, 3u + 2);
}

TEST(Replay, PartnersCountOnlyTheTracesOwnSendsAndSizesCountEveryMessage)
{
  // the comm_split case above: the 8-byte sends inside each half go from
  // world rank 0 to 2 and from 1 to 3 (local rank 1 of {0, 2} and {1, 3});
  // the split's allgather and the 1 MB broadcasts are collective schedules
  Fixture f;
  auto r = f.replay(split_halves_ranks());
  ASSERT_EQ(r.ranks[0].partners.size(), 1u);
  EXPECT_EQ(r.ranks[0].partners.at(2).messages, 1u);
  EXPECT_EQ(r.ranks[0].partners.at(2).bytes, 8u);
  ASSERT_EQ(r.ranks[1].partners.size(), 1u);
  EXPECT_EQ(r.ranks[1].partners.at(3).bytes, 8u);
  EXPECT_TRUE(r.ranks[2].partners.empty());
  // everything else the ranks received came from collectives: 4 x 24 bytes
  // of the split's allgather and two 1 MB broadcasts
  std::uint64_t collective = 0, sized = 0, counted = 0, sent = 0;
  for (const RankReport& rank : r.ranks) {
    collective += rank.collective.bytes;
    sent += rank.messages_sent;
    for (const auto& [k, t] : rank.sizes) {
      sized += t.bytes;
      counted += t.messages;
      // size class k holds [2^(k-1), 2^k)
      EXPECT_GE(t.bytes, t.messages * (k == 0 ? 0 : std::uint64_t{1} << (k - 1))) << k;
      EXPECT_LT(t.bytes, t.messages * (std::uint64_t{1} << k)) << k;
    }
  }
  EXPECT_EQ(collective, 4u * 24 + 2 * 1000000);
  EXPECT_EQ(sized, collective + 16);
  EXPECT_EQ(counted, sent);
  // the two 8-byte sends are in class 4, [8, 16)
  EXPECT_GE(r.ranks[0].sizes.at(4).messages, 1u);
  // and so are they per partner, beside nothing of the collectives
  ASSERT_EQ(r.ranks[0].partner_sizes.size(), 1u);
  ASSERT_EQ(r.ranks[0].partner_sizes.at(2).size(), 1u);
  EXPECT_EQ(r.ranks[0].partner_sizes.at(2).at(4).messages, 1u);
  EXPECT_EQ(r.ranks[0].partner_sizes.at(2).at(4).bytes, 8u);
  EXPECT_TRUE(r.ranks[2].partner_sizes.empty());
}

TEST(Replay, UnknownCommunicatorIsAnError)
{
  Fixture f;
  try {
    f.replay({"0 init\n0 barrier comm=5\n", "1 barrier comm=5\n"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank0.txt:2: unknown communicator comm=5"), std::string::npos) << e.what();
  }
}
