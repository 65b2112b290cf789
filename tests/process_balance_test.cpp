// The process simulator's incremental loads and its migrating policy
// (src/sched/ProcessSim, Policies).
#include "core/Distribution.hpp"
#include "sched/ProcessSim.hpp"

#include <gtest/gtest.h>

using namespace perfcast;
using namespace perfcast::sched;

namespace {

ComputerSpec computer(int cores, double speed, double memory_mb)
{
  ComputerSpec c;
  c.model.name = "c";
  c.model.instructions_per_s = speed;
  c.model.main_memory_mb = memory_mb;
  c.model.disk_read_bytes_per_s = 100e6;
  c.model.disk_write_bytes_per_s = 50e6;
  c.model.message_latency_s = 0.5;
  c.model.slowdown = {0.0005, 0, 1, 0};
  c.cores = cores;
  c.network_bytes_per_s = 100e6;
  return c;
}

} // namespace

TEST(ProcessBalance, IncrementalLoadsPlaceAsTheExhaustiveOnes)
{
  // the loads kept up to date event by event must lead every policy to the
  // same computers as recomputing them from every job at each arrival
  std::vector<ComputerSpec> cs{computer(1, 1e9, 512), computer(2, 2e9, 1024), computer(4, 0.5e9, 2048),
                               computer(1, 3e9, 256), computer(2, 1e9, 4096)};
  Distribution gap = Distribution::parse("exp:mean=0.3"), work = Distribution::parse("hyperexp:p=0.2,mean1=5e9,mean2=5e8"),
               memory = Distribution::parse("uniform:min=0,max=300");
  Rng draw(11);
  std::vector<ProcessSpec> ps;
  double t = 0;
  for (int i = 0; i < 400; ++i) {
    t += gap.sample(draw);
    ps.push_back({i, t, memory.sample(draw), {{StageKind::Cpu, work.sample(draw)}, {StageKind::DiskWrite, 1e6}}});
  }
  for (const char* spec : {"random", "round-robin", "least-work", "lowest:probes=2", "threshold:probes=3,limit=1",
                           "most-free-memory", "balance:period=1,probes=2"}) {
    ProcessSimOptions fast, reference;
    reference.exhaustive_loads = true;
    auto p1 = make_policy(spec), p2 = make_policy(spec);
    Rng r1(5), r2(5);
    auto a = simulate_processes(cs, ps, *p1, r1, fast);
    auto b = simulate_processes(cs, ps, *p2, r2, reference);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].computer, b[i].computer) << spec << " process " << a[i].id;
      ASSERT_NEAR(a[i].finish_s, b[i].finish_s, 1e-9 * b[i].finish_s) << spec << " process " << a[i].id;
    }
  }
}

TEST(ProcessBalance, MigrationCostsMemoryOverBandwidthPlusLatency)
{
  // two one-core computers of 1e9 instructions/s. balance places p0 (1e10
  // instructions, 100 MB) on c0, p1 (1e9) on c1, p2 (1e10, 100 MB) on c0 (a
  // tie: the lower index). p1 ends at 1. At the round at 2, p0 and p2 have
  // each had half of c0 for 2 s: 9e9 left, 18 s more if they stay. Moving p0
  // to the idle c1 costs 100 MB / 100 MB/s + 0.5 s = 1.5 s, then 9 s: it
  // moves (the lower of two equal gains), resumes at 3.5 and ends at 12.5;
  // p2 alone on c0 from 2 ends at 11. (alpha is 0.0005 * 100 = 0.05 with one
  // of them on a computer, 0.1 with both: the slowdown is zeroed here.)
  std::vector<ComputerSpec> cs{computer(1, 1e9, 1024), computer(1, 1e9, 1024)};
  for (auto& c : cs)
    c.model.slowdown = {};
  std::vector<ProcessSpec> ps{{0, 0, 100, {{StageKind::Cpu, 1e10}}},
                              {1, 0, 0, {{StageKind::Cpu, 1e9}}},
                              {2, 0, 100, {{StageKind::Cpu, 1e10}}}};
  auto policy = make_policy("balance:period=2,probes=2");
  Rng rng(1);
  auto r = simulate_processes(cs, ps, *policy, rng);
  EXPECT_NEAR(r[0].finish_s, 2 + (100e6 / 100e6 + 0.5) + 9, 1e-9);
  EXPECT_EQ(r[0].computer, 1);
  EXPECT_EQ(r[0].migrations, 1);
  EXPECT_NEAR(r[2].finish_s, 11, 1e-9);
  EXPECT_EQ(r[2].migrations, 0);
  EXPECT_NEAR(r[1].finish_s, 1, 1e-12);
  // the migration is waiting, not service: p0's service stays 10 s
  EXPECT_NEAR(r[0].service_s, 10, 1e-9);
  // a route given by the caller replaces the computers' own figures
  ProcessSimOptions slow;
  slow.route = [](int, int) { return RouteCost{50e6, 0.25}; }; // 2 s + 0.25 s
  auto policy2 = make_policy("balance:period=2,probes=2");
  r = simulate_processes(cs, ps, *policy2, rng, slow);
  EXPECT_NEAR(r[0].finish_s, 2 + 2.25 + 9, 1e-9);
}

TEST(ProcessBalance, NoMigrationWhenTheCostExceedsTheGain)
{
  // the same, but 2 GB to move at 100 MB/s: 20.5 s against the 9 s gained
  std::vector<ComputerSpec> cs{computer(1, 1e9, 4096), computer(1, 1e9, 4096)};
  for (auto& c : cs)
    c.model.slowdown = {};
  std::vector<ProcessSpec> ps{{0, 0, 2000, {{StageKind::Cpu, 1e10}}},
                              {1, 0, 0, {{StageKind::Cpu, 1e9}}},
                              {2, 0, 2000, {{StageKind::Cpu, 1e10}}}};
  auto policy = make_policy("balance:period=2,probes=2");
  Rng rng(1);
  auto r = simulate_processes(cs, ps, *policy, rng);
  // both share c0 to the end: 2e10 instructions at 1e9/s
  EXPECT_NEAR(r[0].finish_s, 20, 1e-9);
  EXPECT_NEAR(r[2].finish_s, 20, 1e-9);
  EXPECT_EQ(r[0].migrations + r[2].migrations, 0);
}

TEST(ProcessBalance, TinyPeriodDoesNotRoundForever)
{
  // what it guards: rounds every nanosecond over 1000 s of simulated time
  // would be 1e12 events; rounds between two events change nothing and are
  // skipped. 20 processes of 1e11 instructions on two computers.
  std::vector<ComputerSpec> cs{computer(1, 1e9, 4096), computer(1, 1e9, 4096)};
  std::vector<ProcessSpec> ps;
  for (int i = 0; i < 20; ++i)
    ps.push_back({i, i * 10.0, 10, {{StageKind::Cpu, 1e11}}});
  auto policy = make_policy("balance:period=1e-9,probes=1");
  Rng rng(3);
  auto r = simulate_processes(cs, ps, *policy, rng);
  // all the work (2e12 instructions) on 2e9 instructions/s takes at least 1000 s
  double end = 0;
  for (const auto& x : r)
    end = std::max(end, x.finish_s);
  EXPECT_GE(end, 1000.0);
  EXPECT_LT(end, 1100.0);
}
