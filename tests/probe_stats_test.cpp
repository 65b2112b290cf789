// The probes' statistics against closed forms: the central-limit sample size,
// the 95% interval, the stopping rule, and the memory curve's fits.
#include "TestUtil.hpp"
#include "core/Error.hpp"
#include "probe/CurveFit.hpp"
#include "probe/MachineProbes.hpp"
#include "probe/SampleStats.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast::probe;

TEST(ProbeStats, IntervalOfFixedSamples)
{
  // {9, 10, 11}: mean 10, s = sqrt((1 + 0 + 1) / 2) = 1, half-width 1.96 / sqrt(3)
  Estimate e = summarize({9, 10, 11});
  EXPECT_DOUBLE_EQ(e.mean, 10);
  EXPECT_DOUBLE_EQ(e.sd, 1);
  EXPECT_EQ(e.n, 3);
  EXPECT_NEAR(e.ci_low, 10 - kZ95 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(e.ci_high, 10 + kZ95 / std::sqrt(3.0), 1e-12);
  EXPECT_NEAR(e.relative_half_width(), kZ95 / std::sqrt(3.0) / 10, 1e-12);
}

TEST(ProbeStats, CentralLimitSampleSize)
{
  // n = (z s / (e mean))^2: s = 1, mean = 10, e = 5%: (1.96 / 0.5)^2 = 15.37 -> 16;
  // e = 10%: 1.96^2 = 3.84 -> 4; a spread of zero needs one sample
  EXPECT_EQ(required_samples(10, 1, 0.05), 16);
  EXPECT_EQ(required_samples(10, 1, 0.10), 4);
  EXPECT_EQ(required_samples(10, 0, 0.10), 1);
  EXPECT_EQ(required_samples(-10, 1, 0.10), 4); // a negative mean is measured by its size
}

TEST(ProbeStats, StopsWhenTheSampleSizeIsReached)
{
  // samples 9, 11, 9, 11, 9 with e = 10%, at least 3:
  //   n = 3: mean 9.667, s 1.155 -> (1.96 * 1.155 / 0.9667)^2 = 5.5 -> 6, go on
  //   n = 4: mean 10, s 1.155 -> 5.1 -> 6, go on
  //   n = 5: mean 9.8, s = sqrt(4.8 / 4) = 1.095 -> (2 * 1.095)^2 = 4.8 -> 5, stop
  int i = 0;
  StoppingRule rule{0.10, 3, 100};
  long calls = 0;
  Estimate e = measure_until_tight(rule, [&] { return (i++ % 2) ? 11.0 : 9.0; },
                                   [&](const Estimate& so_far) { calls = so_far.n; });
  EXPECT_EQ(e.n, 5);
  EXPECT_EQ(calls, 5);
  EXPECT_TRUE(e.converged);
  EXPECT_NEAR(e.mean, 9.8, 1e-12);
}

TEST(ProbeStats, MaximumCountEndsAWideMeasurement)
{
  // 1, 100, 1, 100, ...: s is about 50 times the mean's 2%, so the maximum decides
  int i = 0;
  Estimate e = measure_until_tight({0.02, 5, 12}, [&] { return (i++ % 2) ? 100.0 : 1.0; });
  EXPECT_EQ(e.n, 12);
  EXPECT_FALSE(e.converged);
}

TEST(ProbeFit, LineThroughExactPoints)
{
  // the paper's Table 2 line, alpha = 0.0012 x - 0.0065, sampled exactly
  std::vector<double> x{0, 100, 250, 600, 1000}, y;
  for (double v : x)
    y.push_back(0.0012 * v - 0.0065);
  LineFit f = fit_line(x, y);
  EXPECT_NEAR(f.slope, 0.0012, 1e-15);
  EXPECT_NEAR(f.intercept, -0.0065, 1e-13);
  EXPECT_NEAR(f.r2, 1, 1e-12);
  EXPECT_THROW(fit_line({1, 1}, {2, 3}), std::invalid_argument);
}

TEST(ProbeFit, ExponentialThroughExactPoints)
{
  // Table 2's swapping curve, alpha = 0.0938 exp(0.0039 x)
  std::vector<double> x{1100, 1300, 1500, 1800, 2000}, y;
  for (double v : x)
    y.push_back(0.0938 * std::exp(0.0039 * v));
  ExpFit f = fit_exponential(x, y);
  EXPECT_NEAR(f.scale, 0.0938, 1e-9);
  EXPECT_NEAR(f.rate, 0.0039, 1e-12);
  EXPECT_NEAR(f.r2, 1, 1e-12);
  EXPECT_THROW(fit_exponential({1, 2}, {1, 0}), std::invalid_argument);
}

TEST(ProbeFit, RSquaredOfAKnownResidual)
{
  // y = {0, 2}, mean 1, total 2; predictions {1, 1} leave residual 2: R^2 = 0
  EXPECT_DOUBLE_EQ(r_squared({0, 2}, {1, 1}), 0);
  // predictions {0.5, 1.5}: residual 0.5, R^2 = 1 - 0.5 / 2 = 0.75
  EXPECT_DOUBLE_EQ(r_squared({0, 2}, {0.5, 1.5}), 0.75);
}

TEST(ProbeFit, MemoryCurveSplitsAtMainMemory)
{
  // linear up to 1000 MB, exponential beyond, each exact
  MemoryFigure f;
  f.probed_max_bytes = 2000e6;
  for (double x : {0.0, 250.0, 500.0, 750.0, 1000.0})
    f.points.push_back({x, {}, 0.002 * x + 0.01});
  for (double x : {1250.0, 1500.0, 1750.0, 2000.0})
    f.points.push_back({x, {}, 0.5 * std::exp(0.003 * x)});
  fit_memory_curve(f, 1000, true);
  ASSERT_TRUE(f.has_linear);
  ASSERT_TRUE(f.has_exponential);
  EXPECT_NEAR(f.linear.slope, 0.002, 1e-12);
  EXPECT_NEAR(f.linear.intercept, 0.01, 1e-12);
  EXPECT_NEAR(f.exponential.rate, 0.003, 1e-12);
  EXPECT_NEAR(f.exponential.scale, 0.5, 1e-9);
  EXPECT_TRUE(f.note.empty());
}

TEST(ProbeFit, NoSwapIsSaid)
{
  MemoryFigure f;
  f.probed_max_bytes = 200e6;
  for (double x : {0.0, 100.0, 200.0})
    f.points.push_back({x, {}, 0.0001 * x});
  fit_memory_curve(f, 20000, false);
  EXPECT_TRUE(f.has_linear);
  EXPECT_FALSE(f.has_exponential);
  EXPECT_NE(f.note.find("no swap"), std::string::npos) << f.note;
  fit_memory_curve(f, 20000, true);
  EXPECT_NE(f.note.find("exponential (swapping) part was not measured"), std::string::npos) << f.note;
}

TEST(ProbeMemory, MeminfoAndTheDefaultBound)
{
  perfcast::test::TempDir dir;
  std::string p = dir.file("meminfo", "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   10485760 kB\n"
                                      "SwapTotal:             0 kB\n");
  MemoryInfo m = read_meminfo(p);
  EXPECT_DOUBLE_EQ(m.total_bytes, 24000000.0 * 1024);
  EXPECT_DOUBLE_EQ(m.swap_total_bytes, 0);
  // a tenth of 10 GiB available is 1 GiB, below the 2 GiB ceiling
  EXPECT_DOUBLE_EQ(default_memory_max(m), 0.1 * 10485760.0 * 1024);
  m.available_bytes = 100.0 * (1u << 30);
  EXPECT_DOUBLE_EQ(default_memory_max(m), 2.0 * (1u << 30));
  std::string bad = dir.file("bad", "MemTotal: 1 kB\n");
  EXPECT_THROW(read_meminfo(bad), perfcast::Error);
}
