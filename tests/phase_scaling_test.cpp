// The Extra-P-style scaling fit of a phase's own times (src/phase/ScalingFit).
#include "core/Error.hpp"
#include "phase/ScalingFit.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast::phase;

TEST(ScalingFit, FindsTheExactHypothesis) {
  // t = 0.5 + 2e-6 n^3 at n = 40..72 is one of the hypotheses (e = 3, k = 0);
  // its leave-one-out fits are exact, so its SMAPE is 0 and nothing beats it.
  std::vector<double> n = {40, 48, 56, 64, 72}, t;
  for (double x : n) t.push_back(0.5 + 2e-6 * x * x * x);
  const ScalingModel m = fit_scaling(n, t);
  EXPECT_DOUBLE_EQ(m.exponent, 3);
  EXPECT_EQ(m.log_power, 0);
  EXPECT_NEAR(m.c0, 0.5, 1e-9);
  EXPECT_NEAR(m.c1, 2e-6, 1e-15);
  EXPECT_NEAR(m.loo_smape, 0, 1e-9);
  EXPECT_NEAR(m(150), 0.5 + 2e-6 * 150 * 150 * 150, 1e-9);
}

TEST(ScalingFit, FindsALogFactor) {
  // t = 1e-3 n log2(n): e = 1, k = 1.
  std::vector<double> n = {64, 128, 256, 512, 1024}, t;
  for (double x : n) t.push_back(1e-3 * x * std::log2(x));
  const ScalingModel m = fit_scaling(n, t);
  EXPECT_DOUBLE_EQ(m.exponent, 1);
  EXPECT_EQ(m.log_power, 1);
  EXPECT_NE(m.describe().find("log2(n)"), std::string::npos) << m.describe();
}

TEST(ScalingFit, LeaveOneOutOfAKnownRule) {
  // A rule that always answers 1 s, on times 1 and 3: SMAPE 0 and
  // 2 |1 - 3| / (1 + 3) = 1, mean 0.5.
  const double e = leave_one_out_smape({2, 3}, {1, 3}, [](const auto&, const auto&, double) { return 1.0; });
  EXPECT_DOUBLE_EQ(e, 0.5);
}

TEST(ScalingFit, RejectsTooFewOrInvalidTimes) {
  EXPECT_THROW(fit_scaling({10, 20}, {1, 2}), perfcast::Error);
  EXPECT_THROW(fit_scaling({10, 20, 30}, {1, 2}), perfcast::Error);
  EXPECT_THROW(fit_scaling({10, 20, -30}, {1, 2, 3}), perfcast::Error);
}

TEST(ScalingFit, TimesThatDoNotGrowGetTheConstantNeverAFallingModel) {
  // Falling times: every growing hypothesis has c1 < 0 and is not kept; the
  // constant is their mean, 2, whatever the size.
  const ScalingModel falling = fit_scaling({10, 20, 30}, {3, 2, 1});
  EXPECT_DOUBLE_EQ(falling(1000), 2);
  EXPECT_EQ(falling.describe(), "2 (constant)");
  // A fixed-work phase measured with noise (hpcc's latency test: 0.31, 0.31, 0.29, 0.20 s from N = 724 to
  // 2048): the constant, their mean 0.2775 s, at any size.
  const ScalingModel fixed = fit_scaling({724, 1024, 1448, 2048}, {0.31, 0.31, 0.29, 0.20});
  EXPECT_NEAR(fixed(4096), 0.2775, 1e-12);
  // A growing phase still gets its growing model: t = 2 n exactly beats the constant.
  EXPECT_NEAR(fit_scaling({10, 20, 30, 40}, {20, 40, 60, 80})(100), 200, 1e-9);
}

TEST(ScalingFit, ForwardValidationPredictsEachLargestFromTheSmaller) {
  // Rule: the mean of the training times. Times 1, 2, 3, 4, 5 at sizes
  // 1..5; folds for the two largest: train on 1..3 (mean 2) for 4,
  // SMAPE 2 |2 - 4| / 6 = 2/3; train on 1..4 (mean 2.5) for 5, SMAPE
  // 2 * 2.5 / 7.5 = 2/3. Mean 2/3.
  const auto mean_rule = [](const std::vector<double>&, const std::vector<double>& t, double) {
    double s = 0;
    for (double v : t) s += v;
    return s / t.size();
  };
  EXPECT_NEAR(forward_smape({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, mean_rule), 2.0 / 3, 1e-12);
  // With three runs no fold keeps three to learn from.
  EXPECT_DOUBLE_EQ(forward_smape({1, 2, 3}, {1, 2, 3}, mean_rule), -1);
}
