// The reference kernel programs (tools/kernels) under mpirun: each one's own
// result check at two sizes on one and two processes, each check failing on
// a spoiled result, and the usage errors. Runs are launched a few at a time,
// since mpirun's start-up, not the kernels, takes most of the time here.
#include "TestUtil.hpp"
#include "phase/KernelLadder.hpp"

#include <future>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

class KernelPrograms : public ::testing::Test {
protected:
  void SetUp() override
  {
#ifndef PERFCAST_KERNEL_DIR
    GTEST_SKIP() << "the kernel programs were not built (no MPI found at configure time)";
#endif
    if (!test::have_command("mpirun")) GTEST_SKIP() << "Open MPI's mpirun is not installed (Debian openmpi-bin)";
  }
};

std::string kernel_command(const std::string& name, long size, int procs, const std::string& env = "")
{
#ifdef PERFCAST_KERNEL_DIR
  return fmt::format("{} {} mpirun -np {} {}/perfcast-kernel-{} {}", test::kMpiEnv, env, procs, PERFCAST_KERNEL_DIR,
                     name, size);
#else
  return "false";
#endif
}

/// Runs the commands, at most 10 at once; results in the same order.
std::vector<test::CommandResult> run_all(const std::vector<std::string>& commands)
{
  std::vector<test::CommandResult> results(commands.size());
  for (std::size_t start = 0; start < commands.size(); start += 10) {
    std::vector<std::future<test::CommandResult>> running;
    for (std::size_t i = start; i < std::min(commands.size(), start + 10); ++i)
      running.push_back(std::async(std::launch::async, test::run_command, commands[i]));
    for (std::size_t i = 0; i < running.size(); ++i) results[start + i] = running[i].get();
  }
  return results;
}

} // namespace

TEST_F(KernelPrograms, EveryKernelPassesItsOwnCheckAtTwoSizesOnOneAndTwoProcesses)
{
  struct Case {
    std::string kernel;
    long size;
    int procs;
  };
  std::vector<Case> cases;
  std::vector<std::string> commands;
  for (const phase::KernelSpec& k : phase::reference_kernels()) {
    const auto sizes = phase::size_ladder(k); // the first and the third size of the ladder
    for (long size : {sizes[0], sizes[2]})
      for (int procs : {1, 2}) {
        cases.push_back({k.name, size, procs});
        commands.push_back(kernel_command(k.name, size, procs));
      }
  }
  const auto results = run_all(commands);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(fmt::format("{} size {} on {} processes", c.kernel, c.size, c.procs));
    ASSERT_EQ(results[i].status, 0) << results[i].output;
    EXPECT_GT(phase::parse_kernel_line(results[i].output, c.kernel, c.size, c.procs), 0);
  }
}

TEST_F(KernelPrograms, EveryCheckFailsWhenTheKernelSpoilsItsResult)
{
  std::vector<std::string> commands;
  for (const phase::KernelSpec& k : phase::reference_kernels())
    commands.push_back(kernel_command(k.name, phase::size_ladder(k)[1], 2, "PERFCAST_KERNEL_CORRUPT=" + k.name));
  const auto results = run_all(commands);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string& name = phase::reference_kernels()[i].name;
    EXPECT_EQ(results[i].status, 1) << name << ": " << results[i].output;
    EXPECT_NE(results[i].output.find("perfcast-kernel-" + name + ": rank "), std::string::npos) << results[i].output;
    EXPECT_NE(results[i].output.find("wrong result"), std::string::npos) << results[i].output;
    EXPECT_EQ(results[i].output.find("{\"kernel\""), std::string::npos) << "a result line after a failed check";
  }
}

TEST_F(KernelPrograms, SizesAKernelCannotRunAreUsageErrors)
{
  const auto results = run_all({kernel_command("gemm", 0, 1), kernel_command("fft", 12, 1),
                                kernel_command("mg", 16, 3), fmt::format("{} x", kernel_command("cg", 64, 1))});
  EXPECT_EQ(results[0].status, 2);
  EXPECT_NE(results[0].output.find("usage: perfcast-kernel-gemm SIZE (an integer of at least 2)"), std::string::npos)
      << results[0].output;
  EXPECT_EQ(results[1].status, 2);
  EXPECT_NE(results[1].output.find("perfcast-kernel-fft: size 12 on 1 processes: expected a power of two"),
            std::string::npos)
      << results[1].output;
  EXPECT_EQ(results[2].status, 2);
  EXPECT_NE(results[2].output.find("expected a power-of-two process count"), std::string::npos) << results[2].output;
  EXPECT_EQ(results[3].status, 2) << results[3].output;
}
