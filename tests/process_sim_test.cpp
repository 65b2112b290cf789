// The process scheduling simulator (src/sched/ProcessSim) against closed forms.
#include "SchedTestUtil.hpp"
#include "core/Error.hpp"
#include "sched/ProcessSim.hpp"

#include <gtest/gtest.h>

using namespace perfcast;
using namespace perfcast::sched;

namespace {

ProcessSpec process(long long id, double arrival, std::vector<Stage> stages, double memory_mb = 0)
{
  return {id, arrival, memory_mb, std::move(stages)};
}

} // namespace

TEST(ProcessSim, ProcessorSharingOfEqualJobs)
{
  // 6 jobs of 1e9 instructions at t = 0 on 4 cores of 1e9 instr/s: each gets
  // 4/6 of a core, so all end together at 1e9 / (1e9 * 4/6) = 1.5 s
  std::vector<ProcessSpec> ps;
  for (int i = 0; i < 6; ++i)
    ps.push_back(process(i, 0, {{StageKind::Cpu, 1e9}}));
  auto policy = make_policy("round-robin");
  Rng rng(1);
  auto r = simulate_processes({test::sched_computer(4)}, ps, *policy, rng);
  for (const auto& x : r) {
    EXPECT_NEAR(x.finish_s, 1.5, 1e-12);
    EXPECT_NEAR(x.service_s, 1.0, 1e-12);
    EXPECT_NEAR(x.slowdown(), 1.5, 1e-12);
  }
  // with 3 jobs on 4 cores nobody shares: 1 s each
  ps.resize(3);
  r = simulate_processes({test::sched_computer(4)}, ps, *policy, rng);
  EXPECT_NEAR(r[2].finish_s, 1.0, 1e-12);
}

TEST(ProcessSim, MM1MeanResponseTime)
{
  // Poisson arrivals (lambda = 0.5/s), exponential work (mean 1 s on the one
  // core): processor sharing gives the M/M/1 mean response 1 / (mu - lambda) = 2 s
  Distribution gaps = Distribution::parse("exp:mean=2"), work = Distribution::parse("exp:mean=1e9");
  Rng draw(2026);
  std::vector<ProcessSpec> ps;
  double t = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    t += gaps.sample(draw);
    ps.push_back(process(i, t, {{StageKind::Cpu, work.sample(draw)}}));
  }
  auto policy = make_policy("random");
  Rng rng(3);
  auto r = simulate_processes({test::sched_computer(1)}, ps, *policy, rng);
  double mean = 0;
  for (const auto& x : r)
    mean += x.response_s() / n;
  EXPECT_NEAR(mean, 2.0, 0.04) << "mean response " << mean;
}

TEST(ProcessSim, MM2MeanResponseTimeAtEightyPercent)
{
  // two cores, Poisson arrivals (lambda = 1.6/s), exponential work (mean 1 s on
  // one core, a process never uses more than one core): with n present the
  // cores serve at min(n, 2) mu, the birth-death chain of M/M/2, so the mean
  // response is Erlang C's: rho = 0.8, C = 2 rho^2 / (1 + rho) = 0.7111,
  // R = 1/mu + C / (2 mu - lambda) = 1 + 0.7111 / 0.4 = 2.7778 s. It is the
  // closed form bench/sched_validation.sh's exponential case is judged by:
  // at rho = 0.8, 1% more demand gives about 5% more response time
  Distribution gaps = Distribution::parse("exp:mean=0.625"), work = Distribution::parse("exp:mean=1e9");
  Rng draw(2027);
  std::vector<ProcessSpec> ps;
  double t = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    t += gaps.sample(draw);
    ps.push_back(process(i, t, {{StageKind::Cpu, work.sample(draw)}}));
  }
  auto policy = make_policy("random");
  Rng rng(3);
  auto r = simulate_processes({test::sched_computer(2)}, ps, *policy, rng);
  double mean = 0;
  for (const auto& x : r)
    mean += x.response_s() / n;
  EXPECT_NEAR(mean, 1 + (2 * 0.64 / 1.8) / 0.4, 0.02 * 2.7778) << "mean response " << mean;
}

TEST(ProcessSim, DiskRequestsAreServedFirstComeFirstServed)
{
  // three writes of 50 MB at t = 0 on a 50 MB/s disk end at 1, 2 and 3 s in id
  // order; the third waited 2 s (eq. 5's wtdw)
  std::vector<ProcessSpec> ps;
  for (int i = 0; i < 3; ++i)
    ps.push_back(process(i, 0, {{StageKind::DiskWrite, 50e6}}));
  auto policy = make_policy("round-robin");
  Rng rng(1);
  auto r = simulate_processes({test::sched_computer(8)}, ps, *policy, rng);
  EXPECT_NEAR(r[0].finish_s, 1, 1e-12);
  EXPECT_NEAR(r[1].finish_s, 2, 1e-12);
  EXPECT_NEAR(r[2].finish_s, 3, 1e-12);
  EXPECT_NEAR(r[2].waiting_s(), 2, 1e-12);
}

TEST(ProcessSim, DiskRequestsOfSeveralProcessesAreServedInTurn)
{
  // two writes of 100 MB in requests of 50 MB on a 50 MB/s disk at t = 0, and
  // a third process's write of 50 MB in one request at t = 0.5: requests of
  // 1 s, each process's next request queued behind those waiting when its
  // last one ends: 0a [0, 1], 1a [1, 2], 2 [2, 3], 0b [3, 4], 1b [4, 5]. With
  // one request per write (FIFO per stage) they would end at 2, 4 and 5 s
  std::vector<ProcessSpec> ps;
  for (int i = 0; i < 2; ++i) {
    ps.push_back(process(i, 0, {{StageKind::DiskWrite, 100e6}}));
    ps.back().stages[0].request = 50e6;
  }
  ps.push_back(process(2, 0.5, {{StageKind::DiskWrite, 50e6}}));
  auto policy = make_policy("round-robin");
  Rng rng(1);
  auto r = simulate_processes({test::sched_computer(8)}, ps, *policy, rng);
  EXPECT_NEAR(r[0].finish_s, 4, 1e-12);
  EXPECT_NEAR(r[1].finish_s, 5, 1e-12);
  EXPECT_NEAR(r[2].finish_s, 3, 1e-12);
  // alone, a write in requests takes its bytes over the bandwidth, as in one request
  std::vector<ProcessSpec> one{process(0, 0, {{StageKind::DiskWrite, 100e6}})};
  one[0].stages[0].request = 30e6; // four requests (four equal parts): 100 MB / 50 MB/s = 2 s
  Rng rng2(1);
  EXPECT_NEAR(simulate_processes({test::sched_computer(8)}, one, *policy, rng2)[0].finish_s, 2, 1e-12);
}

TEST(ProcessSim, DiskCpuCostTakesCoresOnlyFromProcessesThatWantThemAll)
{
  // 2 cores of 1e9 instructions/s, a disk writing 50 MB/s and reading 100
  // MB/s that costs the machine 10 ms of a core per MB: a write in service
  // takes 1e-8 s/B x 50e6 B/s = 0.5 core, a read 1 core.
  // Two processes of 10 s of CPU beside a 50 MB write (1 s) arriving at 2 s:
  // during [2, 3] they share 1.5 cores, 0.75 each, so 0.25 s of work is
  // left over: both end at 10.25 s. One process alone beside the write keeps
  // its core (1 <= 1.5): 10 s. Beside a 100 MB read (1 s, 1 core taken):
  // 0.5 each for 1 s, so 10.5 s
  ComputerSpec c = test::sched_computer(2);
  c.model.disk_cpu_s_per_byte = 1e-8;
  auto run = [&](int cpu_processes, StageKind kind, double bytes) {
    std::vector<ProcessSpec> ps;
    for (int i = 0; i < cpu_processes; ++i)
      ps.push_back(process(i, 0, {{StageKind::Cpu, 10e9}}));
    ps.push_back(process(cpu_processes, 2, {{kind, bytes}}));
    auto policy = make_policy("round-robin");
    Rng rng(1);
    return simulate_processes({c}, ps, *policy, rng);
  };
  auto two = run(2, StageKind::DiskWrite, 50e6);
  EXPECT_NEAR(two[0].finish_s, 10.25, 1e-9);
  EXPECT_NEAR(two[1].finish_s, 10.25, 1e-9);
  EXPECT_NEAR(two[2].finish_s, 3, 1e-12); // the disk's own time is unchanged
  EXPECT_NEAR(run(1, StageKind::DiskWrite, 50e6)[0].finish_s, 10, 1e-9);
  EXPECT_NEAR(run(2, StageKind::DiskRead, 100e6)[0].finish_s, 10.5, 1e-9);
  // without the figure the disk costs the processes nothing
  c.model.disk_cpu_s_per_byte = 0;
  EXPECT_NEAR(run(2, StageKind::DiskWrite, 50e6)[0].finish_s, 10, 1e-9);
}

TEST(ProcessSim, DiskWritesAtItsBusyRateWhileTheProcessesWantEveryCore)
{
  // 2 cores, a disk writing 50 MB/s, or 25 MB/s while the processes want both
  // cores (the probe's disk_write_busy); each request's rate is set when it
  // enters service.
  ComputerSpec c = test::sched_computer(2);
  c.model.disk_write_busy_bytes_per_s = 25e6;
  auto run = [&](int cpu_processes, double cpu_s, double request) {
    std::vector<ProcessSpec> ps;
    for (int i = 0; i < cpu_processes; ++i)
      ps.push_back(process(i, 0, {{StageKind::Cpu, cpu_s * 1e9}}));
    ps.push_back(process(cpu_processes, 2, {{StageKind::DiskWrite, 50e6}}));
    ps.back().stages[0].request = request;
    auto policy = make_policy("round-robin");
    Rng rng(1);
    return simulate_processes({c}, ps, *policy, rng);
  };
  // alone, or beside one process (a core to spare): 50 MB / 50 MB/s = 1 s
  EXPECT_NEAR(run(0, 10, 0)[0].finish_s, 3, 1e-12);
  EXPECT_NEAR(run(1, 10, 0)[1].finish_s, 3, 1e-12);
  // beside two processes that want both cores: 50 MB / 25 MB/s = 2 s
  EXPECT_NEAR(run(2, 10, 0)[2].finish_s, 4, 1e-12);
  // ten requests of 5 MB (0.2 s busy, 0.1 s not) beside two processes that end
  // at 2.9 s: the requests entering service at 2.0, 2.2, ..., 2.8 are served
  // busy (the last of them ends at 3.0), the other five at 0.1 s each: 3.5 s
  EXPECT_NEAR(run(2, 2.9, 5e6)[2].finish_s, 3.5, 1e-9);
  // with the disk's CPU cost too (10 ms of a core per MB): at the busy rate a
  // write takes 1e-8 x 25e6 = 0.25 core, so for 2 s the two processes share
  // 1.75 cores, 0.875 each, and end 0.25 s late
  c.model.disk_cpu_s_per_byte = 1e-8;
  auto with_cpu = run(2, 10, 0);
  EXPECT_NEAR(with_cpu[0].finish_s, 10.25, 1e-9);
  EXPECT_NEAR(with_cpu[2].finish_s, 4, 1e-12);
  // without the busy figure the disk keeps its rate
  c.model.disk_write_busy_bytes_per_s = 0;
  c.model.disk_cpu_s_per_byte = 0;
  EXPECT_NEAR(run(2, 10, 0)[2].finish_s, 3, 1e-12);
}

TEST(ProcessSim, StagesRunInOrderWithMessageAndMemoryCosts)
{
  // a message of 1.25 MB: 2 o + l = 50 us plus 1.25e6 / 125e6 = 10 ms (eqs. 6, 7);
  // then 1e9 instructions with 500 MB resident, alpha = 0.001 * 500 = 0.5: 1.5 s
  // (eq. 3); then a 100 MB read at 100 MB/s: 1 s; then 0.25 s of sleep
  ComputerSpec c = test::sched_computer(1);
  c.model.slowdown = {0.001, 0, 1, 0};
  std::vector<ProcessSpec> ps{process(7, 10,
                                      {{StageKind::Message, 1.25e6},
                                       {StageKind::Cpu, 1e9},
                                       {StageKind::DiskRead, 100e6},
                                       {StageKind::Sleep, 0.25}},
                                      500)};
  auto policy = make_policy("least-work");
  Rng rng(1);
  auto r = simulate_processes({c}, ps, *policy, rng);
  EXPECT_NEAR(r[0].finish_s, 10 + 50e-6 + 0.01 + 1.5 + 1 + 0.25, 1e-9);
  EXPECT_NEAR(r[0].service_s, 50e-6 + 0.01 + 1 + 1 + 0.25, 1e-9); // without the memory delay
}

TEST(ProcessSim, PoliciesPlaceAsTheyPromise)
{
  std::vector<ComputerSpec> cs{test::sched_computer(1), test::sched_computer(1), test::sched_computer(2)};
  cs[1].model.main_memory_mb = 4096;
  std::vector<ProcessSpec> ps;
  for (int i = 0; i < 6; ++i)
    ps.push_back(process(i, 0, {{StageKind::Cpu, 1e9}}, 100));
  Rng rng(5);
  auto rr = make_policy("round-robin");
  auto r = simulate_processes(cs, ps, *rr, rng);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(r[static_cast<std::size_t>(i)].computer, i % 3);
  auto mem = make_policy("most-free-memory");
  r = simulate_processes(cs, ps, *mem, rng);
  EXPECT_EQ(r[0].computer, 1); // 4096 MB free against 1024
  // probing every computer, lowest is the global least loaded per core:
  // 0 -> c0 (tie, lowest index), 1 -> c1, 2 -> c2, 3 -> c2 (1/2 per core), 4 -> c0, 5 -> c1
  auto low = make_policy("lowest:probes=3");
  r = simulate_processes(cs, ps, *low, rng);
  std::vector<int> want{0, 1, 2, 2, 0, 1};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(r[static_cast<std::size_t>(i)].computer, want[static_cast<std::size_t>(i)]) << i;
  EXPECT_THROW(make_policy("fastest"), Error);
  EXPECT_THROW(make_policy("lowest:probes=-1"), Error);
  EXPECT_THROW(make_policy("threshold:depth=2"), Error);
}

TEST(ProcessSim, LateArrivalsDoNotSpinOnRounding)
{
  // what broke while writing it: at t = 1e7 s a job's last few instructions
  // ended closer than the clock's resolution, so the same instant was
  // scheduled forever. 3 jobs of 1e9 on 2 cores share from 1e7 to 1e7 + 1.5 s.
  std::vector<ProcessSpec> ps;
  for (int i = 0; i < 3; ++i)
    ps.push_back(process(i, 1e7 + 1e-7 * i, {{StageKind::Cpu, 1e9}}));
  auto policy = make_policy("round-robin");
  Rng rng(1);
  auto r = simulate_processes({test::sched_computer(2)}, ps, *policy, rng);
  for (const auto& x : r)
    EXPECT_NEAR(x.finish_s, 1e7 + 1.5, 1e-6);
}
