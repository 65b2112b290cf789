// Which model perfcast recommends after the held-out checks (issue 13): the
// queueing model, the structural one, unless it failed its checks and Amdahl's
// law did better by more than the checks' own spread.
#include "platform/Platform.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"
#include "TestUtil.hpp"

#include "QnTestUtil.hpp"
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// Runs drawn from the queueing model itself (work W flops, 300 sends of 20 kB a process) at 1, 2, 4 and 8
// processes spread over the two hosts
std::vector<MeasuredRun> runs_of_truth(double work_flops, const Platform& p)
{
  QueueingModel truth = test::qn_truth_model(work_flops);
  truth.sends = {CurveForm::Constant, 300, 0};
  truth.run_bytes.reset();
  truth.message_bytes = {CurveForm::Constant, 20000, 0};
  std::vector<MeasuredRun> runs;
  for (int n : {1, 2, 4, 8})
    runs.push_back(test::qn_synthetic_run(truth, p, {{0, (n + 1) / 2}, {1, n / 2}}));
  return runs;
}

} // namespace

TEST(QnSelection, AmdahlIsRecommendedOnlyOnClearEvidence)
{
  // within the tolerance the queueing model stays, however much better
  // Amdahl's law did: (8, 11, 8)% against (1, 6, 6)%, a mean 9% <= 15%
  EXPECT_FALSE(amdahl_clearly_better({{0.08, 0.01}, {0.11, 0.06}, {0.08, 0.06}}));
  // failed (mean 30%) and Amdahl better every time: differences 29, 37, 24
  // points, mean 30, standard deviation sqrt((1 + 49 + 36) / 2) = 6.6, so
  // the standard error is 6.6 / sqrt(3) = 3.8 and 30 > 2 x 3.8
  EXPECT_TRUE(amdahl_clearly_better({{0.30, 0.01}, {0.40, 0.03}, {0.25, 0.01}}));
  // failed (mean 28%), Amdahl better on average by 16.7 points but not on
  // every check: differences 34, 16, 0, standard deviation
  // sqrt((17.3^2 + 0.7^2 + 16.7^2) / 2) = 17.0, standard error 9.8, and
  // 16.7 < 2 x 9.8: the spread explains the difference
  EXPECT_FALSE(amdahl_clearly_better({{0.43, 0.09}, {0.33, 0.17}, {0.08, 0.08}}));
  // the same differences with a quarter of the spread: 16.7 against 2 x 2.5
  EXPECT_TRUE(amdahl_clearly_better({{0.3, 0.1}, {0.3, 0.135}, {0.3, 0.165}}));
  // failed, and Amdahl's law worse on average: the queueing model stays
  EXPECT_FALSE(amdahl_clearly_better({{0.2, 0.3}, {0.2, 0.1}, {0.2, 0.35}}));
  // a single check has no spread: the better one wins once the queueing model failed
  EXPECT_TRUE(amdahl_clearly_better({{0.2, 0.1}}));
  EXPECT_FALSE(amdahl_clearly_better({{0.1, 0.01}}));
  EXPECT_FALSE(amdahl_clearly_better({}));
}

TEST(QnSelection, AmdahlThatFailedItsOwnChecksIsNoFallback)
{
  // HPL on 4 nodes (session 12): both models failed, the queueing model by
  // (48, 56, 56)%, Amdahl's law by (35, 42, 42)%: differences 13, 14, 14
  // points, standard error 0.3, so Amdahl's law was better beyond doubt, but
  // its mean 40% > 15% is no validation: the structural model stays
  EXPECT_FALSE(amdahl_clearly_better({{0.48, 0.35}, {0.56, 0.42}, {0.56, 0.42}}));
  // the same differences with Amdahl's law within the tolerance (14%): it is recommended
  EXPECT_TRUE(amdahl_clearly_better({{0.27, 0.14}, {0.28, 0.14}, {0.28, 0.14}}));
  // a single check: Amdahl's 16% fails it, its 14% passes
  EXPECT_FALSE(amdahl_clearly_better({{0.4, 0.16}}));
  EXPECT_TRUE(amdahl_clearly_better({{0.4, 0.14}}));
}

TEST(QnSelection, ExactQueueingModelStaysRecommendedWhenAmdahlFitsAsWell)
{
  // runs drawn from the queueing model itself at 1, 2, 4 and 8 processes on
  // two hosts, curves that two sending counts determine: every held-out
  // check of the queueing model is exact, so it is recommended, trusted and
  // unwarned whatever Amdahl's law scores; the 8-process run is held out
  // once (next count), not again by leave-one-out: 3 distinct checks
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  std::vector<MeasuredRun> runs = runs_of_truth(5e11, p);
  Reliability rel = assess_reliability(runs, p);
  EXPECT_LT(rel.queueing_error, 1e-3);
  EXPECT_TRUE(rel.trusted);
  EXPECT_FALSE(rel.recommend_amdahl);
  EXPECT_TRUE(rel.warning.empty());
  EXPECT_GE(rel.error_difference_se, 0); // three checks: a spread
  EXPECT_NEAR(rel.error_difference, rel.queueing_error - rel.amdahl_error, 1e-12);
}

TEST(QnSelection, AnAmdahlFitWhoseTimeRisesWithNIsNeverRecommended)
{
  // PRK sparse on the mixed cluster (session 18): run times that rise with n
  // follow T = s + p / n with p < 0, which held-out checks at 2 to 8
  // processes pass within a percent while the curve levels off at s, where
  // the code goes on slowing. Here the runs' times are set on such a curve,
  // 1 - 0.6 / n, exactly: Amdahl's law passes every check, the queueing model
  // (whose work and network both shrink with n) cannot follow it and fails,
  // yet the law is outside its domain, so the queueing model stays, warned
  Platform p = load_platform(test::source_dir() + "/examples/platforms/table1-2nodes.json");
  std::vector<MeasuredRun> runs = runs_of_truth(5e9, p);
  for (MeasuredRun& r : runs)
    r.time_s = 1.0 - 0.6 / r.procs;
  AmdahlModel a = fit_amdahl(runs);
  EXPECT_NEAR(a.serial_s, 1.0, 1e-9);
  EXPECT_NEAR(a.parallel_s, -0.6, 1e-9);
  Reliability rel = assess_reliability(runs, p);
  EXPECT_GT(rel.queueing_error, kTrustedError);
  EXPECT_LT(rel.amdahl_error, 1e-9);
  EXPECT_FALSE(rel.trusted);
  EXPECT_FALSE(rel.recommend_amdahl);
  EXPECT_NE(rel.warning.find("rises with n"), std::string::npos) << rel.warning;
  // the warning names the cut: without it the law would have been recommended (it did better beyond the checks'
  // spread and passed its own)
  EXPECT_NE(rel.warning.find("Amdahl's law did better, but its fit"), std::string::npos) << rel.warning;
}
