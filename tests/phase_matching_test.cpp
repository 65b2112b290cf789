// Escobar and Boppana's matching (src/phase/): the kernel model, the Table IV
// statistics, the selection cascade and equations 3 and 4, on cases whose
// answers are derived by hand below or taken from the paper's tables.
#include "core/Error.hpp"
#include "phase/KernelModel.hpp"
#include "phase/Matching.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast::phase;

namespace {

/// Kernel whose time is scale * K^power at K = 10, 20, 40, 80.
KernelModel power_kernel(const std::string& name, double scale, double power) {
  std::vector<KernelPoint> pts;
  for (double k : {10.0, 20.0, 40.0, 80.0}) pts.push_back({k, scale * std::pow(k, power)});
  return KernelModel(name, pts);
}

/// A row of Table IV as the cascade sees it.
MatchStats row(const std::string& name, double abs_am, double rmse, double sd, double cv, double pred_dev) {
  MatchStats m;
  m.kernel = name;
  m.abs_am = abs_am;
  m.rmse = rmse;
  m.std_dev = sd;
  m.sf_cv = cv;
  m.pred_dev = pred_dev;
  return m;
}

} // namespace

TEST(KernelModel, ReproducesAPowerLawInsideAndBeyondItsPoints) {
  // In log-log space K^3 is a line: every secant is 3, Fritsch-Carlson keeps
  // the derivatives at 3, and the Hermite pieces are that line; the power-law
  // ends continue it. So the model is exact everywhere.
  const KernelModel f = power_kernel("cube", 1e-6, 3);
  for (double k : {3.0, 10.0, 15.0, 33.3, 80.0, 500.0})
    EXPECT_NEAR(f.seconds_at(k), 1e-6 * k * k * k, 1e-9 * 1e-6 * k * k * k) << k;
  for (double k : {2.0, 17.0, 57.0, 1000.0}) EXPECT_NEAR(f.size_for(f.seconds_at(k)), k, 1e-9 * k) << k;
}

TEST(KernelModel, NoisyTimesArePooledSoTheModelNeverFalls) {
  // 3 s at size 20 then 2.5 s at 30: pool-adjacent-violators replaces both
  // log times by their mean, i.e. the geometric mean sqrt(7.5) s.
  const KernelModel f("noisy", {{10, 1}, {20, 3}, {30, 2.5}, {40, 5}});
  EXPECT_NEAR(f.points()[1].seconds, std::sqrt(7.5), 1e-12);
  EXPECT_NEAR(f.points()[2].seconds, std::sqrt(7.5), 1e-12);
  double previous = 0;
  for (double k = 5; k <= 60; k += 0.25) {
    const double t = f.seconds_at(k);
    EXPECT_GE(t, previous) << k;
    previous = t;
  }
  // On the plateau between 20 and 30 the inverse answers the smallest size.
  EXPECT_NEAR(f.size_for(std::sqrt(7.5)), 20, 1e-6);
}

TEST(KernelModel, RepeatedSizesStandByTheirMedian) {
  // two runs: the mean of the middle two, (1 + 3) / 2
  const KernelModel f("rep", {{10, 1}, {10, 3}, {20, 4}});
  ASSERT_EQ(f.points().size(), 2u);
  EXPECT_DOUBLE_EQ(f.points()[0].seconds, 2);
  // three runs, one of them slow: the middle one, 1.1 (the mean would be 2.4)
  const KernelModel g("rep3", {{10, 5}, {10, 1}, {10, 1.1}, {20, 4}});
  ASSERT_EQ(g.points().size(), 2u);
  EXPECT_DOUBLE_EQ(g.points()[0].seconds, 1.1);
}

TEST(KernelModel, RejectsWhatCannotBeInverted) {
  EXPECT_THROW(KernelModel("one", {{10, 1}}), perfcast::Error);
  EXPECT_THROW(KernelModel("flat", {{10, 1}, {20, 1}, {30, 0.9}}), perfcast::Error);
  EXPECT_THROW(KernelModel("neg", {{10, 1}, {-20, 2}}), perfcast::Error);
  EXPECT_THROW(KernelModel("nan", {{10, 1}, {20, NAN}}), perfcast::Error);
  const KernelModel f = power_kernel("cube", 1, 3);
  EXPECT_THROW(f.seconds_at(0), perfcast::Error);
  EXPECT_THROW(f.size_for(-1), perfcast::Error);
}

TEST(PhaseMatching, AKernelOfTheSameOrderMatchesExactly) {
  // REFERENCE.md section 6's oracle: with t = c n^3 and f = K^3,
  // sF_i = n_i / (c n_i^3)^(1/3) = c^(-1/3) for every i, so sFCV = 0,
  // SF_S = avSF, PredDev = 0, every e_i = 0, and f(S / avSF) = c S^3.
  const double c = 2e-5;
  std::vector<PhaseSample> runs;
  for (double n : {40.0, 48.0, 56.0, 64.0, 72.0}) runs.push_back({n, c * n * n * n});
  const KernelModel f = power_kernel("cube", 1, 3);
  const MatchStats m = match_phase(runs, f, 150);
  EXPECT_NEAR(m.av_sf, std::pow(c, -1.0 / 3), 1e-9 * m.av_sf);
  EXPECT_NEAR(m.sf_cv, 0, 1e-9);
  EXPECT_NEAR(m.pred_dev, 0, 1e-9);
  EXPECT_NEAR(m.abs_am, 0, 1e-9);
  EXPECT_NEAR(m.rmse, 0, 1e-9);
  EXPECT_NEAR(predict_phase_seconds(m, f, 150), c * 150 * 150 * 150, 1e-9 * c * 150 * 150 * 150);
}

TEST(PhaseMatching, AKernelUsedPastItsMeasuredRangeIsRefused) {
  // t = n^3 against f = K^3 measured at K = 10, 20, 40, 80: sF = 1, the
  // target S maps to K = S. The last segment is 40 -> 80, so the model is
  // supported to 80 * 2 = 160: S = 150 is in range, S = 170 is not, and the
  // cascade refuses the kernel there however well it matches (AbsAM = 0).
  std::vector<PhaseSample> runs;
  for (double n : {40.0, 48.0, 56.0, 64.0, 72.0}) runs.push_back({n, n * n * n});
  const KernelModel narrow = power_kernel("cube", 1, 3);
  EXPECT_DOUBLE_EQ(narrow.supported_max_size(), 160);
  const MatchStats inside = match_phase(runs, narrow, 150);
  EXPECT_NEAR(inside.kernel_size, 150, 1e-9);
  EXPECT_TRUE(inside.in_range);
  EXPECT_EQ(select_kernel({inside}).chosen, 0);
  const MatchStats past = match_phase(runs, narrow, 170);
  EXPECT_NEAR(past.kernel_size, 170, 1e-9);
  EXPECT_DOUBLE_EQ(past.supported_max, 160);
  EXPECT_FALSE(past.in_range);
  EXPECT_NEAR(past.abs_am, 0, 1e-9); // a perfect match, refused all the same
  const Selection alone = select_kernel({past});
  EXPECT_EQ(alone.chosen, -1);
  EXPECT_FALSE(alone.standings[0].eligible);
  EXPECT_NE(alone.reason.find("refused beyond the sizes measured"), std::string::npos) << alone.reason;
  EXPECT_NE(alone.reason.find("cube at 170, past 160"), std::string::npos) << alone.reason;
  // A kernel of the same law measured further (to 640, supported to 1280) takes the phase.
  std::vector<KernelPoint> pts;
  for (double k : {10.0, 40.0, 160.0, 640.0}) pts.push_back({k, k * k * k});
  const KernelModel wide("cube-wide", pts);
  const Selection both = select_kernel({past, match_phase(runs, wide, 170)});
  EXPECT_EQ(both.chosen, 1);
  EXPECT_NE(both.reason.find("cube at 170"), std::string::npos) << both.reason;
}

TEST(PhaseMatching, StatisticsOfAMismatchedKernelByHand) {
  // Phase t = n^3 at n = 1, 2 (1 s, 8 s); kernel f(K) = K (a line through
  // (1, 1) and (100, 100), exact in log-log). K_i = t_i, so
  //   sF = 1/1 = 1 and 2/8 = 0.25; avSF = 0.625;
  //   sd(sF) = sqrt(2 * 0.375^2 / 1) = 0.530330; sFCV = 0.848528;
  //   SF_3 on the line through (1, 1), (2, 0.25): 1 - 0.75 * 2 = -0.5;
  //   PredDev = |-0.5 - 0.625| / 0.625 = 1.8;
  //   e_1 = (1/0.625 - 1) / 1 = 0.6, e_2 = (2/0.625 - 8) / 8 = -0.6;
  //   AbsAM = 0, RMSE = 0.6, StdDev = sqrt(2 * 0.36 / 1) = 0.848528.
  const KernelModel f("line", {{1, 1}, {100, 100}});
  const MatchStats m = match_phase({{1, 1}, {2, 8}}, f, 3);
  EXPECT_NEAR(m.sfactors[0], 1, 1e-9);
  EXPECT_NEAR(m.sfactors[1], 0.25, 1e-9);
  EXPECT_NEAR(m.av_sf, 0.625, 1e-9);
  EXPECT_NEAR(m.sf_cv, 0.848528, 1e-6);
  EXPECT_NEAR(m.sf_at_target, -0.5, 1e-9);
  EXPECT_NEAR(m.pred_dev, 1.8, 1e-9);
  EXPECT_NEAR(m.errors[0], 0.6, 1e-9);
  EXPECT_NEAR(m.errors[1], -0.6, 1e-9);
  EXPECT_NEAR(m.abs_am, 0, 1e-9);
  EXPECT_NEAR(m.rmse, 0.6, 1e-9);
  EXPECT_NEAR(m.std_dev, 0.848528, 1e-6);
  // RMSE^2 = AbsAM^2 + (N-1)/N StdDev^2: 0.36 = 0 + 0.5 * 0.72.
  EXPECT_NEAR(m.rmse * m.rmse, m.abs_am * m.abs_am + 0.5 * m.std_dev * m.std_dev, 1e-12);
}

TEST(PhaseMatching, PredDevAsTableFourComputesIt) {
  // Table IV, bt: avSF 2.118 and SF_180 1.883 give PredDev 0.111.
  // Build sF values whose mean is 2.118 and whose line reaches 1.883 at 180:
  // runs at 80..120 (mean size 100) with sF = 2.118 + s (n - 100), s chosen so
  // that 2.118 + 80 s = 1.883. A kernel f = K makes K_i = t_i, so t_i = n_i / sF_i.
  const double s = (1.883 - 2.118) / 80;
  std::vector<PhaseSample> runs;
  for (double n : {80.0, 90.0, 100.0, 110.0, 120.0}) runs.push_back({n, n / (2.118 + s * (n - 100))});
  const MatchStats m = match_phase(runs, KernelModel("line", {{1, 1}, {1000, 1000}}), 180);
  EXPECT_NEAR(m.av_sf, 2.118, 1e-9);
  EXPECT_NEAR(m.sf_at_target, 1.883, 1e-9);
  EXPECT_NEAR(m.pred_dev, 0.111, 0.0005);
}

TEST(PhaseMatching, APointsPhaseMatchesARowsKernelOnlyInPoints) {
  // Phase t = n^3 at n = 2, 3, 4 (8, 27, 64 s), n points a side of a 3-D
  // grid; kernel f(R) = R seconds, R matrix rows (exact in log-log).
  //   Sizes as given ({1, 1}, the paper's eq. 1): K_i = t_i, so sF_i = n_i /
  //   n_i^3 = 0.25, 0.111111, 0.0625; avSF = 0.141204; the line of sF on n
  //   has slope (-0.25 + 0.0625) / 2 = -0.09375, so at S = 8 it gives
  //   0.141204 - 5 * 0.09375 = -0.327546 and PredDev = 0.46875 / 0.141204 =
  //   3.31967: refused, whatever the two compute.
  //   In points ({3, 1}): sF_i = n_i^3 / K_i = 1 at every size, so sFCV = 0,
  //   PredDev = 0, e_i = 0, and t_P = f(8^3 / 1) = 512 = 8^3 s, the kernel
  //   used at 512 rows.
  const std::vector<PhaseSample> runs = {{2, 8}, {3, 27}, {4, 64}};
  const KernelModel rows("rows", {{1, 1}, {1e3, 1e3}, {1e6, 1e6}});
  const MatchStats paper = match_phase(runs, rows, 8);
  EXPECT_EQ(paper.dims, (SizeDims{1, 1}));
  EXPECT_NEAR(paper.av_sf, 0.141204, 1e-6);
  EXPECT_NEAR(paper.sf_at_target, -0.327546, 1e-6);
  EXPECT_NEAR(paper.pred_dev, 3.31967, 1e-5);
  EXPECT_EQ(select_kernel({paper}).chosen, -1);
  const MatchStats in_points = match_phase(runs, rows, 8, {3, 1});
  for (double sf : in_points.sfactors) EXPECT_NEAR(sf, 1, 1e-12);
  EXPECT_NEAR(in_points.sf_cv, 0, 1e-12);
  EXPECT_NEAR(in_points.pred_dev, 0, 1e-12);
  EXPECT_NEAR(in_points.rmse, 0, 1e-12);
  EXPECT_NEAR(in_points.kernel_size, 512, 1e-9);
  EXPECT_EQ(select_kernel({in_points}).chosen, 0);
  EXPECT_NEAR(predict_phase_seconds(in_points, rows, 8), 512, 1e-9);
  // Declared 2-D ({2, 1}): sF_i = n_i^2 / n_i^3 = 0.5, 0.333333, 0.25; avSF =
  // 0.361111. The line of sF runs against the sizes as given (2, 3, 4), slope
  // -0.125, so SF_8 = 0.361111 - 5 * 0.125 = -0.263889 and PredDev = 0.625 /
  // 0.361111 = 1.730769 (against 4, 9, 16 it would be another line).
  const MatchStats flat = match_phase(runs, rows, 8, {2, 1});
  EXPECT_NEAR(flat.av_sf, 0.361111, 1e-6);
  EXPECT_NEAR(flat.sf_at_target, -0.263889, 1e-6);
  EXPECT_NEAR(flat.pred_dev, 1.730769, 1e-6);
}

TEST(PhaseMatching, AKernelOfTwoDimensionsIsUsedAtItsOwnSize) {
  // Phase t = 1e-3 n^3 (a 3-D grid, time in proportion to its points),
  // kernel f(K) = K^2 seconds with K a matrix order (K^2 entries, time in
  // proportion to them). In points ({3, 2}): K_i = sqrt(t_i), sF_i = n_i^3 /
  // K_i^2 = n_i^3 / t_i = 1000 at every size. At S = 30: 27000 / 1000 = 27
  // entries, the order sqrt(27) = 5.196152, f = 27 s = 1e-3 * 30^3.
  const std::vector<PhaseSample> runs = {{10, 1}, {12, 1.728}, {15, 3.375}};
  const KernelModel square("square", {{1, 1}, {10, 100}, {100, 1e4}});
  const MatchStats m = match_phase(runs, square, 30, {3, 2});
  EXPECT_NEAR(m.av_sf, 1000, 1e-9);
  EXPECT_NEAR(m.pred_dev, 0, 1e-12);
  EXPECT_NEAR(m.kernel_size, std::sqrt(27.0), 1e-12);
  EXPECT_TRUE(m.in_range); // supported to 100 * 100 / 10 = 1000 (its own unit)
  EXPECT_NEAR(predict_phase_seconds(m, square, 30), 27, 1e-9);
  // dimensions outside 1 to 3 are refused
  EXPECT_THROW(match_phase(runs, square, 30, {0, 2}), perfcast::Error);
  EXPECT_THROW(match_phase(runs, square, 30, {3, 4}), perfcast::Error);
}

TEST(KernelCascade, PicksSymmFromTableFour) {
  // The rows of Table IV (AbsAM, RMSE, StdDev, sFCV, PredDev). bebop (PredDev
  // 1.428) and ptran (2.149) fail the PredDev < 0.5 filter; push (0.481)
  // passes. Among the ten eligible, by RMSE: symm .037, gemve .062, sp .068,
  // then bt and gemm tied at .09 (by name: bt 4th, gemm 5th), cg .092, ...
  // symm is first by RMSE, StdDev (.041) and sFCV (.022): Table III's "Top 1".
  const std::vector<MatchStats> rows = {
      row("bebop", 0.001, 0.349, 0.39, 0.461, 1.428), row("gemve", 0.002, 0.062, 0.069, 0.041, 0.054),
      row("dgemm", 0.002, 0.151, 0.169, 0.092, 0.28),  row("symm", 0.003, 0.037, 0.041, 0.022, 0.053),
      row("bt", 0.003, 0.09, 0.101, 0.04, 0.111),      row("trmm", 0.003, 0.111, 0.124, 0.056, 0.167),
      row("mg", 0.004, 0.1, 0.111, 0.056, 0.154),      row("push", 0.01, 0.212, 0.237, 0.154, 0.481),
      row("ptran", 0.012, 0.341, 0.381, 0.852, 2.149), row("gemm", 0.014, 0.09, 0.1, 0.03, 0.082),
      row("sp", 0.018, 0.068, 0.073, 0.033, 0.105),    row("cg", 0.049, 0.092, 0.087, 0.065, 0.129)};
  const Selection sel = select_kernel(rows);
  ASSERT_GE(sel.chosen, 0);
  EXPECT_EQ(rows[sel.chosen].kernel, "symm");
  EXPECT_FALSE(sel.standings[0].eligible); // bebop
  EXPECT_FALSE(sel.standings[8].eligible); // ptran
  EXPECT_TRUE(sel.standings[7].eligible);  // push
  EXPECT_EQ(sel.standings[3].rmse_rank, 1);
  EXPECT_EQ(sel.standings[3].std_dev_rank, 1);
  EXPECT_EQ(sel.standings[3].sf_cv_rank, 1);
  EXPECT_EQ(sel.standings[4].rmse_rank, 4); // bt before gemm on the tie
  EXPECT_EQ(sel.standings[9].rmse_rank, 5);
  EXPECT_EQ(sel.standings[10].rmse_rank, 3); // sp
  // In the top 5 of all three: symm, gemve, sp, gemm. bt is 4th by RMSE and
  // by sFCV (symm .022, gemm .03, sp .033, bt .04, gemve .041) but 6th by
  // StdDev (symm .041, gemve .069, sp .073, cg .087, gemm .1, bt .101).
  int in_all = 0;
  for (const Standing& st : sel.standings) in_all += st.in_all_tops;
  EXPECT_EQ(in_all, 4);
  EXPECT_FALSE(sel.standings[4].in_all_tops);
  EXPECT_EQ(sel.standings[4].std_dev_rank, 6);
}

TEST(KernelCascade, DisagreementGoesToTheSmallestRankSum) {
  // With top = 1 no kernel leads all three rankings:
  //   RMSE: a < b < c; StdDev: b < a < c; sFCV: c < b < a.
  //   Rank sums: a 1+2+3 = 6, b 2+1+2 = 5, c 3+3+1 = 7, so b.
  const std::vector<MatchStats> rows = {row("a", 0.1, 0.10, 0.20, 0.30, 0.1), row("b", 0.1, 0.20, 0.10, 0.20, 0.1),
                                        row("c", 0.1, 0.30, 0.30, 0.10, 0.1)};
  CascadeRule rule;
  rule.top = 1;
  const Selection sel = select_kernel(rows, rule);
  ASSERT_EQ(sel.chosen, 1);
  EXPECT_NE(sel.reason.find("no kernel is in the top 1"), std::string::npos) << sel.reason;
}

TEST(KernelCascade, NoneEligibleChoosesNothingAndSaysWhy) {
  const Selection sel = select_kernel({row("a", 0.6, 0.1, 0.1, 0.1, 0.1), row("b", 0.1, 0.1, 0.1, 0.1, 0.7)});
  EXPECT_EQ(sel.chosen, -1);
  EXPECT_NE(sel.reason.find("AbsAM"), std::string::npos);
}

TEST(PhasePrediction, EquationFourAndLinearShares) {
  // T = (40 + 30) / (0.5 + 0.3) = 87.5 s.
  EXPECT_DOUBLE_EQ(predict_total_seconds({40, 30}, {0.5, 0.3}), 87.5);
  // Shares 0.5 at size 10 and 0.6 at 20: the line gives 0.8 at 40, and 1.4
  // at 100, clamped to 1.
  EXPECT_NEAR(extrapolate_share({10, 20}, {0.5, 0.6}, 40), 0.8, 1e-12);
  EXPECT_DOUBLE_EQ(extrapolate_share({10, 20}, {0.5, 0.6}, 100), 1.0);
  EXPECT_THROW(extrapolate_share({10, 20}, {0.5, 1.5}, 40), perfcast::Error);
  EXPECT_THROW(predict_total_seconds({1, 2}, {0.7, 0.6}), perfcast::Error);
  EXPECT_THROW(match_phase({{10, 1}}, KernelModel("k", {{1, 1}, {2, 2}}), 20), perfcast::Error);
}
