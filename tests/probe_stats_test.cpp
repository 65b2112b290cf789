// The probes' statistics against closed forms: the central-limit sample size,
// the 95% interval, the stopping rule, and the memory curve's fits.
#include "TestUtil.hpp"
#include "core/Error.hpp"
#include "probe/CurveFit.hpp"
#include "probe/MachineProbes.hpp"
#include "probe/ProbeReport.hpp"
#include "probe/SampleStats.hpp"

#include <cmath>
#include <fstream>
#include <unistd.h>
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

TEST(ProbeStats, EstimateKeepsItsSamplesInTheOrderTaken)
{
  // bench/probe_repeat.sh reads them back to look for a drift within the run
  // (batch means); a sorted or dropped list would hide it
  Estimate e = summarize({11, 9, 10});
  EXPECT_EQ(e.samples, (std::vector<double>{11, 9, 10}));
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

// A VM whose balloon reports freed pages: the counters are read in KiB, a
// machine without the module has none, and a counter that is not a number is
// an error naming its file
TEST(ProbeMemory, PageReportingCountersOfTheBalloon)
{
  perfcast::test::TempDir dir;
  dir.file("reported_kib", "146017720\n");
  dir.file("passes", "2739\n");
  auto r = read_page_reporting(dir.path());
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->reported_bytes, 146017720.0 * 1024);
  EXPECT_EQ(r->passes, 2739);
  EXPECT_FALSE(read_page_reporting(dir.path() + "/no-such-module").has_value());
  dir.file("passes", "many\n");
  try {
    read_page_reporting(dir.path());
    FAIL() << "a counter that is not a number was read";
  } catch (const perfcast::Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path() + "/passes"), std::string::npos) << e.what();
  }
}

TEST(ProbeMemory, ThePageReportingNoteGivesTheMegabytesHandedBack)
{
  std::string note = perfcast::probe::page_reporting_note(2.5e9);
  EXPECT_NE(note.find("2500 MB during the probe"), std::string::npos) << note;
}

namespace {
double resident_bytes()
{
  std::ifstream statm("/proc/self/statm");
  double pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<double>(::sysconf(_SC_PAGESIZE));
}
} // namespace

// The memory probe holds its levels only while it times them: the other
// probes' samples in the same round must not run beside its memory (a probe
// that kept its top level between calls made the disk's figures alternate)
TEST(ProbeMemory, NothingIsHeldBetweenRounds)
{
  MemoryInfo info = read_meminfo();
  const double max = 192.0 * (1u << 20);
  MemorySampler memory(max, 3, info);
  double before = resident_bytes();
  for (int round = 0; round < 2; ++round) {
    std::vector<double> times = memory.sample();
    ASSERT_EQ(times.size(), 4u);
    for (double t : times)
      EXPECT_GT(t, 0);
    EXPECT_LT(resident_bytes() - before, 0.25 * max) << "round " << round;
  }
}

TEST(ProbeInterleave, EveryFigureIsSampledEveryRoundInTurn)
{
  // two groups called in turn each round; the first meets a 10% rule at once
  // (constant), the second alternates 9 and 11 and needs five samples (as in
  // StopsWhenTheSampleSizeIsReached), so both get five: the rule waits for the
  // slowest figure and the others keep sampling beside it
  std::string calls;
  int i = 0;
  std::vector<SampleGroup> groups{
      {{"a", "a2"}, {true, true}, [&] { calls += 'a'; return std::vector<double>{5.0, 6.0}; }},
      {{"b"}, {true}, [&] { calls += 'b'; return std::vector<double>{(i++ % 2) ? 11.0 : 9.0}; }}};
  auto e = measure_interleaved({0.10, 3, 100}, groups);
  EXPECT_EQ(calls, "ababababab");
  ASSERT_EQ(e.size(), 2u);
  ASSERT_EQ(e[0].size(), 2u);
  EXPECT_EQ(e[0][0].n, 5);
  EXPECT_DOUBLE_EQ(e[0][1].mean, 6.0);
  EXPECT_EQ(e[1][0].n, 5);
  EXPECT_NEAR(e[1][0].mean, 9.8, 1e-12);
  EXPECT_TRUE(e[1][0].converged);
}

TEST(ProbeInterleave, UnruledFigureDoesNotHoldTheRoundsUp)
{
  // the second figure of the group (1, 100, 1, ...) would need the maximum;
  // unruled, the constant first figure ends the rounds at the minimum count
  int i = 0;
  std::vector<SampleGroup> groups{
      {{"one way", "overhead"}, {true, false}, [&] { return std::vector<double>{2.0, (i++ % 2) ? 100.0 : 1.0}; }}};
  auto e = measure_interleaved({0.02, 4, 50}, groups);
  EXPECT_EQ(e[0][0].n, 4);
  EXPECT_EQ(e[0][1].n, 4);
  EXPECT_FALSE(e[0][1].converged);
}

TEST(ProbeInterleave, MinimumDurationKeepsSampling)
{
  // a constant figure meets the rule after the minimum of 3 rounds; with a
  // clock that advances 1 s per round and 7.5 s asked for, rounds go on until
  // the clock has passed 7.5 s since the start: the clock is read once at the
  // start (0) and after each round (1, 2, ...), so the eighth round ends it
  double now = 0;
  int rounds = 0;
  std::vector<SampleGroup> groups{{{"c"}, {true}, [&] {
                                     ++rounds;
                                     now += 1;
                                     return std::vector<double>{1.0};
                                   }}};
  auto e = measure_interleaved({0.02, 3, 100}, groups, {7.5, [&] { return now; }});
  EXPECT_EQ(rounds, 8);
  EXPECT_EQ(e[0][0].n, 8);
  // the maximum count still bounds the rounds
  rounds = 0;
  now = 0;
  e = measure_interleaved({0.02, 3, 5}, groups, {100, [&] { return now; }});
  EXPECT_EQ(rounds, 5);
}

TEST(ProbeInterleave, DriftDuringTheRunIsInTheInterval)
{
  // the machine drifts: figure A reads 100 + t, t counting every sample taken
  // by anyone. B (1, 3, 1, ...; mean 2, sd about 1) cannot meet a 10% rule, so
  // the 40-round maximum ends both. Interleaved, A's samples are taken at
  // t = 0, 2, ..., 78: mean 100 + 39 = 139, sd 2 sd(0..39) = 2 sqrt(40 * 41 / 12)
  // = 23.38, the spread of the whole run; taken one figure after the other
  // (measure_until_tight), A would have stopped after 5 samples at t = 0..4,
  // mean 102, blind to the drift that followed
  int t = 0, j = 0;
  std::vector<SampleGroup> groups{{{"A"}, {true}, [&] { return std::vector<double>{100.0 + t++}; }},
                                  {{"B"}, {true}, [&] {
                                     ++t;
                                     return std::vector<double>{(j++ % 2) ? 3.0 : 1.0};
                                   }}};
  auto e = measure_interleaved({0.10, 5, 40}, groups);
  EXPECT_EQ(e[0][0].n, 40);
  EXPECT_NEAR(e[0][0].mean, 139, 1e-9);
  EXPECT_NEAR(e[0][0].sd, 2 * std::sqrt(40.0 * 41.0 / 12.0), 1e-9);
  t = 0;
  Estimate alone = measure_until_tight({0.10, 5, 40}, [&] { return 100.0 + t++; });
  EXPECT_EQ(alone.n, 5);
  EXPECT_NEAR(alone.mean, 102, 1e-9);
}
