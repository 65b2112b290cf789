// perfcast's sampling profiler (tools/profiler) and its reader
// (src/profile): a program with two loops of the same body and a 3:1 work
// ratio must show shares within 3 points of 75% and 25%.
#include "TestUtil.hpp"
#include "core/Error.hpp"
#include "phase/PhaseFinder.hpp"
#include "profile/FunctionProfile.hpp"
#include "profile/Symbolizer.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

profile::FunctionProfile profile_two_loops(const test::TempDir& dir, const std::string& extra_env = "") {
  const std::string cmd = fmt::format("PERFCAST_PROFILE_DIR={} {} LD_PRELOAD={} {} 1000000000 > /dev/null", dir.path(),
                                      extra_env, PERFCAST_PROFILER, PERFCAST_TWO_LOOPS);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto all = profile::read_sampler_dir(dir.path());
  EXPECT_EQ(all.size(), 1u);
  return all.empty() ? profile::FunctionProfile{} : all[0];
}

} // namespace

TEST(Profiler, TwoLoopsWithThreeToOneWorkShowThreeToOneShares) {
  test::TempDir dir;
  // 1000 Hz, not the default 100: the one-second run then gives about 1200
  // samples, so the sampling error (about 1 point) stays well inside the 3
  // points asked; at 100 Hz five runs gave 72.5-77.4%, too near the bound
  // for a test (the attribution, not the rate, is what this checks).
  const profile::FunctionProfile p = profile_two_loops(dir, "PERFCAST_PROFILE_HZ=1000");
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.clock, "own");
  double heavy = 0, light = 0, main_share = 0;
  for (const phase::FunctionShare& f : phase::function_shares(p.names, p.stacks)) {
    if (f.name == "heavy") heavy = f.inclusive;
    if (f.name == "light") light = f.inclusive;
    if (f.name == "main") main_share = f.inclusive;
  }
  ASSERT_GT(heavy + light, 0) << profile::format_top_functions(p, 10);
  // The loops are nearly the whole run; of their time 3/4 is heavy's.
  EXPECT_GT(main_share, 0.95) << profile::format_top_functions(p, 10);
  EXPECT_NEAR(heavy / (heavy + light), 0.75, 0.03) << profile::format_top_functions(p, 10);
  // Static functions are named from the symbol table, under main.
  const phase::PhaseSet phases = phase::find_phases(p.names, p.stacks);
  EXPECT_EQ(phases.phases, (std::vector<std::string>{"heavy"})) << profile::format_top_functions(p, 10);
}

TEST(Profiler, ProfilesSurviveTheirJsonRoundTrip) {
  test::TempDir dir;
  const profile::FunctionProfile p = profile_two_loops(dir, "PERFCAST_PROFILE_HZ=500");
  EXPECT_DOUBLE_EQ(p.hz, 500);
  const auto back = profile::function_profile_from_json(profile::to_json(p), "mem");
  EXPECT_EQ(back.names, p.names);
  ASSERT_EQ(back.stacks.size(), p.stacks.size());
  EXPECT_DOUBLE_EQ(back.seconds(), p.seconds());
  nlohmann::json bad = profile::to_json(p);
  bad["stacks"][0]["frames"][0] = 999999;
  EXPECT_THROW(profile::function_profile_from_json(bad, "bad.json"), Error);
}

TEST(Profiler, WithoutItsDirectoryTheLibraryDoesNothing) {
  test::TempDir dir;
  const std::string cmd = fmt::format("cd {} && LD_PRELOAD={} {} 1000 > /dev/null", dir.path(), PERFCAST_PROFILER,
                                      PERFCAST_TWO_LOOPS);
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Profiler, NamesAreMadeReadable) {
  EXPECT_EQ(profile::readable_name("_Z3fooi"), "foo(int)");
  EXPECT_EQ(profile::readable_name("__solver_MOD_sweep"), "solver::sweep");
  EXPECT_EQ(profile::readable_name("heavy"), "heavy");
}

// Only MPI's own shared libraries are lumped as "[MPI internals]": a program
// whose name says which MPI it was built for (miniMD_openmpi) keeps its
// functions' names.
TEST(Profiler, AProgramNamedAfterItsMpiIsNotMpiInternals) {
  EXPECT_TRUE(profile::is_mpi_library("/usr/lib/x86_64-linux-gnu/libmpi.so.40.30.4"));
  EXPECT_TRUE(profile::is_mpi_library("/usr/lib/x86_64-linux-gnu/libopen-pal.so.40.30.2"));
  EXPECT_TRUE(profile::is_mpi_library("/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_vader.so"));
  EXPECT_TRUE(profile::is_mpi_library("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
  EXPECT_FALSE(profile::is_mpi_library("/work/thirdparty/miniMD/ref/miniMD_openmpi"));
  EXPECT_FALSE(profile::is_mpi_library("/opt/openmpi-apps/bin/solver"));
  EXPECT_FALSE(profile::is_mpi_library("/usr/lib/x86_64-linux-gnu/libblas.so.3"));
}

// A shell script that starts an MPI Fortran program, profiled as `phases
// run` profiles a command: every process of it, launcher included. Open
// MPI's mpirun installs a SIGPROF handler that forwards the signal to its
// ranks; with the sampler's timer still running in mpirun, its ticks reached
// ranks before their own handler was in place and SIGPROF's default action
// ended them (status 155 = 128 + 27). The sampler now stops where the program takes SIGPROF: the run
// ends normally every time, the ranks are profiled, and the launcher's
// profile says it yielded.
TEST(Profiler, ALauncherThatTakesSigprofNeverKillsItsRanks) {
  if (!test::have_command("mpifort") || !test::have_command("mpirun"))
    GTEST_SKIP() << "Open MPI's mpifort and mpirun are not installed (Debian packages libopenmpi-dev, gfortran)";
  test::TempDir dir;
  const std::string exe = dir.path() + "/halo";
  auto r = test::run_command(fmt::format("mpifort -O2 -o {} {}/examples/apps/halo.f90", exe, test::source_dir()));
  ASSERT_EQ(r.status, 0) << r.output;
  // The script that becomes mpirun (exec: here two of three runs died
  // before), then one that waits for it and goes on.
  const std::string execs = dir.path() + "/exec.sh", waits = dir.path() + "/wait.sh";
  std::ofstream(execs) << "#!/bin/sh\necho ran\nexec mpirun -np 2 " << exe << " 20000 512\n";
  std::ofstream(waits) << "#!/bin/sh\nmpirun -np 2 " << exe << " 20000 512\necho ran\n";
  for (const std::string& f : {execs, waits}) std::filesystem::permissions(f, std::filesystem::perms::owner_all);
  for (int run = 0; run < 5; ++run) {
    const std::string& script = run < 4 ? execs : waits;
    const std::string prof = fmt::format("{}/prof{}", dir.path(), run);
    std::filesystem::create_directory(prof);
    r = test::run_command(fmt::format("{} PERFCAST_PROFILE_DIR={} PERFCAST_PROFILE_HZ=1000 LD_PRELOAD={} {}",
                                      test::kMpiEnv, prof, PERFCAST_PROFILER, script));
    ASSERT_EQ(r.status, 0) << "run " << run << ": " << r.output;
    EXPECT_NE(r.output.find("ran"), std::string::npos) << r.output;
    int ranks = 0, yielded = 0;
    for (const profile::FunctionProfile& p : profile::read_sampler_dir(prof)) { // the ranks only
      EXPECT_TRUE(p.complete) << "pid " << p.pid;
      EXPECT_FALSE(p.yielded);
      EXPECT_GT(p.seconds(), 0) << "rank " << p.rank;
      ranks += p.rank >= 0;
    }
    EXPECT_EQ(ranks, 2) << "run " << run;
    for (const auto& e : std::filesystem::directory_iterator(prof))
      if (e.path().extension() == ".meta" &&
          std::filesystem::exists(std::filesystem::path(e.path()).replace_extension(".maps"))) { // not the shell
        const std::string stem = e.path().stem().string();
        const profile::FunctionProfile p = profile::read_sampler_output(prof, std::stol(stem.substr(8)));
        yielded += p.rank < 0 && p.yielded;
      }
    EXPECT_GE(yielded, 1) << "run " << run << ": mpirun's profile should say it took SIGPROF";
  }
}
