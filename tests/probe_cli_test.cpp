// perfcast probe as a user runs it: a small real probe read back by the
// platform loader and by perfcast schedule, and bad options named.
#include "TestUtil.hpp"
#include "platform/Platform.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <vector>

using namespace perfcast;

TEST(ProbeCli, SmallProbeIsAPlatformThatScheduleReads)
{
  test::TempDir dir;
  std::string out = dir.path() + "/machine.json";
  auto r = test::run_perfcast("probe -o " + out + " --dir " + dir.path() +
                              " --memory-max 24MiB --memory-levels 2 --disk-size 2MiB --min-samples 2 "
                              "--max-samples 3 --min-seconds 0 --json 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  auto figures = nlohmann::json::parse(r.output);
  // every figure has its statistics, within the counts asked for
  for (const auto* f : {&figures["cpu"]["rate_per_s"], &figures["disk"]["write_buffered_Bps"],
                        &figures["messages"]["one_way_s"], &figures["memory_slowdown"]["points"][2]["task_s"]}) {
    EXPECT_GE((*f)["n"].get<long>(), 2) << f->dump();
    EXPECT_LE((*f)["n"].get<long>(), 3) << f->dump();
    double mean = (*f)["mean"].get<double>();
    EXPECT_GT(mean, 0);
    EXPECT_LE((*f)["ci95"][0].get<double>(), mean);
    EXPECT_GE((*f)["ci95"][1].get<double>(), mean);
    // the samples behind the figure, for bench/probe_repeat.sh's drift check
    auto samples = (*f)["samples"].get<std::vector<double>>();
    ASSERT_EQ(static_cast<long>(samples.size()), (*f)["n"].get<long>()) << f->dump();
    double sum = 0;
    for (double x : samples)
      sum += x;
    EXPECT_NEAR(sum / static_cast<double>(samples.size()), mean, 1e-9 * mean) << f->dump();
  }
  EXPECT_EQ(figures["memory_slowdown"]["points"].size(), 3u); // 0, 12 and 24 MiB held
  EXPECT_NEAR(figures["memory_slowdown"]["probed_range_mb"][1].get<double>(), 24 * 1048576 / 1e6, 1e-9);
  EXPECT_TRUE(figures["memory_slowdown"].contains("linear"));

  Platform p = load_platform(out);
  ASSERT_EQ(p.hosts().size(), 1u);
  const Host& h = p.hosts()[0];
  EXPECT_DOUBLE_EQ(h.speed_flops, figures["cpu"]["rate_per_s"]["mean"].get<double>());
  EXPECT_DOUBLE_EQ(h.memory_bytes, figures["memory_info"]["main_bytes"].get<double>());
  EXPECT_GT(h.disk_read_Bps, 0);
  EXPECT_GT(h.disk_write_Bps, 0);
  EXPECT_GT(h.message_overhead_s, 0);
  // with O_DIRECT, the CPU a disk byte takes from busy cores: sampled in the
  // same rounds, written to the platform (noise below 0 as 0)
  if (figures["disk"].contains("cpu_s_per_byte")) {
    const auto& e = figures["disk"]["cpu_s_per_byte"]["estimate"];
    EXPECT_GE(e["n"].get<long>(), 2) << e.dump();
    EXPECT_DOUBLE_EQ(h.disk_cpu_s_per_byte, std::max(0.0, e["mean"].get<double>()));
    // and the write's own rate in those passes, beside the busy cores
    const auto& b = figures["disk"]["write_direct_busy_Bps"]["estimate"];
    EXPECT_EQ(b["n"].get<long>(), e["n"].get<long>()) << b.dump();
    EXPECT_GT(b["mean"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(h.disk_write_busy_Bps, b["mean"].get<double>());
  } else {
    EXPECT_EQ(h.disk_cpu_s_per_byte, 0);
    EXPECT_EQ(h.disk_write_busy_Bps, 0);
  }
  // no probe file is left behind in --dir
  int left = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    left += e.path().filename().string().rfind(".perfcast-probe-", 0) == 0;
  EXPECT_EQ(left, 0);

  std::string workload = dir.file("w.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"id": 0, "memory_mb": 1, "stages": [["cpu", 1e8], ["write", 1e6], ["message", 32]]}]})");
  auto s = test::run_perfcast("schedule -p " + out + " -w " + workload + " --json");
  ASSERT_EQ(s.status, 0) << s.output;
  // alone: its cpu, its write and one message (2o + l and its 32 bytes over
  // the loopback link, a lone host's interface), each from the probed figures
  double loopback_Bps = p.links()[static_cast<std::size_t>(p.route(0, 0).links.front())].bandwidth_Bps;
  double expect = 1e8 / h.speed_flops * (1 + std::max(0.0, h.memory_slowdown.linear_slope * 1 +
                                                              h.memory_slowdown.linear_intercept)) +
                  1e6 / h.disk_write_Bps + 2 * h.message_overhead_s + h.message_latency_s + 32 / loopback_Bps;
  EXPECT_NEAR(nlohmann::json::parse(s.output)["response_s"]["mean"].get<double>(), expect, 1e-9 * expect);
}

TEST(ProbeCli, BadOptionsAreNamed)
{
  test::TempDir dir;
  std::string out = " -o " + dir.path() + "/m.json";
  struct Case {
    std::string args, expected;
  };
  for (const Case& c : std::vector<Case>{
           {"--rel-error 0", "--rel-error 0: expected a fraction of the mean between 0 and 1"},
           {"--rel-error 1.5", "--rel-error 1.5: expected a fraction"},
           {"--min-samples 1", "--min-samples 1 --max-samples 50: expected 2 <= min <= max"},
           {"--min-samples 9 --max-samples 4", "--min-samples 9 --max-samples 4: expected 2 <= min <= max"},
           {"--memory-max 1PiB", "--memory-max '1PiB': expected a size from 1 MiB to"},
           {"--memory-max lots", "--memory-max 'lots': expected a size"},
           {"--disk-size 5GiB", "--disk-size '5GiB': expected a size from 1 MiB to 1024 MiB"},
           {"--dir /nonexistent/x", "--dir '/nonexistent/x': expected an existing directory"},
           {"--skip cpu", "--skip 'cpu': expected memory, disk or net"},
           {"--memory-levels 1", "--memory-levels 1: expected 2 to 64"},
           {"--min-seconds -1", "--min-seconds -1: expected 0 to 3600"},
           {"--cpu-cores -2", "--cpu-cores -2: expected 1 to 4096, or 0 for every core"},
           {"--net-peer nohost --skip memory,disk", "--net-peer 'nohost': expected HOST:PORT"},
       }) {
    auto r = test::run_perfcast("probe" + out + " " + c.args);
    EXPECT_EQ(r.status, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("error: " + c.expected), std::string::npos) << c.args << "\n" << r.output;
  }
  auto r = test::run_perfcast("probe --json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("expected -o FILE"), std::string::npos) << r.output;
}
