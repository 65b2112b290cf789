// `perfcast lb sweep`: table, plots, errors, and the same result when MPI
// ranks share the configurations.
#include "LbSweepTestUtil.hpp"

#include <gtest/gtest.h>

namespace perfcast::test {
namespace {

// Two VP levels of an imbalanced two-iteration trace, and the platform.
struct SweepFiles {
  TempDir dir;
  std::string platform = dir.file("c.xml", kSweepCluster);
  std::string four = level("four", {"1e9", "3e8", "6e8", "2e8"});
  std::string eight = level("eight", {"5e8", "5e8", "1e8", "2e8", "3e8", "3e8", "1e8", "1e8"});

  std::string level(const std::string& name, const std::vector<std::string>& flops)
  {
    return write_sweep_level(dir, name, flops);
  }

  std::string args(const std::string& flags) const
  {
    return "lb sweep " + four + " " + eight + " -p " + platform +
           " --cores 2,4 --balancers greedy,refine --periods 1,2 --net loggp --mapping round-robin " + flags;
  }
};

} // namespace

TEST(LbSweepCli, PrintsTheTableTheBestAndFigure7)
{
  SweepFiles f;
  std::string prefix = f.dir.path() + "/fig7";
  auto r = run_perfcast(f.args("--plot-prefix " + prefix));
  ASSERT_EQ(r.status, 0) << r.output;
  // LbSweep.RowsMatchTheHandDerivedReplay: 4 VPs on 2 cores, greedy every migration point
  EXPECT_NE(r.output.find("     4      2 greedy                             1       2.710100    1.181          1"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\nbest: "), std::string::npos);
  EXPECT_NE(read_text(prefix + "-periods.svg").find("Makespan against the balancing period"), std::string::npos);
  EXPECT_NE(read_text(prefix + "-levels.svg").find("Makespan against over-decomposition"), std::string::npos);
}

TEST(LbSweepCli, OverheadOptionsReachEveryConfiguration)
{
  // The row of PrintsTheTableTheBestAndFigure7 (4 VPs, 2 cores, greedy every
  // migration point): one migration, the step was 0.0101 s. With a 0.25 MiB
  // stack, 2 ms per step and 10 ms per migration (each core moves one VP) it
  // is 0.002 + 0.010 + 100e-6 + (1250000 + 262144) / 1.25e8 s, 0.02209715 s.
  SweepFiles f;
  auto r = run_perfcast(f.args("--json --vp-stack 0.25MiB --step-cost 2ms --migration-cost 10ms"));
  ASSERT_EQ(r.status, 0) << r.output;
  bool seen = false;
  nlohmann::json j = nlohmann::json::parse(r.output);
  for (const auto& row : j["configurations"]) {
    if (row["vps"] != 4 || row["cores"] != 2 || row["balancer"] != "greedy" || row["period"] != 1)
      continue;
    seen = true;
    EXPECT_EQ(row["migrations"], 1);
    EXPECT_NEAR(row["balancing_s"].get<double>(), 0.002 + 0.010 + 100e-6 + 1512144 / 1.25e8, 1e-12);
  }
  EXPECT_TRUE(seen) << r.output;
  auto bad = run_perfcast(f.args("--migration-cost soon"));
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--migration-cost soon: expected a duration"), std::string::npos) << bad.output;
}

TEST(LbSweepCli, UnknownBalancerIsAnError)
{
  SweepFiles f;
  auto r = run_perfcast("lb sweep " + f.four + " -p " + f.platform + " --cores 2 --balancers greedyy");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--balancers"), std::string::npos) << r.output;
}

TEST(LbSweepCli, MpiRanksShareTheSweepAndPrintTheSameResult)
{
#ifndef PERFCAST_TRACER
  GTEST_SKIP() << "perfcast was built without MPI (no MPI found at configure time)";
#endif
  if (!have_command("mpirun"))
    GTEST_SKIP() << "Open MPI's mpirun is not installed (Debian package openmpi-bin)";
  SweepFiles f;
  auto alone = run_perfcast(f.args("--json --threads 2"));
  ASSERT_EQ(alone.status, 0) << alone.output;
  auto shared = run_command(std::string("env ") + kMpiEnv + " mpirun -np 3 " + perfcast_binary() + " " +
                            f.args("--json --threads 1"));
  ASSERT_EQ(shared.status, 0) << shared.output;
  EXPECT_EQ(nlohmann::json::parse(shared.output), nlohmann::json::parse(alone.output));
}

} // namespace perfcast::test

namespace perfcast::test {

// --levels aggregates the one fine trace in place of traces given per level:
// the same figures as aggregating by hand with `perfcast aggregate` first
TEST(LbSweepCli, LevelsFromOneFineTraceEqualTracesAggregatedByHand)
{
  SweepFiles f;
  std::string coarse = f.dir.path() + "/eight-as-4";
  auto ag = run_perfcast("aggregate " + f.eight + " --ranks 4 -o " + coarse);
  ASSERT_EQ(ag.status, 0) << ag.output;
  std::string common = " -p " + f.platform + " --cores 2 --balancers greedy,refine --periods 1 --net loggp --json";
  auto by_hand = run_perfcast("lb sweep " + f.eight + " " + coarse + common);
  ASSERT_EQ(by_hand.status, 0) << by_hand.output;
  auto levels = run_perfcast("lb sweep " + f.eight + " --levels 8,4" + common);
  ASSERT_EQ(levels.status, 0) << levels.output;
  auto a = nlohmann::json::parse(by_hand.output), b = nlohmann::json::parse(levels.output);
  EXPECT_EQ(a, b);
  // the coarse level really is coarse: 4 VPs in its rows
  bool four = false;
  for (const auto& row : b["configurations"])
    four = four || row["vps"] == 4;
  EXPECT_TRUE(four) << levels.output;
}

TEST(LbSweepCli, LevelsThatDoNotDivideTheFineTraceAreNamed)
{
  SweepFiles f;
  auto r = run_perfcast("lb sweep " + f.eight + " --levels 8,3 -p " + f.platform + " --cores 2");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--levels 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("expected levels that divide it"), std::string::npos) << r.output;
  r = run_perfcast("lb sweep " + f.eight + " " + f.four + " --levels 8,4 -p " + f.platform + " --cores 2");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("expected one fine trace"), std::string::npos) << r.output;
  r = run_perfcast("lb sweep " + f.eight + " --levels 8,4 --grid 3x3 -p " + f.platform + " --cores 2");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--grid"), std::string::npos) << r.output;
}

} // namespace perfcast::test
