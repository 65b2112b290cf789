// Over-decomposed replay: VPs on cores, balancing steps and migrations, with
// makespans derived by hand.
#include "core/Error.hpp"
#include "lb/BalancerFunction.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "sim/OverDecomposed.hpp"
#include "sim/Replay.hpp"
#include "TestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// 4 hosts of 1 Gflop/s and one core, 125 MB/s and 50 us per link, no backbone.
const char* kCluster = R"(<platform version="4.1">
  <cluster id="c" prefix="n" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/></platform>)";

struct VpFixture {
  test::TempDir dir;
  Platform platform = parse_simgrid_platform(kCluster, "c.xml");
  std::uint64_t stack_bytes = 0; ///< VpOptions::stack_bytes of every replay
  double message_cpu_s = 0;      ///< VpOptions::message_cpu_s of every replay
  double local_message_cpu_s = 0; ///< VpOptions::local_message_cpu_s of every replay
  double migration_cpu_s = 0;    ///< VpOptions::migration_cpu_s of every replay
  double step_s = 0;             ///< VpOptions::step_s of every replay

  TraceIndex trace(const std::vector<std::string>& ranks)
  {
    std::string index;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      dir.file("rank" + std::to_string(r) + ".txt", ranks[r]);
      index += "rank" + std::to_string(r) + ".txt\n";
    }
    return read_trace_index(dir.file("index.txt", index));
  }

  // VPs on `cores` cores, one per host n0, n1, ...
  VpReport replay(const std::vector<std::string>& ranks, int cores, const std::vector<int>& mapping, int period = 0,
                  const std::string& balancer = "none", const std::string& network = "smpi")
  {
    TraceIndex t = trace(ranks);
    VpOptions options;
    options.replay.network = network;
    options.core_of_vp = mapping;
    options.period = period;
    options.overheads.stack_bytes = stack_bytes;
    options.overheads.message_cpu_s = message_cpu_s;
    options.overheads.local_message_cpu_s = local_message_cpu_s;
    options.overheads.migration_cpu_s = migration_cpu_s;
    options.overheads.step_s = step_s;
    options.balancer = lb::balancer_function(lb::parse_balancer_spec(balancer));
    return replay_over_decomposed(t, platform, place_by_policy(platform, "round-robin", cores), options);
  }
};

} // namespace

TEST(VpMapping, BlockGivesTheFirstCoresOneMore)
{
  // Charm++'s block map of 7 VPs on 3 cores: 7 = 3 * 2 + 1, so core 0 takes 3
  EXPECT_EQ(block_mapping(7, 3), (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(round_robin_mapping(5, 2), (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_THROW(block_mapping(2, 3), Error);
}

TEST(VpMapping, FileErrorsNameTheLine)
{
  test::TempDir dir;
  std::string ok = dir.file("ok.txt", "# core of each VP\n1\n0\n\n1\n");
  EXPECT_EQ(read_mapping_file(ok, 3, 2), (std::vector<int>{1, 0, 1}));
  std::string bad = dir.file("bad.txt", "0\n2\n");
  try {
    read_mapping_file(bad, 2, 2);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt:2: '2' is not a core"), std::string::npos) << e.what();
  }
  std::string short_file = dir.file("short.txt", "0\n");
  EXPECT_THROW(read_mapping_file(short_file, 2, 2), Error);
}

TEST(Replay, MigrateAndIterationMarkersAreNoOpsInAPlainReplay)
{
  VpFixture f;
  std::vector<std::string> with = {
      "0 init\n0 iteration_in\n0 compute 1e9\n0 send 1 0 1000\n0 iteration_out\n0 migrate 4096\n0 finalize\n",
      "1 init\n1 iteration_in\n1 recv 0 0 1000\n1 compute 5e8\n1 iteration_out\n1 migrate 4096\n1 finalize\n"};
  std::vector<std::string> without = {"0 init\n0 compute 1e9\n0 send 1 0 1000\n0 finalize\n",
                                      "1 init\n1 recv 0 0 1000\n1 compute 5e8\n1 finalize\n"};
  Placement two = place_by_policy(f.platform, "round-robin", 2);
  ReplayReport a = replay_trace(f.trace(with), f.platform, two, ReplayOptions{});
  ReplayReport b = replay_trace(f.trace(without), f.platform, two, ReplayOptions{});
  EXPECT_EQ(a.makespan_s, b.makespan_s);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(a.ranks[r].finish_s, b.ranks[r].finish_s);
    EXPECT_EQ(a.ranks[r].compute_s, b.ranks[r].compute_s);
  }
  EXPECT_GT(a.makespan_s, 1.0); // the compute and the message happened
}

TEST(VpReplay, OneVpPerCoreReproducesThePlainReplay)
{
  std::string index = std::string(PERFCAST_SOURCE_DIR) + "/examples/traces/stencil16/trace.txt";
  Platform platform = load_platform(std::string(PERFCAST_SOURCE_DIR) + "/examples/platforms/hetero8.json");
  TraceIndex trace = read_trace_index(index);
  Placement placement = place_by_policy(platform, "block", trace.ranks());
  ReplayReport plain = replay_trace(trace, platform, placement, ReplayOptions{});
  VpOptions options;
  options.core_of_vp = block_mapping(trace.ranks(), trace.ranks());
  VpReport vp = replay_over_decomposed(trace, platform, placement, options);
  EXPECT_EQ(vp.replay.makespan_s, plain.makespan_s);
  ASSERT_EQ(vp.replay.ranks.size(), plain.ranks.size());
  for (std::size_t r = 0; r < plain.ranks.size(); ++r) {
    EXPECT_EQ(vp.replay.ranks[r].finish_s, plain.ranks[r].finish_s) << "rank " << r;
    EXPECT_EQ(vp.replay.ranks[r].wait_s, plain.ranks[r].wait_s) << "rank " << r;
  }
  EXPECT_TRUE(vp.steps.empty());
}

TEST(VpReplay, TwoVpsPerCoreRunOneAtATimeUntilTheyBlock)
{
  // Block mapping: VP0, VP1 on core 0 (n0); VP2, VP3 on core 1 (n1), 1 Gflop/s.
  // core 1: VP2 computes 0 -> 0.5, sends 1000 bytes eagerly (goes on at once),
  //         computes 0.5 -> 3.5; then VP3 gets the core: 3.5 -> 4.5.
  // core 0: VP0 computes 0 -> 1, blocks in recv (the transfer starts now and
  //         ends at 1 + m), leaving the core to VP1: 1 -> 3. VP0 is ready at
  //         1 + m but waits for VP1 (no preemption): it computes 3 -> 4.
  // Makespan 4.5; VP1 ends at 3, VP2 at 3.5.
  VpFixture f;
  auto r = f.replay({"0 init\n0 compute 1e9\n0 recv 2 0 1000\n0 compute 1e9\n0 finalize\n",
                     "1 init\n1 compute 2e9\n1 finalize\n",
                     "2 init\n2 compute 5e8\n2 send 0 0 1000\n2 compute 3e9\n2 finalize\n",
                     "3 init\n3 compute 1e9\n3 finalize\n"},
                    2, block_mapping(4, 2));
  EXPECT_DOUBLE_EQ(r.replay.makespan_s, 4.5);
  EXPECT_DOUBLE_EQ(r.replay.ranks[0].finish_s, 4.0);
  EXPECT_DOUBLE_EQ(r.replay.ranks[1].finish_s, 3.0);
  EXPECT_DOUBLE_EQ(r.replay.ranks[2].finish_s, 3.5);
  EXPECT_DOUBLE_EQ(r.replay.ranks[3].finish_s, 4.5);
  EXPECT_DOUBLE_EQ(r.replay.ranks[0].compute_s, 2.0);
}

namespace {

// Round-robin: VP0, VP2 on core 0 (n0); VP1, VP3 on core 1 (n1). Every VP
// computes, reaches one migration point (1.25 MB of memory), computes again.
std::vector<std::string> two_iterations()
{
  std::vector<std::string> flops = {"1e9", "3e8", "6e8", "2e8"};
  std::vector<std::string> ranks;
  for (int v = 0; v < 4; ++v) {
    std::string r = std::to_string(v);
    ranks.push_back(r + " init\n" + r + " compute " + flops[v] + "\n" + r + " migrate 1250000\n" + r + " compute " +
                    flops[v] + "\n" + r + " finalize\n");
  }
  return ranks;
}

} // namespace

TEST(VpReplay, OneMigrationCostsLatencyPlusBytesOverBandwidth)
{
  // Iteration 1: core 0 runs VP0 0 -> 1 (then it waits at the balancing
  // step, off the core) and VP2 1 -> 1.6; core 1 runs VP1 0 -> 0.3, VP3
  // 0.3 -> 0.5. All meet at 1.6 with loads 1, 0.3, 0.6, 0.2 s.
  // Greedy, heaviest first onto the lightest core (ties: lower core):
  // VP0 -> 0; VP2 -> 1 (0 < 1); VP1 -> 1 (0.6 < 1); VP3 -> 1 (0.9 < 1).
  // Only VP2 moves, n0 -> n1: two 50 us links at 125 MB/s, contention-free
  // (loggp): 100e-6 + 1.25e6 / 1.25e8 = 0.0101 s, so the step ends at 1.6101.
  // Iteration 2: core 0 runs VP0 alone until 2.6101; core 1 runs VP1, VP2,
  // VP3 in VP order: 0.3 + 0.6 + 0.2 = 1.1 s, until 2.7101 = the makespan.
  VpFixture f;
  auto r = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 1, "greedy", "loggp");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(r.steps[0].start_s, 1.6);
  EXPECT_DOUBLE_EQ(r.steps[0].end_s - r.steps[0].start_s, 100e-6 + 1.25e6 / 1.25e8);
  EXPECT_EQ(r.steps[0].migrations, 1u);
  EXPECT_EQ(r.steps[0].bytes, 1250000u);
  EXPECT_EQ(r.final_core, (std::vector<int>{0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(r.replay.makespan_s, 2.7101);
  EXPECT_DOUBLE_EQ(r.replay.ranks[0].finish_s, 2.6101);
  // per-core loads of iteration 1 (before) and 2 (after the step)
  ASSERT_EQ(r.iteration_loads.size(), 2u);
  EXPECT_DOUBLE_EQ(r.iteration_loads[0][0], 1.6);
  EXPECT_DOUBLE_EQ(r.iteration_loads[0][1], 0.5);
  EXPECT_DOUBLE_EQ(r.iteration_loads[1][0], 1.0);
  EXPECT_DOUBLE_EQ(r.iteration_loads[1][1], 1.1);
}

TEST(VpReplay, AMigrationCarriesTheVpStackBesidesItsHeap)
{
  // As OneMigrationCostsLatencyPlusBytesOverBandwidth, but every VP also has
  // a 250 kB thread stack (AMPI packs it with the heap): VP2 sends
  // 1.25e6 + 2.5e5 = 1.5e6 bytes, 100e-6 + 1.5e6 / 1.25e8 = 0.0121 s, so the
  // step ends at 1.6121 and core 1's 1.1 s of iteration 2 end at 2.7121.
  VpFixture f;
  f.stack_bytes = 250000;
  auto r = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 1, "greedy", "loggp");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(r.steps[0].end_s - r.steps[0].start_s, 100e-6 + 1.5e6 / 1.25e8);
  EXPECT_EQ(r.steps[0].bytes, 1500000u);
  EXPECT_DOUBLE_EQ(r.replay.makespan_s, 2.7121);
  // without balancing nothing moves, so the stack costs nothing
  auto plain = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 0, "greedy", "loggp");
  EXPECT_EQ(plain.migrations(), 0u);
}

TEST(VpReplay, WithoutBalancingAVpKeepsItsCoreAcrossMigrationPoints)
{
  // No period: migration points do not synchronise. Core 0: VP0 computes
  // 0 -> 2 without giving up its core, then VP2 2 -> 3.2; core 1: VP1 0 -> 0.6,
  // VP3 0.6 -> 1. Makespan 3.2.
  VpFixture f;
  auto r = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 0, "none", "loggp");
  EXPECT_TRUE(r.steps.empty());
  EXPECT_DOUBLE_EQ(r.replay.makespan_s, 3.2);
  EXPECT_DOUBLE_EQ(r.replay.ranks[0].finish_s, 2.0);
}

TEST(VpReplay, APeriodOnATraceWithoutMigrationPointsIsAnErrorNamingTheFile)
{
  VpFixture f;
  try {
    f.replay({"0 init\n0 compute 1e9\n0 finalize\n", "1 init\n1 compute 1e9\n1 finalize\n"}, 1, {0, 0}, 2,
             "greedy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank0.txt: no 'migrate' action"), std::string::npos) << e.what();
  }
}

TEST(VpReplay, EachMessageCostsItsSenderAndItsReceiverMessageCpu)
{
  // Two VPs on two cores (n0, n1), a ping-pong of 1000 bytes, S = 1 ms of
  // message CPU; a message takes m = 2 x 50 us + (1000 + 16) / 1.25e8 s (loggp,
  // with SMPI's 16-byte envelope).
  // VP0 computes S (0 -> S) and sends; VP1's receive returns at S + m and
  // costs S after it (2S + m), its reply costs S before it (3S + m) and
  // arrives at 3S + 2m; VP0's receive returns then and costs S: it ends at
  // 4S + 2m, having computed 2S. Without message CPU the round trip is 2m.
  VpFixture f;
  std::vector<std::string> ping = {"0 init\n0 send 1 0 1000\n0 recv 1 0 1000\n0 finalize\n",
                                   "1 init\n1 recv 0 0 1000\n1 send 0 0 1000\n1 finalize\n"};
  double m = 100e-6 + 1016 / 1.25e8, S = 1e-3;
  auto plain = f.replay(ping, 2, {0, 1}, 0, "none", "loggp");
  EXPECT_NEAR(plain.replay.makespan_s, 2 * m, 1e-12);
  f.message_cpu_s = S;
  auto r = f.replay(ping, 2, {0, 1}, 0, "none", "loggp");
  EXPECT_NEAR(r.replay.makespan_s, 4 * S + 2 * m, 1e-12);
  EXPECT_NEAR(r.replay.ranks[0].compute_s, 2 * S, 1e-12);
  EXPECT_NEAR(r.replay.ranks[1].compute_s, 2 * S, 1e-12);
}

TEST(VpReplay, NonBlockingReceivesPayTheirMessageCpuAfterTheWait)
{
  // VP1 sends two messages to VP0, each after S of message CPU: they leave at
  // S and 2S and arrive at S + m and 2S + m (loggp: no contention). VP0 posts
  // two irecvs and waits for both: the wait returns at 2S + m, then the two
  // receives cost 2S: VP0 ends at 4S + m. Had each receive been charged when
  // posted, VP0 would have paid before the messages came and ended at 2S + m.
  VpFixture f;
  f.message_cpu_s = 1e-3;
  double m = 100e-6 + 1016 / 1.25e8, S = 1e-3;
  auto r = f.replay({"0 init\n0 irecv 1 0 1000\n0 irecv 1 1 1000\n0 waitall\n0 finalize\n",
                     "1 init\n1 send 0 0 1000\n1 send 0 1 1000\n1 finalize\n"},
                    2, {0, 1}, 0, "none", "loggp");
  EXPECT_NEAR(r.replay.ranks[0].finish_s, 4 * S + m, 1e-12);
  EXPECT_NEAR(r.replay.ranks[1].finish_s, 2 * S, 1e-12);
}

TEST(VpReplay, AStepCostsStepTimePlusMigrationCpuOfTheBusiestCore)
{
  // As OneMigrationCostsLatencyPlusBytesOverBandwidth: greedy moves VP2 from
  // core 0 to core 1, so each core packs or unpacks one VP. With a step cost
  // of 2 ms and 10 ms per migration the step lasts 0.002 + 0.010 before the
  // transfer's 0.0101 s: it ends at 1.6221 and the makespan is 2.7221.
  VpFixture f;
  f.step_s = 0.002;
  f.migration_cpu_s = 0.010;
  auto r = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 1, "greedy", "loggp");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_NEAR(r.steps[0].end_s - r.steps[0].start_s, 0.002 + 0.010 + 0.0101, 1e-12);
  EXPECT_NEAR(r.replay.makespan_s, 2.7221, 1e-12);
  // rotate moves all four VPs: each core sends two and receives two, 4 x 10 ms
  // one after the other, then the four transfers run at once (0.0101 s each)
  auto all = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 1, "rotate", "loggp");
  ASSERT_EQ(all.steps.size(), 1u);
  EXPECT_EQ(all.steps[0].migrations, 4u);
  EXPECT_NEAR(all.steps[0].end_s - all.steps[0].start_s, 0.002 + 4 * 0.010 + 0.0101, 1e-12);
  // a step that moves nothing still costs its step time, and no migration CPU
  auto none = f.replay(two_iterations(), 2, round_robin_mapping(4, 2), 1, "none", "loggp");
  ASSERT_EQ(none.steps.size(), 1u);
  EXPECT_NEAR(none.steps[0].end_s - none.steps[0].start_s, 0.002, 1e-12);
}

TEST(VpReplay, MessagesBetweenVpsOfOneCoreCostLocalMessageCpu)
{
  // The ping-pong of EachMessageCostsItsSenderAndItsReceiverMessageCpu with
  // both VPs on core 0 (n0): the messages cross n0's loopback (time l each)
  // and cost L = 2 ms of CPU on each side, S = 1 ms (between cores) not at
  // all. VP0: L (0 -> L), send, recv blocks; VP1 takes the core, its receive
  // returns at L + l, then L + L (2L + l, 3L + l: reply sent); VP0's receive
  // returns at 3L + 2l and costs L: the makespan is 4L + 2l = plain + 4L.
  VpFixture f;
  std::vector<std::string> ping = {"0 init\n0 send 1 0 1000\n0 recv 1 0 1000\n0 finalize\n",
                                   "1 init\n1 recv 0 0 1000\n1 send 0 0 1000\n1 finalize\n"};
  auto plain = f.replay(ping, 1, {0, 0}, 0, "none", "loggp");
  f.message_cpu_s = 1e-3;
  f.local_message_cpu_s = 2e-3;
  auto r = f.replay(ping, 1, {0, 0}, 0, "none", "loggp");
  EXPECT_NEAR(r.replay.makespan_s, plain.replay.makespan_s + 4 * 2e-3, 1e-12);
}
