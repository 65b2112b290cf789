// Rigid parallel jobs under FCFS, EASY and conservative backfilling
// (src/sched/BatchSim), on schedules derived by hand.
#include "SchedTestUtil.hpp"
#include "core/Error.hpp"
#include "sched/BatchSim.hpp"

#include <gtest/gtest.h>

using namespace perfcast;
using namespace perfcast::sched;

namespace {

RigidJob job(long long id, double submit, int procs, double run, double requested)
{
  RigidJob j;
  j.id = id;
  j.submit_s = submit;
  j.procs = procs;
  j.run_s = run;
  j.estimate_s = requested;
  return j;
}

// Four cores (two computers of two). A holds 2 cores over [0, 10). B (3
// cores) cannot start at 1 and is the first queued job: its reservation is
// at 10, when A ends, leaving 1 core spare. C (4 cores) queues behind it.
// D (1 core, 20 s) arrives at 3; E (1 core, 5 s) at 4.
std::vector<RigidJob> mixed_log()
{
  return {job(1, 0, 2, 10, 10), job(2, 1, 3, 10, 10), job(3, 2, 4, 10, 10), job(4, 3, 1, 20, 20),
          job(5, 4, 1, 5, 5)};
}

void expect_schedule(const std::vector<JobResult>& r, const std::vector<std::pair<double, double>>& want)
{
  ASSERT_EQ(r.size(), want.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_DOUBLE_EQ(r[i].start_s, want[i].first) << "job " << r[i].id;
    EXPECT_DOUBLE_EQ(r[i].finish_s, want[i].second) << "job " << r[i].id;
  }
}

} // namespace

TEST(BatchSim, FcfsKeepsSubmitOrder)
{
  // B waits for A (10), C for B (20), D and E for C (30): E fits beside D at 30
  auto r = simulate_jobs({test::sched_computer(2), test::sched_computer(2)}, mixed_log(), BatchPolicy::Fcfs);
  expect_schedule(r, {{0, 10}, {10, 20}, {20, 30}, {30, 50}, {30, 35}});
}

TEST(BatchSim, EasyBackfillsAJobThatDelaysOnlyTheSecondInLine)
{
  // at 3, D would end at 23, after B's reservation at 10, but it needs only
  // the one core B leaves spare: EASY starts it. E (4 + 5 = 9 <= 10) starts
  // at 4 too. B starts at 10 beside D; C needs all 4 cores, so waits for D to
  // end at 23 instead of starting when B ends at 20: D delayed C by 3 s.
  auto r = simulate_jobs({test::sched_computer(2), test::sched_computer(2)}, mixed_log(), BatchPolicy::Easy);
  expect_schedule(r, {{0, 10}, {10, 20}, {23, 33}, {3, 23}, {4, 9}});
}

TEST(BatchSim, ConservativeBackfillsOnlyJobsThatDelayNobody)
{
  // the plan at 3: B [10, 20) on 3 cores, C [20, 30) on all 4. D (20 s from 3)
  // would still hold a core at 20, so it is planned at 30 and waits. E ends at
  // 9, before anything planned needs its core, so it starts at 4.
  auto r = simulate_jobs({test::sched_computer(2), test::sched_computer(2)}, mixed_log(), BatchPolicy::Conservative);
  expect_schedule(r, {{0, 10}, {10, 20}, {20, 30}, {30, 50}, {4, 9}});
}

TEST(BatchSim, JobsEndAtTheirRequestedTime)
{
  // a job that runs past its request is ended there (the wall-clock limit);
  // the next one starts at once
  auto r = simulate_jobs({test::sched_computer(1)}, {job(1, 0, 1, 15, 10), job(2, 0, 1, 3, 5)}, BatchPolicy::Fcfs);
  EXPECT_DOUBLE_EQ(r[0].finish_s, 10);
  EXPECT_TRUE(r[0].killed);
  EXPECT_DOUBLE_EQ(r[1].start_s, 10);
  EXPECT_DOUBLE_EQ(r[1].finish_s, 13);
  // bounded slowdown: 13 s of response over max(3, 10) s
  EXPECT_DOUBLE_EQ(r[1].slowdown(), 1.3);
}

TEST(BatchSim, SidecarResourcesGiveUniMppRunTimes)
{
  // two processes on one computer of two cores: 2e9 instructions at 1e9/s is
  // 2 s, slowed by alpha = 0.001 * (2 * 100 MB) = 0.2 to 2.4 s (eq. 3); their
  // 50 MB reads queue on the one 100 MB/s disk: 2 * 0.5 = 1 s (eq. 4); two
  // messages of 1.25 MB each cost 2 o + l = 50 us plus 10 ms (eqs. 6, 7)
  ComputerSpec c = test::sched_computer(2);
  c.model.slowdown = {0.001, 0, 1, 0};
  RigidJob j = job(1, 0, 2, 999, 1e6);
  j.resources = {true, 2e9, 100, 50e6, 0, 2, 1.25e6};
  auto r = simulate_jobs({c}, {j}, BatchPolicy::Fcfs);
  EXPECT_NEAR(r[0].run_s(), 2.4 + 1 + 2 * (50e-6 + 0.01), 1e-12);
}

TEST(BatchSim, TooWideAJobIsAnError)
{
  EXPECT_THROW(simulate_jobs({test::sched_computer(2)}, {job(1, 0, 3, 1, 1)}, BatchPolicy::Easy), Error);
  EXPECT_THROW(batch_policy("sjf"), Error);
  EXPECT_TRUE(is_batch_policy("easy"));
  EXPECT_FALSE(is_batch_policy("lowest"));
}
