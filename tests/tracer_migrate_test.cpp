// Migration points in traces: AMPI_Migrate and MPI_Migrate (C and Fortran),
// the no-op library that lets such programs run without the tracer, and
// `perfcast trace --iteration-at CALL` for programs that cannot be changed.
#include "trace/Tracing.hpp"
#include "TestUtil.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace perfcast;
using test::kMpiEnv;

namespace {

#ifdef PERFCAST_AMPI_LIB
// compiler flags that link libperfcast_ampi.so (and find it at run time)
std::string ampi_flags()
{
  std::string dir = std::filesystem::path(PERFCAST_AMPI_LIB).parent_path().string();
  return fmt::format("-I{}/tools/ampi -L{} -lperfcast_ampi -Wl,-rpath,{}", test::source_dir(), dir, dir);
}
#endif

std::string build(const test::TempDir& dir, const std::string& source, const std::string& compiler,
                  const std::string& flags)
{
  std::string exe = dir.path() + "/" + std::filesystem::path(source).stem().string();
  auto c = test::run_command(fmt::format("{} -O2 -o {} {} {}", compiler, exe, source, flags));
  EXPECT_EQ(c.status, 0) << c.output;
  return exe;
}

#ifdef PERFCAST_AMPI_LIB
// Builds SOURCE against libperfcast_ampi.so, runs it on 2 ranks without the
// tracer (its migration calls are no-ops then) and traced; returns the trace
// directory.
std::string trace_migrate_app(const test::TempDir& dir, const std::string& source, const std::string& compiler)
{
  std::string app = build(dir, test::source_dir() + "/tests/apps/" + source, compiler, ampi_flags());
  auto plain = test::run_command(fmt::format("{} mpirun -np 2 {}", kMpiEnv, app));
  EXPECT_EQ(plain.status, 0) << plain.output;
  std::string out = dir.path() + "/trace";
  auto r = test::run_command(fmt::format("{} {} trace -o {} -- mpirun -np 2 {}", kMpiEnv, test::perfcast_binary(),
                                         out, app));
  EXPECT_EQ(r.status, 0) << r.output;
  return out;
}
#endif

// the actions of a rank's trace, one line each, without comments
std::vector<std::string> actions(const std::string& file)
{
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#')
      out.push_back(line);
  return out;
}

std::vector<long long> migrate_bytes(const std::string& file)
{
  std::vector<long long> out;
  for (const std::string& line : actions(file)) {
    std::istringstream w(line);
    std::string rank, action;
    long long bytes = -1;
    if (w >> rank >> action && action == "migrate" && w >> bytes)
      out.push_back(bytes);
  }
  return out;
}

} // namespace

using TracerMigrate = test::TracerTest;

TEST_F(TracerMigrate, AmpiAndMpiMigrateRecordTheHeapInUseAtEachPoint)
{
#ifndef PERFCAST_AMPI_LIB
  GTEST_SKIP() << "libperfcast_ampi.so was not built";
#else
  test::TempDir dir;
  std::string out = trace_migrate_app(dir, "migrate_points.c", "mpicc");
  ASSERT_FALSE(testing::Test::HasFailure());
  for (int rank = 0; rank < 2; ++rank) {
    auto b = migrate_bytes(fmt::format("{}/rank-{}.txt", out, rank));
    ASSERT_EQ(b.size(), 3u) << rank;
    // malloc(8 MiB) is served by mmap: 8 MiB plus its 16-byte header rounded up to a 4 KiB page
    EXPECT_GE(b[1] - b[0], 8 << 20) << rank;
    EXPECT_LE(b[1] - b[0], (8 << 20) + 8192) << rank;
    // free() unmaps it: back to the first point's heap
    EXPECT_LE(std::llabs(b[2] - b[0]), 4096) << rank;
  }
  auto profile = read_run_profile(out);
  EXPECT_EQ(profile.ranks[0].calls["AMPI_Migrate"].first, 2u);
  EXPECT_EQ(profile.ranks[0].calls["MPI_Migrate"].first, 1u);
  // the replay reads the migrate lines (and passes over them)
  auto replay = test::run_perfcast(fmt::format("replay {} --platform {}/examples/platforms/hetero8.json -q", out,
                                               test::source_dir()));
  EXPECT_EQ(replay.status, 0) << replay.output;
#endif
}

TEST_F(TracerMigrate, FortranCallsAreMigrationPointsToo)
{
#ifndef PERFCAST_AMPI_LIB
  GTEST_SKIP() << "libperfcast_ampi.so was not built";
#else
  if (!test::have_command("mpifort"))
    GTEST_SKIP() << "no mpifort (Debian package gfortran)";
  test::TempDir dir;
  std::string out = trace_migrate_app(dir, "migrate_points.f90", "mpifort");
  ASSERT_FALSE(testing::Test::HasFailure());
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_EQ(migrate_bytes(fmt::format("{}/rank-{}.txt", out, rank)).size(), 2u) << rank;
#endif
}

TEST_F(TracerMigrate, IterationAtMarksAPointAfterEveryCallOfTheNamedFunction)
{
  test::TempDir dir;
  std::string app = build(dir, test::source_dir() + "/examples/apps/stencil2d.c", "mpicc", "");
  std::string out = dir.path() + "/trace";
  // stencil2d: one allreduce per iteration, 5 iterations
  auto r = test::run_command(fmt::format("{} {} trace -o {} --iteration-at MPI_Allreduce -- mpirun -np 4 {} 5 32",
                                         kMpiEnv, test::perfcast_binary(), out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  for (int rank = 0; rank < 4; ++rank) {
    auto lines = actions(fmt::format("{}/rank-{}.txt", out, rank));
    int points = 0;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].find(" migrate ") != std::string::npos) {
        ++points;
        ASSERT_GT(i, 0u);
        EXPECT_NE(lines[i - 1].find(" allreduce "), std::string::npos) << "rank " << rank << ": " << lines[i - 1];
      }
    EXPECT_EQ(points, 5) << rank;
  }
  // aggregating needs those points: 4 ranks into 2
  auto ag = test::run_perfcast(fmt::format("aggregate {} -o {}/coarse --ranks 2", out, dir.path()));
  EXPECT_EQ(ag.status, 0) << ag.output;
  EXPECT_NE(ag.output.find("(5 iterations)"), std::string::npos) << ag.output;
}

TEST(TracerMigrateCli, IterationAtNeedsAnMpiFunctionName)
{
  auto r = test::run_perfcast("trace -o /tmp/never-written --iteration-at Allreduce -- true");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--iteration-at Allreduce: expected the name of an MPI function"), std::string::npos)
      << r.output;
}
