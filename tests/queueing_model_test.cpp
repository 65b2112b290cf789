// The queueing model of Saad et al. (src/qn/QueueingModel.hpp), its fit and
// the curve and least-squares machinery under it.
#include "core/Error.hpp"
#include "fit/Curve.hpp"
#include "fit/LeastSquares.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"
#include "TestUtil.hpp"

#include <cmath>
#include "QnTestUtil.hpp"
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

Platform hetero8() { return load_platform(test::source_dir() + "/examples/platforms/hetero8.json"); }

} // namespace

TEST(Curve, PicksTheFormTheDataFollow)
{
  std::vector<double> n{2, 4, 8, 16, 32};
  std::vector<double> log_data, power_data;
  for (double x : n) {
    log_data.push_back(10 + 3 * std::log(x));
    power_data.push_back(5e5 * std::pow(x, -0.7));
  }
  auto a = choose_curve(n, log_data, all_curve_forms(), CurveForm::Constant);
  EXPECT_EQ(a.curve.form, CurveForm::LogLinear);
  EXPECT_NEAR(a.curve.a, 10, 1e-9);
  EXPECT_NEAR(a.curve.b, 3, 1e-9);
  auto b = choose_curve(n, power_data, all_curve_forms(), CurveForm::Constant);
  EXPECT_EQ(b.curve.form, CurveForm::Power);
  EXPECT_NEAR(b.curve.b, -0.7, 1e-9);
  // two points: nothing to validate on, the fallback form is fitted
  auto c = choose_curve({2, 4}, {1, 2}, all_curve_forms(), CurveForm::Linear);
  EXPECT_FALSE(c.cross_validated);
  EXPECT_EQ(c.curve.form, CurveForm::Linear);
}

TEST(LevenbergMarquardt, RecoversAnExponentialDecay)
{
  // y = 3 exp(-0.5 t) sampled exactly: the fit must return (3, 0.5)
  std::vector<double> t{0, 1, 2, 3, 4, 5}, y;
  for (double x : t)
    y.push_back(3 * std::exp(-0.5 * x));
  auto fit = levenberg_marquardt(
      [&](const std::vector<double>& p) {
        std::vector<double> r;
        for (std::size_t i = 0; i < t.size(); ++i)
          r.push_back(p[0] * std::exp(-p[1] * t[i]) - y[i]);
        return r;
      },
      {1.0, 2.0});
  EXPECT_TRUE(fit.converged) << fit.message;
  EXPECT_NEAR(fit.parameters[0], 3, 1e-6);
  EXPECT_NEAR(fit.parameters[1], 0.5, 1e-6);
}

TEST(QueueingModel, OneNodeWithoutCommunicationIsPerfectlyParallel)
{
  // n <= cores on one host, V_comm = 0, no network: T = W / (n speed)
  // (local messages on the CPU, as the paper: hetero8 has no loopback, so
  // perfcast's default would send them through the host's NIC)
  QueueingModel m = test::qn_truth_model(5e12);
  m.local_via_nic = false;
  m.v_comm = 0;
  m.v_comp = 1;
  Platform p = hetero8();
  int host = p.find_host("e52450-0"); // 16 cores of 16.8 Gf/s
  for (int n : {1, 4, 16}) {
    double t = predict_run_time(m, p, {{host, n}}, MvaSolver::Exact).time_s;
    EXPECT_NEAR(t, m.work_flops / (n * 16.8e9), 1e-9 * t) << n;
  }
  // beyond the cores the CPU saturates: X = c / D and T = R s(n) = W / (c speed),
  // so 32 processes take as long as 16
  double t16 = predict_run_time(m, p, {{host, 16}}, MvaSolver::Exact).time_s;
  double t32 = predict_run_time(m, p, {{host, 32}}, MvaSolver::Exact).time_s;
  EXPECT_NEAR(t32, t16, 1e-9 * t16);
}

TEST(QueueingModel, VisitRatiosFollowEquations8And9)
{
  // local messages on the CPU as in eq. 8 and 9 (qn_method_test.cpp checks
  // the NIC refinement for clusters without loopback)
  QueueingModel m = test::qn_truth_model(5e12);
  m.local_via_nic = false;
  m.other_partners = false; // a partner drawn among all n processes, as eq. 9
  Platform p = hetero8();
  // 6 processes on host 0 and 2 on host 6 (n = 8)
  ClosedNetwork net = build_network(m, p, {{0, 6}, {6, 2}});
  ASSERT_EQ(net.stations.size(), 8u); // cpu, net out, net in and latency per node
  double n = 8, s = m.sends(n);
  double v_cpu0 = 6 / n * 0.8 + 6 / n * 5 / n * 0.2 + 2 / n * 6 / n * 0.2;
  double v_net0 = 2 * (6 / n) * (2 / n);
  EXPECT_NEAR(net.stations[0].demand_s, v_cpu0 * m.work_flops / (s * n * 9.6e9), 1e-12);
  EXPECT_EQ(net.stations[0].servers, 8);
  // 125 MB/s, each direction of the duplex NIC gets one term of eq. 9; the
  // route's 101 us of latency is a delay station
  double s_net = message_bytes_at(m, n) / 1.25e8 * 1.7;
  EXPECT_NEAR(net.stations[1].demand_s, v_net0 / 2 * s_net, 1e-12);
  EXPECT_NEAR(net.stations[2].demand_s, v_net0 / 2 * s_net, 1e-12);
  EXPECT_EQ(net.stations[3].kind, StationKind::Delay);
  // the route's latency is paid once per remote message leaving node 0
  // (probability 6/n x 2/n), scaled by Net_Constant as the whole message time
  EXPECT_NEAR(net.stations[3].demand_s, v_net0 / 2 * 101e-6 * 1.7, 1e-15);
  // the paper's form: one queue with both terms, no latency
  m.duplex_nic = false;
  m.latency_delay = false;
  ClosedNetwork paper = build_network(m, p, {{0, 6}, {6, 2}});
  ASSERT_EQ(paper.stations.size(), 4u);
  EXPECT_NEAR(paper.stations[1].demand_s, v_net0 * s_net, 1e-12);
}

TEST(QueueingModel, FitRecoversTheConstantsOfSyntheticRuns)
{
  QueueingModel truth = test::qn_truth_model(5e12);
  Platform p = hetero8();
  std::vector<MeasuredRun> runs;
  for (HostCounts pl : std::vector<HostCounts>{{{0, 2}}, {{0, 4}}, {{0, 8}}, {{0, 4}, {1, 4}}, {{0, 8}, {1, 8}},
                                               {{0, 4}, {1, 4}, {6, 8}}})
    runs.push_back(test::qn_synthetic_run(truth, p, pl));
  QueueingModel fit = fit_queueing_model(runs, p);
  EXPECT_NEAR(fit.v_comm, 0.2, 1e-12);
  EXPECT_NEAR(fit.work_flops, truth.work_flops, 1e-5 * truth.work_flops) << fit.fit_message;
  EXPECT_NEAR(fit.net_constant, truth.net_constant, 1e-4 * truth.net_constant);
  // and it predicts a configuration it never saw
  HostCounts unseen{{0, 8}, {1, 8}, {4, 12}, {6, 16}};
  double want = predict_run_time(truth, p, unseen).time_s;
  EXPECT_NEAR(predict_run_time(fit, p, unseen).time_s, want, 1e-4 * want);
}

TEST(QueueingModel, TooFewRunsIsAClearError)
{
  Platform p = hetero8();
  std::vector<MeasuredRun> runs{test::qn_synthetic_run(test::qn_truth_model(5e12), p, {{0, 4}})};
  try {
    fit_queueing_model(runs, p);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 constants to fit but 1 run was given"), std::string::npos) << e.what();
  }
}

TEST(QueueingModel, RunOnAHostThePlatformLacksIsNamed)
{
  Platform p = hetero8();
  MeasuredRun r = test::qn_synthetic_run(test::qn_truth_model(5e12), p, {{0, 4}});
  r.placement = {{"ghost-1", 4}};
  r.source = "runs.csv:3";
  EXPECT_THROW(host_counts(r, p), Error);
  try {
    host_counts(r, p);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("runs.csv:3: placement names host 'ghost-1'"), std::string::npos);
  }
}

TEST(Amdahl, FitsSerialAndParallelParts)
{
  std::vector<MeasuredRun> runs;
  for (int n : {1, 2, 4, 8}) {
    MeasuredRun r;
    r.procs = n;
    r.time_s = 2 + 30.0 / n;
    runs.push_back(r);
  }
  AmdahlModel a = fit_amdahl(runs);
  EXPECT_NEAR(a.serial_s, 2, 1e-9);
  EXPECT_NEAR(a.parallel_s, 30, 1e-9);
  EXPECT_NEAR(a.predict(16), 2 + 30.0 / 16, 1e-9);
}

TEST(QueueingModel, JsonRoundTrip)
{
  QueueingModel m = test::qn_truth_model(5e12);
  m.smpi_factors = true;
  AmdahlModel a{1.5, 20};
  auto [m2, a2] = model_from_json(model_to_json(m, a).dump(), "model.json");
  EXPECT_TRUE(m2.smpi_factors);
  Platform p = hetero8();
  HostCounts pl{{0, 8}, {6, 4}};
  EXPECT_DOUBLE_EQ(predict_run_time(m, p, pl).time_s, predict_run_time(m2, p, pl).time_s);
  EXPECT_DOUBLE_EQ(a2.predict(8), a.predict(8));
  EXPECT_THROW(model_from_json("{\"format\":\"perfcast-model\"}", "bad.json"), Error);
}

TEST(Curve, PositiveQuantitiesKeepPositiveForms)
{
  // message sizes falling like 300000 - 100000 ln n fit a log-linear curve
  // best, but it turns negative past n = 20: a positive form is kept instead
  std::vector<double> n{2, 4, 8}, y;
  for (double x : n)
    y.push_back(300000 - 100000 * std::log(x));
  auto free_choice = choose_curve(n, y, all_curve_forms(), CurveForm::Inverse);
  EXPECT_EQ(free_choice.curve.form, CurveForm::LogLinear);
  auto positive = choose_curve(n, y, all_curve_forms(), CurveForm::Inverse, true);
  EXPECT_TRUE(stays_positive(positive.curve));
  EXPECT_GT(positive.curve(1000), 0);
}

TEST(Study, ProcessCountSyntax)
{
  EXPECT_EQ(parse_proc_counts("2..5"), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(parse_proc_counts("2..64:x2"), (std::vector<int>{2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(parse_proc_counts("4..16:+4"), (std::vector<int>{4, 8, 12, 16}));
  EXPECT_EQ(parse_proc_counts("3,5,9"), (std::vector<int>{3, 5, 9}));
  EXPECT_THROW(parse_proc_counts("8..2"), Error);
  EXPECT_THROW(parse_proc_counts("2..8:x1"), Error);
  EXPECT_THROW(parse_proc_counts("a,b"), Error);
}

TEST(Study, TurningPointIsWhereTheGainFallsBelowTheThreshold)
{
  std::vector<SweepPoint> pts(4);
  const double times[] = {10, 6, 5.8, 5.7};
  for (int i = 0; i < 4; ++i) {
    pts[static_cast<std::size_t>(i)].queueing.procs = 1 << i;
    pts[static_cast<std::size_t>(i)].queueing.time_s = times[i];
  }
  // 10 -> 6 gains 40%, 6 -> 5.8 gains 3.3% < 5%: the turn is at 2 processes
  EXPECT_EQ(turning_point(pts, 0.05), 2);
  EXPECT_EQ(turning_point(pts, 0.01), 8);
}

TEST(Study, BestGroupPrefersTheFastServers)
{
  // a compute-bound model (no communication) on the mixed cluster: the two
  // E5-2450 servers (16 cores at 16.8 Gf/s) run 32 processes fastest
  QueueingModel m = test::qn_truth_model(5e12);
  m.v_comm = 0;
  m.v_comp = 1;
  m.message_bytes = {CurveForm::Constant, 1, 0};
  Platform p = hetero8();
  GroupChoice g = best_group(m, p, 2, 32);
  EXPECT_TRUE(g.exhaustive);
  EXPECT_EQ(g.hosts, (std::vector<std::string>{"e52450-0", "e52450-1"}));
}

TEST(LevenbergMarquardt, ReportsWhenItStopsWithoutConverging)
{
  FitOptions o;
  o.max_iterations = 2;
  // a slow valley: two iterations are not enough
  auto fit = levenberg_marquardt(
      [](const std::vector<double>& p) {
        return std::vector<double>{10 * (p[1] - p[0] * p[0]), 1 - p[0]};
      },
      {0.01, 5.0}, o);
  EXPECT_FALSE(fit.converged);
  EXPECT_EQ(fit.message, "iteration limit reached");
}

TEST(QueueingModel, PredictsLargerSimGridRunsBetterThanAmdahl)
{
  // examples/runs/stencil2d-4nodes.csv: the 2-D stencil recorded with smpirun
  // on four E5620 nodes. Fit on 2 to 16 processes, predict 24, 32 and 48
  // (6 to 12 per node). Measured on 2026-11-22: queueing model 95.2%,
  // Amdahl 75.0% (100 - MAPE). Since issue 13 Net_Constant scales the whole
  // message time (start-up included, eq. 4 and 7) instead of letting the NIC
  // queue absorb the latency, which the third-party study needed
  // (bench/qn_study.sh); here that cost accuracy: 82.1% on 2026-11-23. With
  // partners among the n-1 others and B(n) fitted as one curve (issue 13,
  // same day) it is back to 95.2%: the threshold is raised back.
  auto runs = load_runs(test::source_dir() + "/examples/runs/stencil2d-4nodes.csv");
  ASSERT_EQ(runs.size(), 7u);
  std::vector<MeasuredRun> train(runs.begin(), runs.begin() + 4), test(runs.begin() + 4, runs.end());
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-4nodes.json");
  QueueingModel m = fit_queueing_model(train, p);
  AmdahlModel a = fit_amdahl(train);
  std::vector<double> qn, amdahl;
  for (const MeasuredRun& r : test) {
    qn.push_back(predict_run_time(m, p, host_counts(r, p)).time_s);
    amdahl.push_back(a.predict(r.procs));
  }
  Accuracy q = score("queueing-network", qn, test), b = score("amdahl", amdahl, test);
  EXPECT_GE(q.accuracy_percent, 90.0);
  EXPECT_GT(q.accuracy_percent, b.accuracy_percent);
}

TEST(LevenbergMarquardt, StandardErrorsOfALinearFitMatchTheClosedForm)
{
  // y = a + b t on t = 0..4 with residual noise (+e, -e, 0, -e, +e) that is
  // orthogonal to 1 and t, so the least-squares line is exactly a = 1, b = 2.
  // RSS = 4 e^2, s^2 = RSS / (5 - 2); (X^T X)^-1 for t = 0..4 has diagonal
  // (sum t^2 / det, n / det) with det = n sum t^2 - (sum t)^2 = 5*30 - 100 = 50:
  // se(a) = sqrt(s^2 * 30/50), se(b) = sqrt(s^2 * 5/50).
  const double e = 0.1;
  std::vector<double> t{0, 1, 2, 3, 4}, noise{e, -e, 0, -e, e}, y;
  for (std::size_t i = 0; i < t.size(); ++i)
    y.push_back(1 + 2 * t[i] + noise[i]);
  FitOptions linear;
  linear.positive = false;
  auto fit = levenberg_marquardt(
      [&](const std::vector<double>& p) {
        std::vector<double> r;
        for (std::size_t i = 0; i < t.size(); ++i)
          r.push_back(p[0] + p[1] * t[i] - y[i]);
        return r;
      },
      {0.0, 0.0}, linear);
  ASSERT_TRUE(fit.converged) << fit.message;
  EXPECT_NEAR(fit.parameters[0], 1, 1e-6);
  EXPECT_NEAR(fit.parameters[1], 2, 1e-6);
  EXPECT_EQ(fit.degrees_of_freedom, 3);
  ASSERT_EQ(fit.standard_errors.size(), 2u);
  double s2 = 4 * e * e / 3;
  EXPECT_NEAR(fit.standard_errors[0], std::sqrt(s2 * 30 / 50), 1e-5);
  EXPECT_NEAR(fit.standard_errors[1], std::sqrt(s2 * 5 / 50), 1e-5);
}

TEST(QueueingModel, RunsAtOneProcessCountFitOnlyTheWorkAndSaySo)
{
  // what broke: three runs of 4 processes "converged" with a constant of 0.
  // Every residual depends on W and Net_Constant through one prediction, so
  // the two cannot be told apart: W alone is fitted, Net_Constant stays 1,
  // and a warning names the reason.
  Platform p = hetero8();
  QueueingModel truth = test::qn_truth_model(5e12);
  std::vector<MeasuredRun> runs;
  for (double scale : {1.0, 1.02, 0.98}) {
    MeasuredRun r = test::qn_synthetic_run(truth, p, {{0, 2}, {1, 2}});
    r.time_s *= scale;
    runs.push_back(r);
  }
  QueueingModel fit = fit_queueing_model(runs, p);
  EXPECT_EQ(fit.net_constant, 1.0);
  EXPECT_GT(fit.work_flops, 0);
  ASSERT_FALSE(fit.warnings.empty());
  EXPECT_NE(fit.warnings[0].find("cannot identify Net_Constant (every run has 4 processes)"), std::string::npos)
      << fit.warnings[0];
  EXPECT_EQ(fit.degrees_of_freedom, 2);
}

TEST(QueueingModel, TwoRunsForTwoConstantsWarnInsteadOfClaimingAGoodFit)
{
  Platform p = hetero8();
  QueueingModel truth = test::qn_truth_model(5e12);
  std::vector<MeasuredRun> two{test::qn_synthetic_run(truth, p, {{0, 2}}), test::qn_synthetic_run(truth, p, {{0, 4}, {1, 4}})};
  QueueingModel fit = fit_queueing_model(two, p);
  EXPECT_EQ(fit.degrees_of_freedom, 0);
  ASSERT_EQ(fit.warnings.size(), 1u);
  EXPECT_NE(fit.warnings[0].find("exact by construction"), std::string::npos) << fit.warnings[0];
  EXPECT_EQ(fit.work_relative_se, 0); // not estimable, and said so
  // with more runs than constants there is no such warning, and the
  // uncertainty of noise-free runs is tiny
  std::vector<MeasuredRun> four = two;
  four.push_back(test::qn_synthetic_run(truth, p, {{0, 8}}));
  four.push_back(test::qn_synthetic_run(truth, p, {{0, 8}, {1, 8}}));
  QueueingModel better = fit_queueing_model(four, p);
  EXPECT_EQ(better.degrees_of_freedom, 2);
  EXPECT_TRUE(better.warnings.empty());
  EXPECT_LT(better.work_relative_se, 1e-4);
  // the warning travels with the model file, with the training runs
  auto [back, amdahl] = model_from_json(model_to_json(fit, fit_amdahl(two)).dump(), "m.json");
  ASSERT_EQ(back.warnings.size(), 1u);
  EXPECT_EQ(back.provenance["runs"].size(), 2u);
}

TEST(Study, ExtrapolationCheckTrainsOnSmallCountsOnly)
{
  Platform p = hetero8();
  QueueingModel truth = test::qn_truth_model(5e12);
  std::vector<MeasuredRun> runs;
  for (HostCounts pl : std::vector<HostCounts>{{{0, 1}, {1, 1}}, {{0, 2}, {1, 2}}, {{0, 4}, {1, 4}}, {{0, 8}, {1, 8}}})
    runs.push_back(test::qn_synthetic_run(truth, p, pl));
  // distinct counts 2, 4, 8, 16: train on 2 and 4, predict 8 and 16
  Extrapolation x = extrapolation_check(runs, p);
  EXPECT_EQ(x.largest_training_procs, 4);
  ASSERT_EQ(x.tested.size(), 2u);
  EXPECT_EQ(x.tested[0].procs, 8);
  EXPECT_EQ(x.tested[1].procs, 16);
  // noise-free runs of the model itself: the queueing model extrapolates them exactly
  EXPECT_GT(x.accuracy[0].accuracy_percent, 99.9);
  runs.pop_back();
  runs.pop_back();
  EXPECT_THROW(extrapolation_check(runs, p), Error);
}

TEST(QueueingModel, RunsThatNeverUseTheNetworkFitOnlyTheWork)
{
  // one host with a loopback-free hetero8 node, no more processes than cores,
  // and the paper's model (local messages do not queue at the NIC):
  // Net_Constant changes no prediction, so W is fitted alone and it is said
  Platform p = hetero8();
  QueueingModel truth = test::qn_truth_model(5e12);
  std::vector<MeasuredRun> runs{test::qn_synthetic_run(truth, p, {{0, 1}}), test::qn_synthetic_run(truth, p, {{0, 2}}),
                                test::qn_synthetic_run(truth, p, {{0, 4}})};
  QueueingModel fit = fit_queueing_model(runs, p, ModelVariant::paper());
  EXPECT_EQ(fit.net_constant, 1.0);
  ASSERT_FALSE(fit.warnings.empty());
  EXPECT_NE(fit.warnings[0].find("(every run is on one host)"), std::string::npos) << fit.warnings[0];
}

TEST(Study, ProcessCountListsAreBounded)
{
  // found by the fuzzer (a slow input): "3..5555555" asked for 5.5 million model evaluations
  EXPECT_THROW(parse_proc_counts("3..5555555"), Error);
  EXPECT_THROW(parse_proc_counts("1..10000000:+1"), Error);
  EXPECT_EQ(parse_proc_counts("1..1048576:x2").size(), 21u);
  EXPECT_EQ(parse_proc_counts("1..10000").size(), 10000u);
}
