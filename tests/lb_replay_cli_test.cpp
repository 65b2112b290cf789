// `perfcast lb replay`: the comparison with and without balancing, its plots,
// and bad input.
#include "TestUtil.hpp"

#include <gtest/gtest.h>

namespace perfcast::test {
namespace {

// 4 hosts of 1 Gflop/s and one core, 125 MB/s and 50 us per link.
const char* kCluster = R"(<platform version="4.1">
  <cluster id="c" prefix="n" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/></platform>)";

// The trace of VpReplay.OneMigrationCostsLatencyPlusBytesOverBandwidth: four
// VPs compute, reach one migration point (1.25 MB), compute again.
struct LbReplayFiles {
  TempDir dir;
  std::string platform = dir.file("c.xml", kCluster);
  std::string trace;

  explicit LbReplayFiles(bool migrate = true)
  {
    const char* flops[] = {"1e9", "3e8", "6e8", "2e8"};
    std::string index;
    for (int v = 0; v < 4; ++v) {
      std::string r = std::to_string(v);
      std::string body = r + " init\n" + r + " compute " + flops[v] + "\n" +
                         (migrate ? r + " migrate 1250000\n" : "") + r + " compute " + flops[v] + "\n" + r +
                         " finalize\n";
      dir.file("rank" + r + ".txt", body);
      index += "rank" + r + ".txt\n";
    }
    trace = dir.file("trace.txt", index);
  }

  CommandResult run(const std::string& flags)
  {
    return run_perfcast("lb replay " + trace + " -p " + platform + " " + flags);
  }
};

} // namespace

TEST(LbReplayCli, JsonComparesWithAndWithoutBalancing)
{
  // Derived in VpReplay.OneMigrationCostsLatencyPlusBytesOverBandwidth and
  // VpReplay.WithoutBalancingAVpKeepsItsCoreAcrossMigrationPoints: 2.7101 s
  // with greedy at every migration point (one 1.25 MB migration of 0.0101 s),
  // 3.2 s without.
  LbReplayFiles f;
  auto r = f.run("--cores 2 --mapping round-robin --net loggp --balancer greedy --period 1 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_DOUBLE_EQ(j["makespan_s"].get<double>(), 2.7101);
  EXPECT_DOUBLE_EQ(j["makespan_without_balancing_s"].get<double>(), 3.2);
  EXPECT_EQ(j["migrations"], 1);
  EXPECT_EQ(j["bytes_migrated"], 1250000);
  EXPECT_NEAR(j["balancing_s"].get<double>(), 0.0101, 1e-12);
  EXPECT_EQ(j["final_core"], nlohmann::json({0, 1, 1, 1}));
  EXPECT_EQ(j["vps"], 4);
  EXPECT_EQ(j["cores"], 2);
}

TEST(LbReplayCli, VpStackAddsToEveryMigration)
{
  // As above with a 0.25 MiB stack: the one migration carries 1250000 +
  // 262144 = 1512144 bytes, 100e-6 + 1512144 / 1.25e8 = 0.01219715 s.
  LbReplayFiles f;
  auto r = f.run("--cores 2 --mapping round-robin --net loggp --balancer greedy --period 1 --vp-stack 0.25MiB --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["bytes_migrated"], 1512144);
  EXPECT_NEAR(j["balancing_s"].get<double>(), 100e-6 + 1512144 / 1.25e8, 1e-12);
  EXPECT_DOUBLE_EQ(j["makespan_without_balancing_s"].get<double>(), 3.2);
  auto bad = f.run("--cores 2 --vp-stack lots");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--vp-stack lots: expected a size in bytes"), std::string::npos) << bad.output;
}

TEST(LbReplayCli, StepAndMigrationCostsLengthenTheBalancingStep)
{
  // As above: one migration (core 0 -> core 1), so each core packs or unpacks
  // one VP; the step lasts 2 ms + 10 ms + the 0.0101 s transfer. The trace
  // has no messages, so --message-cpu changes nothing here.
  LbReplayFiles f;
  auto r = f.run("--cores 2 --mapping round-robin --net loggp --balancer greedy --period 1 --step-cost 2ms "
                 "--migration-cost 0.01 --message-cpu 20us --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_NEAR(j["balancing_s"].get<double>(), 0.002 + 0.010 + 0.0101, 1e-12);
  EXPECT_DOUBLE_EQ(j["makespan_without_balancing_s"].get<double>(), 3.2);
  for (const char* option : {"--message-cpu", "--migration-cost", "--step-cost"}) {
    auto bad = f.run(std::string("--cores 2 ") + option + " -1ms");
    EXPECT_NE(bad.status, 0) << option;
    EXPECT_NE(bad.output.find(std::string(option) + " -1ms: expected a duration of 0 or more"), std::string::npos)
        << bad.output;
  }
}

TEST(LbReplayCli, TableShowsMakespansAndMigrations)
{
  LbReplayFiles f;
  auto r = f.run("--cores 2 --mapping round-robin --net loggp --balancer greedy --period 1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("makespan without balancing:     3.200000 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("makespan with balancing:        2.710100 s   (speedup 1.181)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("balancing steps: 1, migrations: 1 (1250000 bytes)"), std::string::npos) << r.output;
}

TEST(LbReplayCli, WritesTheHeatmapAndTheLoadCurve)
{
  LbReplayFiles f;
  std::string heat = f.dir.path() + "/heat.svg", curve = f.dir.path() + "/curve.svg";
  auto r = f.run("--cores 2 --net loggp --period 1 --heatmap " + heat + " --load-curve " + curve);
  ASSERT_EQ(r.status, 0) << r.output;
  std::string h = read_text(heat), c = read_text(curve);
  EXPECT_NE(h.find("generator: perfcast"), std::string::npos);
  EXPECT_NE(h.find(">no balancing<"), std::string::npos);
  EXPECT_NE(h.find(">greedy every 1 migration points<"), std::string::npos);
  EXPECT_NE(c.find("Average load of the cores over time"), std::string::npos);
  EXPECT_NE(c.find("stroke-width=\"2\""), std::string::npos); // the curves
}

TEST(LbReplayCli, BadInputIsAClearError)
{
  LbReplayFiles f;
  auto unknown = f.run("--cores 2 --balancer greedyy");
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.output.find("--balancer"), std::string::npos) << unknown.output;
  auto too_many = f.run("--cores 5");
  EXPECT_NE(too_many.status, 0);
  EXPECT_NE(too_many.output.find("5 cores for 4 VPs"), std::string::npos) << too_many.output;
  std::string map = f.dir.file("map.txt", "0\n1\nx\n1\n");
  auto bad_map = f.run("--cores 2 --mapping " + map);
  EXPECT_NE(bad_map.status, 0);
  EXPECT_NE(bad_map.output.find("map.txt:3: 'x' is not a core"), std::string::npos) << bad_map.output;
  LbReplayFiles plain(false);
  auto no_points = plain.run("--cores 2 --period 2");
  EXPECT_NE(no_points.status, 0);
  EXPECT_NE(no_points.output.find(".txt: no 'migrate' action in this rank's trace"), std::string::npos) << no_points.output;
}

} // namespace perfcast::test
