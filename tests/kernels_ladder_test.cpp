// The kernel ladder of perfcast kernels build with a stand-in for mpirun:
// which sizes are run, when a ladder stops, and which kernels are refused.
#include "core/Error.hpp"
#include "phase/KernelLadder.hpp"

#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <memory>

using namespace perfcast;
using namespace perfcast::phase;

namespace {

// A runner whose kernel takes `time(size)` seconds and prints the result line as the programs do.
KernelRunner fake_runner(std::function<double(long)> time, int procs = 2)
{
  return [time, procs](const std::string& name, long size) {
    return KernelRun{0, fmt::format("noise from mpirun\n{{\"kernel\": \"{}\", \"size\": {}, \"procs\": {}, "
                                    "\"seconds\": {:.9e}}}\n",
                                    name, size, procs, time(size))};
  };
}

const KernelSpec kFake{"fake", 10, 2, 1000, "units", "a stand-in", 1};

} // namespace

TEST(KernelLadder, ListsThePapersFifteenKernelsOnce)
{
  const auto& kernels = reference_kernels();
  ASSERT_EQ(kernels.size(), 15u);
  for (const char* name : {"bt", "cg", "deposit", "fft", "gemm", "gemv", "is", "lu", "mg", "ptran", "push", "sp",
                           "spmv", "symm", "trmm"})
    EXPECT_EQ(find_kernel(name).name, name);
  EXPECT_EQ(select_kernels("all").size(), 15u);
  EXPECT_EQ(select_kernels("").size(), 15u);
  const auto two = select_kernels("is,gemm");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].name, "is");
  EXPECT_EQ(two[1].name, "gemm");
}

TEST(KernelLadder, UnknownOrRepeatedKernelNamesAreRefusedByName)
{
  try {
    select_kernels("gemm,dgemm");
    FAIL() << "dgemm accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'dgemm': no such kernel (expected one of bt, cg"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(select_kernels("cg,cg"), Error);
}

TEST(KernelLadder, SizesGrowGeometricallyUpToTheMaximum)
{
  // fft and mg need powers of two: factor 2 from 8 to 128 gives exactly these
  EXPECT_EQ(size_ladder(find_kernel("fft")), (std::vector<long>{8, 16, 32, 64, 128}));
  EXPECT_EQ(size_ladder(kFake), (std::vector<long>{10, 20, 40, 80, 160, 320, 640}));
  for (const KernelSpec& k : reference_kernels()) {
    const auto sizes = size_ladder(k);
    ASSERT_GE(sizes.size(), 5u) << k.name;
    EXPECT_EQ(sizes.front(), k.first_size) << k.name;
    EXPECT_LE(sizes.back(), k.max_size) << k.name;
    EXPECT_GT(std::lround(static_cast<double>(sizes.back()) * k.factor * 1.01), k.max_size) << k.name;
    for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_GT(sizes[i], sizes[i - 1]) << k.name;
  }
}

TEST(KernelLadder, DenseAndSparseLaddersGoFarEnoughToTakeTensOfSeconds)
{
  // Session 11: a target phase of 20-30 s maps onto the kernel size that takes
  // as long (sFactor), and the ladders ended where a run took 0.04-3 s, so every
  // kernel was refused for its range. The dense products and LU step by 2^(1/3)
  // (the time doubles per step) to order 4101: gemm took 2.4 s at 1627 on the
  // study's machine, so about 38 s at 4101 (a factor 2^4); cg and spmv double
  // their rows (the time doubles) to 2^24: cg 1.2 s at 2^21, about 10 s at 2^24.
  for (const char* name : {"gemm", "symm", "trmm", "lu"}) {
    const auto sizes = size_ladder(find_kernel(name));
    EXPECT_EQ(sizes.back(), 4101) << name;
    EXPECT_EQ(sizes[sizes.size() - 5], 1627) << name << ": four doublings of the time past 1627";
  }
  // cg to 2^25 (session 13): a 3-D phase compared in points maps onto about 14 rows a point
  EXPECT_EQ(size_ladder(find_kernel("cg")).back(), 1L << 25);
  EXPECT_EQ(size_ladder(find_kernel("spmv")).back(), 1L << 24);
  // the limit of --max-seconds still ends the ladder first: 15 s is passed at 3255 for t = 2.4 s (n / 1627)^3
  const auto outcome =
      measure_kernel(find_kernel("gemm"), fake_runner([](long n) { return 2.4 * std::pow(n / 1627.0, 3); }), {15, 1, 2});
  ASSERT_EQ(outcome.failure, "");
  EXPECT_EQ(outcome.points.back().size, 3255);
}

TEST(KernelLadder, StopsAfterTheFirstSizeWhoseFastestRunTakesLongerThanTheLimit)
{
  // t = 1e-6 size^2: 1e-4, 4e-4, 1.6e-3, 6.4e-3, 2.56e-2 s at sizes 10 .. 160; the
  // limit 0.01 s is first passed at 160, so 5 sizes of 2 runs are kept
  const auto outcome = measure_kernel(kFake, fake_runner([](long n) { return 1e-6 * n * n; }), {0.01, 2, 2});
  ASSERT_EQ(outcome.failure, "");
  ASSERT_EQ(outcome.points.size(), 10u);
  EXPECT_EQ(outcome.points.back().size, 160);
  EXPECT_DOUBLE_EQ(outcome.points.back().seconds, 2.56e-2);
}

TEST(KernelLadder, OneSlowRunOfASizeDoesNotStopTheLadder)
{
  // every first run of a size is 1 s slower (another job took the core); the
  // fastest run still follows 1e-6 size^2, so the ladder stops at 160 as above
  auto calls = std::make_shared<int>(0);
  auto noisy = fake_runner([calls](long n) { return 1e-6 * n * n + ((*calls)++ % 2 == 0 ? 1.0 : 0.0); });
  const auto outcome = measure_kernel(kFake, noisy, {0.01, 2, 2});
  ASSERT_EQ(outcome.failure, "");
  ASSERT_EQ(outcome.points.size(), 10u);
  EXPECT_EQ(outcome.points.back().size, 160);
}

TEST(KernelLadder, MeasuresThreeSizesEvenWhenTheFirstIsTooLong)
{
  const auto outcome = measure_kernel(kFake, fake_runner([](long n) { return 1e-3 * n; }), {1e-9, 1, 2});
  ASSERT_EQ(outcome.failure, "");
  ASSERT_EQ(outcome.points.size(), 3u);
  EXPECT_EQ(outcome.points[2].size, 40);
}

TEST(KernelLadder, RunsToTheMaximumSizeWhenEveryRunIsQuick)
{
  const auto outcome = measure_kernel(kFake, fake_runner([](long n) { return 1e-9 * n; }), {1.0, 1, 2});
  ASSERT_EQ(outcome.failure, "");
  EXPECT_EQ(outcome.points.size(), 7u);
}

TEST(KernelLadder, FailingRunMakesTheKernelAFailureWithItsOutput)
{
  KernelRunner good = fake_runner([](long n) { return 1e-6 * n; });
  KernelRunner run = [good](const std::string& name, long size) {
    if (size == 40) return KernelRun{1, "perfcast-kernel-fake: rank 1: size 40: wrong result: 3 keys out of order\n"};
    return good(name, size);
  };
  const auto outcome = measure_kernel(kFake, run, {1.0, 2, 2});
  EXPECT_TRUE(outcome.points.empty());
  EXPECT_NE(outcome.failure.find("size 40: exit status 1: perfcast-kernel-fake: rank 1: size 40: wrong result"),
            std::string::npos)
      << outcome.failure;
}

TEST(KernelLadder, ResultLineOfAnotherSizeOrProcessCountIsRefused)
{
  const auto wrong_procs = measure_kernel(kFake, fake_runner([](long n) { return 1e-6 * n; }, 4), {1.0, 1, 2});
  EXPECT_TRUE(wrong_procs.points.empty());
  EXPECT_NE(wrong_procs.failure.find("expected kernel fake, size 10, procs 2"), std::string::npos)
      << wrong_procs.failure;
  const auto silent = measure_kernel(kFake, [](const std::string&, long) { return KernelRun{0, "hello\n"}; },
                                     {1.0, 1, 2});
  EXPECT_NE(silent.failure.find("no result line"), std::string::npos) << silent.failure;
  EXPECT_THROW(parse_kernel_line("{\"kernel\": \"fake\", \"size\": 10, \"procs\": 2, \"seconds\": 0}", "fake", 10, 2),
               Error);
  EXPECT_DOUBLE_EQ(
      parse_kernel_line("{\"kernel\": \"fake\", \"size\": 10, \"procs\": 2, \"seconds\": 2.5e-3}", "fake", 10, 2),
      2.5e-3);
}

TEST(KernelLadder, KernelWhoseTimeDoesNotGrowIsRefusedLikeKernelModelDoes)
{
  const auto flat = measure_kernel(kFake, fake_runner([](long) { return 1e-3; }), {1.0, 1, 2});
  EXPECT_TRUE(flat.points.empty());
  EXPECT_NE(flat.failure.find("does not grow"), std::string::npos) << flat.failure;
}
