// perfcast schedule as a user runs it: results, JSON, and bad input named.
#include "TestUtil.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace perfcast;

namespace {

const char* kPlatform = R"({"format": "perfcast-platform", "version": 1, "clusters": [{"name": "pair",
  "bandwidth": "1Gbps", "latency": "20us", "nodes": [{"names": ["c1", "c2"], "speed": "1Gf", "cores": 1,
  "memory": "1GB", "virtual_memory": "1GB", "disk_write": "50MBps", "message_overhead": "10us",
  "message_latency": "20us"}]}]})";

} // namespace

TEST(ScheduleCli, TwoProcessesOnTwoComputers)
{
  // round-robin: one process per computer, each 2e9 instructions at 1e9/s then
  // a 50 MB write at 50 MB/s: 3 s each, nobody waits
  test::TempDir dir;
  std::string platform = dir.file("p.json", kPlatform);
  std::string workload = dir.file("w.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"id": 0, "arrival_s": 0, "memory_mb": 10, "stages": [["cpu", 2e9], ["write", 50e6]]},
    {"id": 1, "arrival_s": 0, "memory_mb": 10, "stages": [["cpu", 2e9], ["write", 50e6]]}]})");
  auto r = test::run_perfcast("schedule -p " + platform + " -w " + workload + " --policy round-robin --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_NEAR(j["response_s"]["mean"].get<double>(), 3.0, 1e-9);
  EXPECT_NEAR(j["waiting_s"]["max"].get<double>(), 0.0, 1e-9);
  EXPECT_EQ(j["per_process"][1]["computer"], "c2");
}

TEST(ScheduleCli, BadInputIsNamed)
{
  test::TempDir dir;
  std::string platform = dir.file("p.json", kPlatform);
  std::string big = dir.file("big.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"id": 4, "memory_mb": 5000, "stages": [["cpu", 1e9]]}]})");
  auto r = test::run_perfcast("schedule -p " + platform + " -w " + big);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("big.json: process 4 needs 5000 MB, more than any computer's"), std::string::npos)
      << r.output;
  std::string reads = dir.file("reads.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"stages": [["read", 1e6]]}]})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + reads);
  EXPECT_NE(r.output.find("host 'c1' has no disk_read figure"), std::string::npos) << r.output;
  r = test::run_perfcast("schedule -p " + platform + " -w " + reads + " --policy fastest");
  EXPECT_NE(r.output.find("policy 'fastest': unknown"), std::string::npos) << r.output;
  std::string bad_dist = dir.file("gen.json", R"({"format": "perfcast-workload", "version": 1,
    "generate": {"count": 10, "arrival": "exp:mean=-2"}})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + bad_dist);
  EXPECT_NE(r.output.find("gen.json: generate.arrival: distribution 'exp:mean=-2': invalid parameters"),
            std::string::npos)
      << r.output;
  std::string bad_stage = dir.file("stage.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"stages": [["compute", 1e6]]}]})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + bad_stage);
  EXPECT_NE(r.output.find("processes[0].stages[0]: unknown stage 'compute'"), std::string::npos) << r.output;
}
