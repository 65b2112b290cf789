// Net_Constant only where the training runs identify it, and bands that carry
// what the runs cannot tell (issue 13, session 14). With a network of a few
// percent of the training runs, misses of a few percent on the CPU side are
// read as a Net_Constant far from 1 (PENNANT: 2.0-2.25 where 1 matches its
// larger runs), which then multiplies a network that is half the run at 64.
#include "fit/Curve.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"
#include "QnTestUtil.hpp"
#include "TestUtil.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

const std::vector<HostCounts> kTraining = {HostCounts{{0, 1}}, HostCounts{{0, 1}, {1, 1}},
                                           HostCounts{{0, 2}, {1, 2}}, HostCounts{{0, 4}, {1, 4}}};

// A lockstep truth of Net_Constant `nc` whose network is `share` of the
// 8-process run on two nodes (100 sends of 125 kB per process, no latency,
// no V_comm): W set so that its computation is the rest
QueueingModel truth_with_share(double share, double nc, const Platform& p)
{
  QueueingModel m = test::qn_plain_model(0.0, 9.6e9);
  m.latency_delay = false;
  m.lockstep = true;
  m.net_constant = nc;
  QueueingModel off = m;
  off.net_constant = 0;
  double compute = predict_run_time(off, p, kTraining[3]).time_s;
  double network = predict_run_time(m, p, kTraining[3]).time_s - compute;
  // computation linear in W: scale it to network (1 - share) / share
  m.work_flops *= network * (1 - share) / share / compute;
  return m;
}

// The truth's runs with the CPU side missed by `miss[i]` of each run's
// computation: the ranks' compute times (all alike) and the run time carry it,
// as a replay's recorded work that goes up and down would
std::vector<MeasuredRun> runs_with_cpu_misses(const QueueingModel& truth, const Platform& p,
                                              const std::vector<double>& miss)
{
  std::vector<MeasuredRun> runs;
  for (std::size_t i = 0; i < kTraining.size(); ++i) {
    MeasuredRun r = test::qn_synthetic_run(truth, p, kTraining[i]);
    QueueingModel off = truth;
    off.net_constant = 0;
    double compute = predict_run_time(off, p, kTraining[i]).time_s;
    r.time_s += miss[i] * compute;
    r.mpi_s = 0;
    r.wait_s = 0;
    for (const auto& [host, count] : kTraining[i])
      for (int k = 0; k < count; ++k)
        r.rank_compute_s.emplace_back(p.hosts()[static_cast<std::size_t>(host)].name, compute * (1 + miss[i]));
    runs.push_back(r);
  }
  return runs;
}

ModelVariant constant_work(bool identify_network = true)
{
  ModelVariant v;
  v.work_growth = false; // the misses stay misses of the CPU side, not a curve of the work
  v.identify_network = identify_network;
  return v;
}

// A network of 3% of the 8-process run at Net_Constant 1.5, the CPU side missed by +-1.5% at 1, 2, 4 and 8
struct LooseRuns {
  Platform p = test::qn_two_nodes();
  QueueingModel truth = truth_with_share(0.03, 1.5, p);
  std::vector<MeasuredRun> runs = runs_with_cpu_misses(truth, p, {0.015, -0.015, 0.015, -0.015});
};

} // namespace

TEST(QnIdentify, NetConstantIsIdentifiedWhenItsEffectPassesTwiceTheCpuScatter)
{
  // a 3% network doubled moves its run by 3%: within twice a 5% scatter
  EXPECT_FALSE(net_constant_identified(2.0, 0.03, 0.05));
  // a 30% network at 1.5 moves its run by 15%: well past twice a 1% scatter
  EXPECT_TRUE(net_constant_identified(1.5, 0.30, 0.01));
  // exactly twice is not past it
  EXPECT_FALSE(net_constant_identified(1.5, 0.20, 0.05));
}

TEST(QnIdentify, ThreePercentNetworkAndFivePercentCpuMissesKeepNetConstantAtOne)
{
  // network 3% of the 8-process run, the CPU side missed by +5, -5, +5, -5%
  // at 1, 2, 4, 8: the scatter of the CPU phase against the slowest rank's
  // compute is about 5% of a run, twice that is 10%, and no Net_Constant
  // within 1 +- 0.1 / 0.03 can be told from it (here the fit itself drives
  // it towards 0, where the runs cannot tell it from W: kept at 1 either way)
  Platform p = test::qn_two_nodes();
  QueueingModel truth = truth_with_share(0.03, 1.0, p);
  auto runs = runs_with_cpu_misses(truth, p, {0.05, -0.05, 0.05, -0.05});
  QueueingModel m = fit_queueing_model(runs, p, constant_work());
  EXPECT_FALSE(m.net_constant_identified);
  EXPECT_EQ(m.net_constant, 1.0);
  EXPECT_EQ(m.net_constant_relative_se, 0.0);
  EXPECT_NEAR(m.training_network_share, 0.03, 0.01);
  EXPECT_GT(m.cpu_scatter, 0.04);
  EXPECT_LT(m.cpu_scatter, 0.07);
  // Net_Constant's uncertainty is the scatter read as network on the most
  // network-heavy run, s / f = 0.05 / 0.03 > 1: capped at 1 (unknown within a factor of 2)
  EXPECT_DOUBLE_EQ(m.net_constant_uncertainty, 1.0);
  bool said = false;
  for (const std::string& w : m.warnings)
    said = said || w.find("identify Net_Constant") != std::string::npos;
  EXPECT_TRUE(said);
  // the band carries it times the network's share of the prediction, at 64
  // processes on 2 nodes the prediction less its computation over it
  m.reliability.queueing_error = 0.02;
  HostCounts target{{0, 32}, {1, 32}};
  double share = network_share(m, p, target);
  QueueingModel off = m;
  off.net_constant = 0;
  double t = predict_run_time(m, p, target).time_s;
  EXPECT_NEAR(share, 1 - predict_run_time(off, p, target).time_s / t, 1e-12);
  BandTerms terms = model_band_terms(m, p, target);
  EXPECT_NEAR(terms.network, share * 1.0, 1e-12);
  EXPECT_NEAR(prediction_band(m, p, target, false, 64), std::max(0.02, share), 1e-12);
  // Amdahl's band is its own
  m.reliability.amdahl_error = 0.03;
  EXPECT_NEAR(prediction_band(m, p, target, true, 64), 0.03, 1e-12);
}

TEST(QnIdentify, ThirtyPercentNetworkAndOnePercentMissesFitNetConstant)
{
  // network 30% of the 8-process run at Net_Constant 1.5 (20% at 1), CPU
  // misses of +-1%: 1.5 moves that run by about 0.2 x 0.5 = 10%, past twice the 1% scatter
  Platform p = test::qn_two_nodes();
  QueueingModel truth = truth_with_share(0.30, 1.5, p);
  auto runs = runs_with_cpu_misses(truth, p, {0.01, -0.01, 0.01, -0.01});
  QueueingModel m = fit_queueing_model(runs, p, constant_work());
  EXPECT_TRUE(m.net_constant_identified);
  EXPECT_NEAR(m.net_constant, 1.5, 0.075);
  EXPECT_LT(m.cpu_scatter, 0.02);
  // its uncertainty: the standard error and the scatter over share x Net_Constant, in quadrature
  EXPECT_NEAR(m.net_constant_uncertainty,
              std::sqrt(std::pow(m.net_constant_relative_se, 2) +
                        std::pow(m.cpu_scatter / (m.training_network_share * m.net_constant), 2)),
              1e-12);
}

TEST(QnIdentify, ByDefaultANetConstantTheRunsDoNotIdentifyIsFittedSaidAndCarriedByTheBand)
{
  // network 3% of the 8-process run at Net_Constant 1.5, CPU misses of
  // +-1.5%: 1.5 moves that run by about 0.02 x 0.5 = 1%, within twice the
  // scatter. By default it is fitted all the same (the held-out checks
  // rejected keeping it at 1, session 14), the fit says so, and its
  // uncertainty holds the scatter read as network, s / (f Net_Constant)
  LooseRuns given;
  const Platform& p = given.p;
  const std::vector<MeasuredRun>& runs = given.runs;
  ModelVariant v = constant_work(false);
  v.hold_loose_network = false; // the fit's own standard error passes 100% here: see the next test
  QueueingModel m = fit_queueing_model(runs, p, v);
  EXPECT_FALSE(m.net_constant_identified);
  EXPECT_NE(m.net_constant, 1.0);
  bool said = false;
  for (const std::string& w : m.warnings)
    said = said || w.find("do not identify Net_Constant") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_NEAR(m.net_constant_uncertainty,
              std::min(1.0, std::sqrt(std::pow(m.net_constant_relative_se, 2) +
                                      std::pow(m.cpu_scatter / (m.training_network_share * m.net_constant), 2))),
              1e-12);
  EXPECT_GT(m.net_constant_uncertainty, 0.3);
}

TEST(QnIdentify, ANetConstantWhoseStandardErrorPassesOneHundredPercentStaysAtOne)
{
  // the previous test's runs, by default: the fit's own standard error of
  // Net_Constant passes 100% (its one-sigma interval reaches 0), so the runs
  // do not pin it; it takes the platform's value, W is fitted alone, the fit
  // says so, and the band carries the loose constant's uncertainty (capped: unknown)
  LooseRuns given;
  const Platform& p = given.p;
  const std::vector<MeasuredRun>& runs = given.runs;
  ModelVariant v = constant_work(false);
  ModelVariant free = v;
  free.hold_loose_network = false;
  QueueingModel loose = fit_queueing_model(runs, p, free);
  ASSERT_GT(loose.net_constant_relative_se, 1.0);
  QueueingModel m = fit_queueing_model(runs, p, v);
  EXPECT_EQ(m.net_constant, 1.0);
  EXPECT_FALSE(m.net_constant_identified);
  EXPECT_DOUBLE_EQ(m.net_constant_relative_se, loose.net_constant_relative_se);
  EXPECT_DOUBLE_EQ(m.net_constant_uncertainty, 1.0);
  bool said = false;
  for (const std::string& w : m.warnings)
    said = said || w.find("do not pin Net_Constant") != std::string::npos;
  EXPECT_TRUE(said);
  // W alone: the work that, with Net_Constant 1, best fits the runs; the truth's
  // W is within the CPU misses (1.5%) and the network's 3% share at 1.5 against 1
  EXPECT_NEAR(m.work_flops / given.truth.work_flops, 1.0, 0.03);
  // a constant the runs pin (the next test's runs, without CPU misses: standard error about 3%) keeps its fit
  std::vector<MeasuredRun> exact;
  for (const HostCounts& placement : kTraining)
    exact.push_back(test::qn_synthetic_run(given.truth, p, placement));
  QueueingModel pinned = fit_queueing_model(exact, p, v);
  EXPECT_LT(pinned.net_constant_relative_se, 1.0);
  EXPECT_NEAR(pinned.net_constant, 1.5, 0.075);
}

TEST(QnIdentify, RunsWithoutComputeTimesFitNetConstantAsBefore)
{
  // CSV runs list no ranks' compute times: no scatter to test against
  Platform p = test::qn_two_nodes();
  QueueingModel truth = truth_with_share(0.03, 1.5, p);
  std::vector<MeasuredRun> runs;
  for (const HostCounts& placement : kTraining)
    runs.push_back(test::qn_synthetic_run(truth, p, placement));
  QueueingModel m = fit_queueing_model(runs, p, constant_work());
  EXPECT_TRUE(m.net_constant_identified);
  EXPECT_NEAR(m.net_constant, 1.5, 0.075); // a 3% network: loosely determined
  EXPECT_EQ(m.cpu_scatter, -1.0);
  EXPECT_EQ(m.net_constant_uncertainty, -1.0);
}

TEST(QnIdentify, PointsThatGoUpAndDownAreNoTrend)
{
  EXPECT_TRUE(goes_up_and_down({1, 2, 4, 8}, {0.93, 1.09, 0.98, 1.79})); // miniFE's recorded work
  EXPECT_TRUE(goes_up_and_down({2, 4, 8}, {44, 1109, 605}));             // HPL's sends per rank
  EXPECT_FALSE(goes_up_and_down({1, 2, 4, 8}, {1, 1.1, 1.3, 1.8}));
  EXPECT_FALSE(goes_up_and_down({2, 4, 8}, {3, 3, 2}));
  // several runs at one count: their mean
  EXPECT_FALSE(goes_up_and_down({2, 2, 4, 8}, {1, 3, 2.5, 3}));
}

TEST(QnIdentify, SendsFittedThroughNoiseWidenTheBandPastTheRunsByTheHeldPrediction)
{
  // s(n) a line through sends that go up and down: past the largest count,
  // the band spans the prediction with s(n) held at its value there
  Platform p = test::qn_two_nodes();
  QueueingModel m = test::qn_plain_model(0.0, 9.6e9);
  m.lockstep = true;
  m.sends = {CurveForm::Linear, 0, 100}; // 100 n
  m.sends_through_noise = true;
  m.largest_training_procs = 8;
  m.reliability.queueing_error = 0.02;
  HostCounts at16{{0, 8}, {1, 8}}, at8{{0, 4}, {1, 4}};
  QueueingModel held = m;
  held.sends = {CurveForm::Constant, 800, 0};
  double t = predict_run_time(m, p, at16).time_s;
  double expected = std::fabs(predict_run_time(held, p, at16).time_s - t) / t;
  EXPECT_GT(expected, 0.1);
  EXPECT_NEAR(model_band_terms(m, p, at16).held, expected, 1e-12);
  EXPECT_EQ(model_band_terms(m, p, at8).held, 0.0); // within the runs
  EXPECT_GE(prediction_band(m, p, at16, false, 16), expected);
}
