// perfcast replay --net smpi against `smpirun -replay` (SimGrid 3.32) on traces
// recorded here from the example programs: within 1% for point-to-point
// traces and 5% for traces with collectives. bench/agreement_table.sh runs the
// full table (4 to 64 ranks); these are the small cases.
#include "platform/Platform.hpp"
#include "TestUtil.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace perfcast;

namespace {

struct Case {
  const char* name;
  const char* app;
  int ranks;
  const char* platform;
  const char* args;
  double tolerance;
};

void check_case(const Case& c)
{
  if (!test::have_command("smpirun"))
    GTEST_SKIP() << "smpirun is not installed (Debian package libsimgrid-dev): no SimGrid to agree with";
  test::TempDir dir;
  std::string root = test::source_dir();
  std::string platform = root + "/examples/platforms/" + c.platform;
  Platform p = load_platform(platform);
  std::string hosts;
  for (int r = 0; r < c.ranks; ++r)
    hosts += p.hosts()[static_cast<std::size_t>(r) % p.hosts().size()].name + "\n";
  std::string hostfile = dir.file("hostfile", hosts);
  auto rec = test::run_command(fmt::format("{}/scripts/record-trace.sh {}/examples/apps/{} {} {} {} {}/trace {}", root,
                                           root, c.app, c.ranks, platform, hostfile, dir.path(), c.args));
  ASSERT_EQ(rec.status, 0) << rec.output;
  std::string index = dir.path() + "/trace/trace.txt";
  std::string log;
  double simgrid = test::simgrid_makespan(index, c.ranks, platform, hostfile, log);
  ASSERT_GT(simgrid, 0) << "smpirun -replay printed no time: " << log;
  double perfcast =
      test::replay_json(fmt::format("{} --platform {} --hostfile {}", index, platform, hostfile))["makespan_s"].get<double>();
  double error = std::fabs(perfcast - simgrid) / simgrid;
  EXPECT_LE(error, c.tolerance) << c.name << ": perfcast " << perfcast << " s, SimGrid " << simgrid << " s";
  std::cout << fmt::format("[agreement] {}: perfcast {:.6f} s, SimGrid {:.6f} s, error {:.4f}%\n", c.name, perfcast,
                           simgrid, 100 * error);
}

// test names and failure messages show the case's name, not its bytes
[[maybe_unused]] void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class Agreement : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(Agreement, MakespanMatchesSmpirunReplay) { check_case(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    SimGrid, Agreement,
    ::testing::Values(
        Case{"pingpong2_homogeneous", "pingpong.c", 2, "cluster16.xml", "2 1048576", 0.01},
        Case{"stencil4_homogeneous", "stencil2d.c", 4, "cluster16.xml", "20 128 5", 0.01},
        Case{"stencil16_hetero_2_per_host", "stencil2d.c", 16, "hetero8.xml", "10 256 5", 0.01},
        Case{"stencil64_homogeneous_4_per_host", "stencil2d.c", 64, "cluster16.xml", "5 64 5", 0.01},
        Case{"collectives8_hetero", "collectives.c", 8, "hetero8.xml", "3 4096 1e7", 0.05},
        Case{"collectives16_homogeneous_1_per_host", "collectives.c", 16, "cluster16.xml", "3 1024 1e6", 0.05}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });
