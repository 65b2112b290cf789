// End-to-end tests of the comm pass, runtime and `perfcast comm run`: small
// programs built with perfcast-cc (tests/apps/comm/), their value graphs and
// estimates against volumes derived by hand. They skip without LLVM 19.
#include "TestUtil.hpp"

#include <filesystem>
#include <fstream>

namespace perfcast::test {
namespace {

#ifdef PERFCAST_COMM_CC
constexpr const char* kCommCc = PERFCAST_COMM_CC;
constexpr const char* kCommCxx = PERFCAST_COMM_CXX;
constexpr const char* kCommFortran = PERFCAST_COMM_FORTRAN;
#else
constexpr const char* kCommCc = nullptr;
constexpr const char* kCommCxx = nullptr;
constexpr const char* kCommFortran = nullptr;
#endif

#define REQUIRE_COMMPASS()                                                                                            \
  if (!kCommCc)                                                                                                      \
  GTEST_SKIP() << "perfcast was built without LLVM 19 (clang-19, llvm-19-dev): no comm pass"

// Builds SOURCE (a path in the source tree) with a perfcast wrapper into dir/OUT; returns the binary.
std::string build_source(const TempDir& dir, const std::string& source, const std::string& out_name,
                         const char* wrapper = kCommCc)
{
  std::string out = dir.path() + "/" + out_name;
  CommandResult r = run_command(fmt::format("{} -O2 {}/{} -o {}", wrapper, source_dir(), source, out));
  EXPECT_EQ(r.status, 0) << r.output;
  return out;
}

// Builds tests/apps/comm/NAME with a perfcast wrapper into dir; returns the binary.
std::string build(const TempDir& dir, const std::string& name, const char* wrapper = kCommCc)
{
  return build_source(dir, "tests/apps/comm/" + name, name.substr(0, name.find('.')), wrapper);
}

nlohmann::json comm_json(const std::string& dir)
{
  return nlohmann::json::parse(read_text(dir + "/comm.json"));
}

TEST(CommPass, RegisterOnlyReductionIsAnAllreduce)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build(t, "norm.c");
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run --procs 4 --region iterate -o {} -- {} 1000 3", out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = comm_json(out);
  EXPECT_EQ(j["iterations"], 3);
  EXPECT_EQ(j["singletons"]["allreduces"], 1);
  EXPECT_EQ(j["singletons"]["broadcasts"], 0);
  const auto& e = j["estimates"][0];
  // the norm is computed 3 times (once per call) and each value is read by
  // all elements: 3 allreduces of 8 bytes, counted 2 (P-1) times:
  // 3 * 2 * 3 * 8 = 144; the elements never read each other: no messages
  EXPECT_EQ(e["collective_bytes"], 144);
  EXPECT_EQ(e["p2p_bytes"], 0);
  EXPECT_EQ(j["analysis"]["lost_flows"], 0);
}

TEST(CommPass, ParameterReadEverywhereIsABroadcast)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build(t, "param.c");
  std::string out = t.path() + "/out";
  CommandResult r =
      run_perfcast(fmt::format("comm run --procs 4 --region sweep -o {} -- {} 0.25 400 4", out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = comm_json(out);
  EXPECT_EQ(j["singletons"]["broadcasts"], 1);
  EXPECT_EQ(j["singletons"]["allreduces"], 0);
  const auto& e = j["estimates"][0];
  // alpha is written once before the loop and read in every call: one
  // broadcast of 8 bytes to the 3 other processes
  EXPECT_EQ(e["collective_bytes"], 3 * 8);
  // a 1-D chain over 4 processes has 3 cuts, each crossed by 2 values per
  // call: 3 * 2 * 8 * 4 calls = 192 bytes at best
  EXPECT_GE(e["p2p_bytes"].get<double>(), 192);
  EXPECT_LE(e["p2p_bytes"].get<double>(), 1.5 * 192);
}

TEST(CommPass, HeatDiffusionHaloOverTwoProcesses)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build_source(t, "examples/comm/heat2d/heat2d_seq.c", "heat");
  ASSERT_FALSE(HasFailure());
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run --procs 2 --region step -o {} -- {} 32 10", out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = comm_json(out);
  ASSERT_EQ(j["iterations"], 10);
  // the figures are written beside comm.json, the matrix for the largest count
  for (const char* figure : {"bytes.svg", "matrix.svg"}) {
    std::string svg = read_text(out + "/" + figure);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << figure;
    EXPECT_NE(svg.find("</svg>"), std::string::npos) << figure;
  }
  EXPECT_NE(read_text(out + "/matrix.svg").find("2 processes"), std::string::npos);
  // two halves of a 32 x 32 grid: one cut line, 32 values each way per step,
  // 2 * 32 * 8 = 512 bytes per step at best
  double per_step = j["estimates"][0]["p2p_bytes"].get<double>() / 10;
  EXPECT_GE(per_step, 512);
  EXPECT_LE(per_step, 1.1 * 512);
  EXPECT_EQ(j["singletons"]["allreduces"], 0);
}

TEST(CommPass, MemsetSumsAreConstantsNotNewInputs)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build(t, "scatter.c");
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run --procs 2 --region sweep -o {} -- {} 100 5", out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json a = comm_json(out)["analysis"];
  // memset writes zeros: reading them is no value, so nothing is an input
  // and the graph keeps one vertex per location, x[0..99] and f[0..100],
  // with x[e] -> f[e], f[e + 1] and f[i], f[i + 1] -> x[i]: 4 * 100 edges
  // (reading a memset location as a new input made 101 more vertices a call)
  EXPECT_EQ(a["inputs"], 0);
  EXPECT_EQ(a["vertices"], 201);
  EXPECT_EQ(a["edges"], 400);
}

TEST(CommPass, WrapperKeepsVectorisationOffWhenTheUserPassesO2)
{
  REQUIRE_COMMPASS();
  // the user's -O2 came after the wrapper's -fno-vectorize and turned the
  // vectoriser back on: neighbouring elements then shared all their sources
  CommandResult r = run_command(
      fmt::format("{} -O2 -S -emit-llvm -o - {}/examples/comm/heat2d/heat2d_seq.c", kCommCc, source_dir()));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("__pc_store"), std::string::npos);
  EXPECT_EQ(r.output.find("x double>"), std::string::npos);
}

// Builds a relaxation (tests/apps/comm/NAME) with a wrapper, analyses its six
// calls of relax on 2 processes and returns the estimated point-to-point bytes.
double relaxation_p2p_bytes(const std::string& name, const char* wrapper)
{
  TempDir t;
  std::string app = build(t, name, wrapper);
  EXPECT_TRUE(std::filesystem::exists(app));
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run --procs 2 --region relax -o {} -- {}", out, app));
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.status != 0)
    return -1;
  nlohmann::json j = comm_json(out);
  EXPECT_EQ(j["iterations"], 6);
  return j["estimates"][0]["p2p_bytes"].get<double>();
}

TEST(CommPass, FortranRegionIsFound)
{
  REQUIRE_COMMPASS();
  if (!std::filesystem::exists("/usr/lib/llvm-19/bin/flang-new"))
    GTEST_SKIP() << "flang-19 is not installed";
  // one cut of a 1-D chain: 2 values per call, 8 bytes, 6 calls = 96 at best
  const double bytes = relaxation_p2p_bytes("relax.f90", kCommFortran);
  EXPECT_GE(bytes, 96);
  EXPECT_LE(bytes, 2 * 96);
}

// perfcast-c++ called /usr/bin/clang-19++, which Debian does not install
// (its C++ driver is clang++-19): no C++ code could be built for the analysis
TEST(CommPass, CxxWrapperFindsDebiansClangAndItsRegion)
{
  REQUIRE_COMMPASS();
  // one cut of a 1-D chain of three-point means: 2 values of 8 bytes cross it
  // per call; the first call reads values made before the region, which come
  // with the data rather than as messages: 5 calls x 16 = 80 at best
  const double bytes = relaxation_p2p_bytes("relax.cpp", kCommCxx);
  EXPECT_GE(bytes, 80);
  EXPECT_LE(bytes, 2 * 96);
}

TEST(CommPass, FailingProgramWritesNothing)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build(t, "fails.c");
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run -o {} -- {}", out, app));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("exited with status 3"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run_perfcast(fmt::format("comm run -o {} -- {} crash", out, app));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("killed by signal 11"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CommPass, BadRegionUninstrumentedProgramAndMemoryLimitAreErrors)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build(t, "param.c");
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run --region nosuch -o {} -- {} 0.25 100 2", out, app));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--region nosuch: no instrumented function"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run_perfcast(fmt::format("comm run -o {} -- /bin/true", out));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("wrote no value graph"), std::string::npos) << r.output;
  r = run_perfcast(fmt::format("comm run --memory-limit 1MiB -o {} -- {} 0.25 100000 2", out, app));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("memory-limit"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  // a heatmap for a count not estimated, before anything runs
  r = run_perfcast(fmt::format("comm run --procs 2,4 --heatmap-procs 8 -o {} -- {} 0.25 10 2", out, app));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--heatmap-procs 8: expected one of the --procs counts"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  // more processes than values
  r = run_perfcast(fmt::format("comm run --procs 64 --region sweep -o {} -- {} 0.25 10 2", out, app));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("more processes than"), std::string::npos) << r.output;
}

TEST(CommPass, PlainRunOfTheSameBinaryGivesTheCostOfAValue)
{
  REQUIRE_COMMPASS();
  TempDir t;
  std::string app = build_source(t, "examples/comm/heat2d/heat2d_seq.c", "heat");
  ASSERT_FALSE(HasFailure());
  // the plain copy computes what the instrumented code does, and writes times, not a graph
  CommandResult plain = run_command(fmt::format("{} 32 10", app));
  CommandResult copy = run_command(
      fmt::format("env PERFCAST_COMM_PLAIN=1 PERFCAST_COMM_OUT={0}/times PERFCAST_COMM_REGION=step {1} 32 10", t.path(), app));
  ASSERT_EQ(copy.status, 0) << copy.output;
  EXPECT_EQ(copy.output, plain.output);
  EXPECT_EQ(read_text(t.path() + "/times").rfind("perfcast-comm-plain 1\nregion_calls 10\n", 0), 0u)
      << read_text(t.path() + "/times");
  // with the core's rate given, the cost of a value is the region's CPU seconds times it over the values
  std::string out = t.path() + "/out";
  CommandResult r = run_perfcast(fmt::format("comm run --procs 2 --region step -o {} -- env PERFCAST_FLOP_RATE=2e9 {} 32 10", out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json j = comm_json(out);
  const nlohmann::json& p = j["plain"];
  EXPECT_EQ(p["flop_rate"].get<double>(), 2e9);
  EXPECT_GT(p["region_cpu_seconds"].get<double>(), 0);
  EXPECT_LE(p["region_cpu_seconds"].get<double>(), p["cpu_seconds"].get<double>());
  // 32 x 32 cells, 10 steps: 10240 values computed in the region
  EXPECT_NEAR(p["flops_per_value"].get<double>(), p["region_cpu_seconds"].get<double>() * 2e9 / 10240, 1e-9);
  // comm synth uses it when --flops-per-value is not given
  r = run_perfcast(fmt::format("comm synth {} --procs 2 -o {}/synth", out, t.path()));
  EXPECT_EQ(r.status, 0) << r.output;
  // into a missing parent it created the whole chain; now it refuses and makes nothing
  r = run_perfcast(fmt::format("comm synth {} --procs 2 -o {}/missing/synth", out, t.path()));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("does not exist (expected an existing directory)"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/missing"));
  nlohmann::json no_rate = j;
  no_rate.erase("plain");
  {
    std::ofstream f(out + "/comm.json");
    f << no_rate.dump();
  }
  r = run_perfcast(fmt::format("comm synth {} --procs 2 -o {}/synth2", out, t.path()));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("expected plain.flops_per_value"), std::string::npos) << r.output;
}

} // namespace
} // namespace perfcast::test
