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
  // a request size belongs to reads and writes only, and is above 0
  std::string cpu_request = dir.file("request.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"stages": [["write", 1e6, 65536], ["cpu", 1e6, 4096]]}]})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + cpu_request);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("processes[0].stages[1]: expected a request size only on a read or write stage"),
            std::string::npos)
      << r.output;
  std::string zero_request = dir.file("zero.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"stages": [["write", 1e6, 0]]}]})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + zero_request);
  EXPECT_NE(r.output.find("processes[0].stages[0][2]: expected a request size above 0 bytes"), std::string::npos)
      << r.output;
}

namespace {

const char* kFourCores = R"({"format": "perfcast-platform", "version": 1, "clusters": [{"name": "q",
  "bandwidth": "1Gbps", "latency": "20us", "nodes": [{"prefix": "n", "count": 2, "speed": "1Gf", "cores": 2,
  "memory": "1GB", "virtual_memory": "1GB", "disk_read": "100MBps", "disk_write": "50MBps"}]}]})";

// the hand-made log of batch_sim_test.cpp in SWF: A 2 cores [0, 10), B 3
// cores from 1, C 4 cores from 2, D 1 core for 20 s from 3, E 1 core for 5 s from 4
const char* kLog = "; Version: 2.2\n; MaxProcs: 4\n"
                   "1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n"
                   "2 1 -1 10 3 -1 -1 3 10 -1 1 1 1 -1 1 -1 -1 -1\n"
                   "3 2 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n"
                   "4 3 -1 20 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"
                   "5 4 -1 5 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1\n"
                   "6 4 -1 -1 1 -1 -1 1 5 -1 0 1 1 -1 1 -1 -1 -1\n";

} // namespace

TEST(ScheduleCli, SwfLogUnderEasyBackfilling)
{
  // EASY: A 0-10, B 10-20, C 23-33, D 3-23, E 4-9 (derived in batch_sim_test);
  // job 6 has no run time and is left out. Waits 0, 9, 21, 0, 0: mean 6
  test::TempDir dir;
  std::string platform = dir.file("p.json", kFourCores), log = dir.file("log.swf", kLog);
  auto r = test::run_perfcast("schedule -p " + platform + " -w " + log + " --policy easy --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["jobs"], 5);
  EXPECT_EQ(j["skipped_unknown_run_time"], 1);
  EXPECT_NEAR(j["waiting_s"]["mean"].get<double>(), 6.0, 1e-9);
  EXPECT_NEAR(j["makespan_s"].get<double>(), 33.0, 1e-9);
  EXPECT_EQ(j["per_job"][2]["start_s"], 23.0);
  // conservative: D waits until 30 (mean wait (0 + 9 + 18 + 27 + 0) / 5 = 10.8)
  r = test::run_perfcast("schedule -p " + platform + " -w " + log + " --policy conservative --json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NEAR(nlohmann::json::parse(r.output)["waiting_s"]["mean"].get<double>(), 10.8, 1e-9);
}

TEST(ScheduleCli, SidecarAndUtilisationPlot)
{
  // FCFS with a sidecar: job 1 computes 5e9 instructions at 1e9/s, 5 s
  // instead of its logged 10, so B starts at 5 and C at 15; D and E start
  // when C ends at 25. E's 5 s plus a 100 MB write at 50 MB/s (2 s) pass its
  // 5 s request: it is ended at 30.
  test::TempDir dir;
  std::string platform = dir.file("p.json", kFourCores), log = dir.file("log.swf", kLog);
  std::string sidecar = dir.file("side.json", R"({"format": "perfcast-swf-sidecar", "version": 1, "jobs": {
    "5": {"write_bytes": 100e6}, "1": {"instructions": 5e9}}})");
  std::string svg = dir.path() + "/util.svg";
  auto r = test::run_perfcast("schedule -p " + platform + " -w " + log + " --policy fcfs --sidecar " + sidecar +
                              " --utilisation " + svg + " --json");
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["per_job"][0]["finish_s"], 5.0);
  EXPECT_EQ(j["per_job"][1]["start_s"], 5.0);
  EXPECT_EQ(j["per_job"][4]["start_s"], 25.0);
  EXPECT_EQ(j["per_job"][4]["finish_s"], 30.0);
  std::string plot = test::read_text(svg);
  EXPECT_NE(plot.find("<svg"), std::string::npos);
  EXPECT_NE(plot.find("all cores"), std::string::npos);
  EXPECT_NE(plot.find("n0"), std::string::npos);
  std::string bad = dir.file("bad.json", R"({"format": "perfcast-swf-sidecar", "version": 1, "jobs": {
    "77": {"memory_mb": 1}}})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + log + " --policy fcfs --sidecar " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad.json: jobs.77: no job 77 in the workload"), std::string::npos) << r.output;
}

TEST(ScheduleCli, PolicyAndWorkloadKindsMustMatch)
{
  test::TempDir dir;
  std::string platform = dir.file("p.json", kFourCores), log = dir.file("log.swf", kLog);
  std::string procs = dir.file("w.json", R"({"format": "perfcast-workload", "version": 1, "processes": [
    {"stages": [["cpu", 1e9]]}]})");
  auto r = test::run_perfcast("schedule -p " + platform + " -w " + procs + " --policy easy");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("w.json: holds processes, and policy 'easy' schedules rigid parallel jobs"),
            std::string::npos)
      << r.output;
  r = test::run_perfcast("schedule -p " + platform + " -w " + log + " --policy lowest");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("log.swf: holds rigid parallel jobs, and policy 'lowest' places processes"),
            std::string::npos)
      << r.output;
  r = test::run_perfcast("schedule -p " + platform + " -w " + log + " --policy backfill");
  EXPECT_NE(r.output.find("policy 'backfill': unknown (expected one of:"), std::string::npos) << r.output;
  r = test::run_perfcast("schedule -p " + platform + " -w " + procs + " --policy lowest:probes=0.5");
  EXPECT_NE(r.output.find("probes must be a whole number"), std::string::npos) << r.output;
}

TEST(ScheduleCli, BadJobsAreNamedWithTheirLine)
{
  test::TempDir dir;
  std::string platform = dir.file("p.json", kFourCores);
  std::string wide = dir.file("wide.swf", "; MaxProcs: 8\n1 0 -1 10 8 -1 -1 8 10 -1 1 1 1 -1 1 -1 -1 -1\n");
  auto r = test::run_perfcast("schedule -p " + platform + " -w " + wide + " --policy fcfs");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("wide.swf:2: job 1 asks for 8 processors, more than the platform's 4 cores"),
            std::string::npos)
      << r.output;
  std::string fields = dir.file("short.swf", "1 0 -1 10 8 -1 -1\n");
  r = test::run_perfcast("schedule -p " + platform + " -w " + fields + " --policy easy");
  EXPECT_NE(r.output.find("short.swf:1: 7 fields (expected the 18 fields"), std::string::npos) << r.output;
  std::string negative = dir.file("neg.swf", "1 0 -1 -4 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
  r = test::run_perfcast("schedule -p " + platform + " -w " + negative + " --policy easy");
  EXPECT_NE(r.output.find("neg.swf:1: negative run time -4"), std::string::npos) << r.output;
  std::string memory = dir.file("mem.json", R"({"format": "perfcast-workload", "version": 1, "jobs": [
    {"id": 3, "procs": 2, "run_s": 5, "memory_mb": 9000}]})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + memory + " --policy easy");
  EXPECT_NE(r.output.find("mem.json: job 3 needs 9000 MB a process, more than any computer's"), std::string::npos)
      << r.output;
  std::string dist = dir.file("dist.json", R"({"format": "perfcast-workload", "version": 1,
    "generate": {"count": 10, "cpu": "weibull:shape=0,scale=1"}})");
  r = test::run_perfcast("schedule -p " + platform + " -w " + dist + " --policy lowest");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("dist.json: generate.cpu: distribution 'weibull:shape=0,scale=1'"), std::string::npos)
      << r.output;
}
