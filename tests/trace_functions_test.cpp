// perfcast trace --functions: the sampling profiler preloaded beside the
// tracer records each rank's functions, and perfcast profile reports them.
// The program is tests/apps/two_loops.c built as an MPI program: heavy()
// does 3 times light()'s work with the same loop body, so of the two loops'
// time heavy() holds 75% and light() 25%.
#include "TestUtil.hpp"

#include <filesystem>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

class TraceFunctions : public test::TracerTest {};

} // namespace

TEST_F(TraceFunctions, TwoLoopsSharesWithinThreePointsAndMpiTimeReported) {
#ifndef PERFCAST_TWO_LOOPS_MPI
  GTEST_SKIP() << "the MPI build of two_loops.c was not made (no MPI at configure time)";
#else
  test::TempDir dir;
  const std::string out = dir.path() + "/t";
  // At 1000 Hz (the default is 100) for enough samples to hold 3 points, as in
  // Profiler.TwoLoopsWithThreeToOneWorkShowThreeToOneShares.
  auto r = test::run_command(fmt::format("PERFCAST_PROFILE_HZ=1000 {} {} trace --functions -o {} -- mpirun -np 2 {} 600000000",
                                         test::kMpiEnv, test::perfcast_binary(), out, PERFCAST_TWO_LOOPS_MPI));
  ASSERT_EQ(r.status, 0) << r.output;
  for (int rank : {0, 1}) {
    EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/rank-{}.functions.json", out, rank))) << r.output;
    EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/rank-{}.txt", out, rank))) << r.output;
  }
  for (const auto& e : std::filesystem::directory_iterator(out))
    EXPECT_NE(e.path().filename().string().rfind("sampler-", 0), 0u) << "raw sampler file left: " << e.path();
  const auto p = test::run_perfcast("profile " + out + " --json");
  ASSERT_EQ(p.status, 0) << p.output;
  const auto j = nlohmann::json::parse(p.output.substr(p.output.find('{')));
  ASSERT_TRUE(j.contains("functions")) << p.output;
  const auto& f = j["functions"];
  EXPECT_EQ(f["ranks"], 2);
  double heavy = -1, light = -1;
  for (const auto& line : f["top"]) {
    if (line["name"] == "heavy") heavy = line["inclusive_s"];
    if (line["name"] == "light") light = line["inclusive_s"];
    EXPECT_LE(line["exclusive_share"].get<double>(), line["inclusive_share"].get<double>() + 1e-12) << line.dump();
  }
  ASSERT_GT(heavy, 0) << f.dump(1);
  ASSERT_GT(light, 0) << f.dump(1);
  EXPECT_NEAR(heavy / (heavy + light), 0.75, 0.03) << f.dump(1);
  // The ranks meet in MPI_Allreduce after every round: its time is reported
  // as a call, and no more than the whole run.
  bool allreduce = false;
  for (const auto& c : f["mpi_calls"]) allreduce = allreduce || c["name"] == "MPI_Allreduce";
  EXPECT_TRUE(allreduce) << f.dump(1);
  EXPECT_LE(f["mpi_share"].get<double>(), 1.0);
  // The text report names the functions too.
  const auto text = test::run_perfcast("profile " + out);
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_NE(text.output.find("heavy"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("time in MPI calls"), std::string::npos) << text.output;
#endif
}
