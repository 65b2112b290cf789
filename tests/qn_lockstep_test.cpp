// The queueing model with a node's processes in lockstep (issue 13, session
// 13): one customer per node, whose CPU phase lasts as long as its slowest
// process and whose transfers are all of its processes'. Bulk-synchronous
// codes (CoMD, PENNANT) never overlap one rank's transfer with another's
// computation, which separate customers do.
#include "core/Error.hpp"
#include "fit/Curve.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "QnTestUtil.hpp"
#include "TestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// 100 sends of 125 kB per process (1 ms on a 125 MB/s link), no V_comm, no
// latency: a cycle is computation and transfers only
QueueingModel lockstep_model(double imbalance)
{
  QueueingModel m = test::qn_plain_model(0.0, 9.6e9 /* 1 s of one core in all */);
  m.latency_delay = false;
  m.lockstep = true;
  m.imbalance = imbalance;
  return m;
}

} // namespace

TEST(QnLockstep, ANodesProcessesComputeThenSendInTurns)
{
  // n processes on host 0 of two 8-core hosts without loopback: every message
  // goes to another process of the node, over the host's own up and down
  // links. A process's cycle computes d = W / (s n speed) and sends one
  // message of t = m / bandwidth = 1 ms. In lockstep the node's customer
  // computes for d max(I, n / cores), then its n transfers hold the up and
  // the down link at once (counted once): R = d max(I, n / 8) + n t, T = s R.
  Platform p = test::qn_two_nodes();
  double t = 125000 / 125e6;
  for (auto [procs, imbalance] : {std::pair{4, 1.0}, std::pair{4, 1.2}, std::pair{16, 1.2}, std::pair{16, 2.5}}) {
    QueueingModel m = lockstep_model(imbalance);
    double d = 9.6e9 / (100 * procs * 9.6e9);
    double want = 100 * (d * std::max(imbalance, procs / 8.0) + procs * t);
    Prediction pr = predict_run_time(m, p, {{0, procs}}, MvaSolver::Exact);
    EXPECT_NEAR(pr.time_s, want, 1e-9 * want) << procs << " processes, imbalance " << imbalance;
    // separate customers overlap one's transfer with another's computation: never slower
    m.lockstep = false;
    EXPECT_LT(predict_run_time(m, p, {{0, procs}}, MvaSolver::Exact).time_s, want) << procs;
  }
}

TEST(QnLockstep, OneProcessPerNodeIsTheCustomerPerProcessModel)
{
  // with one process a node, the node's customer is the process: without
  // imbalance both views are the same network (TwoPinnedRanksNeverWaitForEachOthersLink's
  // closed form, here without V_comm and latency: R = d + t)
  Platform p = test::qn_two_nodes();
  QueueingModel m = lockstep_model(1.0);
  double want = 100 * (9.6e9 / (100 * 2 * 9.6e9) + 125000 / 125e6);
  EXPECT_NEAR(predict_run_time(m, p, {{0, 1}, {1, 1}}, MvaSolver::Exact).time_s, want, 1e-9 * want);
  m.lockstep = false;
  EXPECT_NEAR(predict_run_time(m, p, {{0, 1}, {1, 1}}, MvaSolver::Exact).time_s, want, 1e-9 * want);
}

TEST(QnLockstep, TheExchangeLastsAsLongAsTheBusiestLinkItUses)
{
  // a reduce's root on host 0 of four, one process a host: the root sends
  // nothing (g = 0), the other three send every byte to it (h = 1), 4/3 of a
  // mean rank's messages each, so host 0's down link carries 3 x 4/3 t = 4 t a
  // cycle. In lockstep the three transfers share that link at once and each
  // sender's exchange ends when it has carried all of them:
  //   R_sender = d + 4 t, R_root = d, T = s (d + 4 t)
  // with d = W / (s n speed) = 2.5 ms and t = 1 ms. Customers that interleave
  // would queue there instead
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-4nodes.json");
  QueueingModel m = lockstep_model(1.0);
  m.hot_receive = Curve{CurveForm::Constant, 1, 0};
  m.hot_send = Curve{CurveForm::Constant, 0, 0};
  m.hot_send_messages = Curve{CurveForm::Constant, 0, 0};
  Prediction pr = predict_run_time(m, p, {{0, 1}, {1, 1}, {2, 1}, {3, 1}});
  EXPECT_NEAR(pr.time_s, 100 * (2.5e-3 + 4e-3), 1e-12);
  EXPECT_EQ(pr.bottleneck, "e5620-0.net-in");
  EXPECT_NEAR(pr.bottleneck_utilization, 4.0 / 6.5, 1e-12);
}

TEST(QnLockstep, ImbalanceAndItsWaitComeFromTheRanksComputeTimes)
{
  // runs whose ranks compute 3.0 and 3.6 s (2 processes) and 1.5, 1.5, 1.5,
  // 1.8 s (4) on identical hosts: the slowest rank's work over the mean's is
  // 3.6 / 3.3 and 1.8 / 1.575; the model keeps their mean. The smallest run's
  // ranks wait 0.3 s for the slowest (3.6 - 3.3), which is not the paper's
  // communication overhead: V_comm = (wait_s - 0.3) / time_s
  Platform p = test::qn_two_nodes();
  QueueingModel truth = lockstep_model(1.0);
  std::vector<MeasuredRun> runs;
  for (HostCounts placement : {HostCounts{{0, 1}}, HostCounts{{0, 1}, {1, 1}}, HostCounts{{0, 2}, {1, 2}}}) {
    MeasuredRun r = test::qn_synthetic_run(truth, p, placement);
    r.wait_s = 0;
    runs.push_back(r);
  }
  runs[1].rank_compute_s = {{"e5620-0", 3.0}, {"e5620-1", 3.6}};
  runs[1].wait_s = 0.3 + 0.05 * runs[1].time_s;
  runs[2].rank_compute_s = {{"e5620-0", 1.5}, {"e5620-1", 1.5}, {"e5620-0", 1.5}, {"e5620-1", 1.8}};
  QueueingModel m = fit_queueing_model(runs, p);
  EXPECT_TRUE(m.lockstep);
  EXPECT_NEAR(m.imbalance, (3.6 / 3.3 + 1.8 / 1.575) / 2, 1e-12);
  EXPECT_NEAR(m.v_comm, 0.05, 1e-12);
  // the paper's view keeps V_comm as the whole wait and no imbalance
  ModelVariant asynchronous;
  asynchronous.lockstep = false;
  QueueingModel a = fit_queueing_model(runs, p, asynchronous);
  EXPECT_FALSE(a.lockstep);
  EXPECT_EQ(a.imbalance, 1.0);
  EXPECT_NEAR(a.v_comm, runs[1].wait_s / runs[1].time_s, 1e-12);
  EXPECT_FALSE(fit_queueing_model(runs, p, ModelVariant::paper()).lockstep);
}

TEST(QnLockstep, ModelFilesKeepLockstepAndOldOnesReadAsACustomerPerProcess)
{
  QueueingModel m = lockstep_model(1.085);
  auto [back, amdahl] = model_from_json(model_to_json(m, AmdahlModel{}).dump(), "m.json");
  EXPECT_TRUE(back.lockstep);
  EXPECT_DOUBLE_EQ(back.imbalance, 1.085);
  nlohmann::json old = model_to_json(m, AmdahlModel{});
  old.erase("lockstep");
  old.erase("imbalance");
  auto [before, unused] = model_from_json(old.dump(), "old.json");
  EXPECT_FALSE(before.lockstep);
  EXPECT_EQ(before.imbalance, 1.0);
  old["imbalance"] = 0.5;
  EXPECT_THROW(model_from_json(old.dump(), "bad.json"), Error);
}
