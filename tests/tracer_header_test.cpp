// The header the tracer writes at MPI_Init (unit and rate of `compute`, host,
// thread level) and what perfcast preloads with a sanitized tracer.
#include "core/Error.hpp"
#include "trace/Preload.hpp"
#include "trace/Tracing.hpp"
#include "TestUtil.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

using namespace perfcast;

namespace {

using test::kMpiEnv;

// sum of the `compute` amounts of a rank's trace
double compute_total(const std::string& path)
{
  std::istringstream in(test::read_text(path));
  double total = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string rank, action;
    double amount = 0;
    if (words >> rank >> action >> amount && action == "compute")
      total += amount;
  }
  return total;
}

} // namespace

using TracerHeaderRun = test::TracerTest;

TEST_F(TracerHeaderRun, EveryRankRecordsTheUnitAndRateOfItsComputeValues)
{
  test::TempDir dir;
  std::string app = dir.path() + "/stencil2d";
  ASSERT_EQ(test::run_command(fmt::format("mpicc -O2 -o {} {}/examples/apps/stencil2d.c", app, test::source_dir()))
                .status,
            0);
  std::string out = dir.path() + "/trace";
  // a forced rate makes the time path exact: compute = elapsed seconds x 2.5e9
  auto r = test::run_command(fmt::format("{} PERFCAST_FLOP_RATE=2.5e9 {} trace -o {} -- mpirun -np 3 {} 20 64",
                                         kMpiEnv, test::perfcast_binary(), out, app));
  ASSERT_EQ(r.status, 0) << r.output;
  auto headers = read_trace_headers(out);
  ASSERT_EQ(headers.size(), 3u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  auto profile = read_run_profile(out);
  for (int rank = 0; rank < 3; ++rank) {
    const TracedRankHeader& h = headers[rank];
    EXPECT_EQ(h.rank, rank);
    EXPECT_EQ(h.size, 3);
    EXPECT_EQ(h.host, host);
    EXPECT_EQ(h.thread_level, "single");
    EXPECT_DOUBLE_EQ(h.flops_per_s, 2.5e9);
    if (h.compute_unit == "instructions") { // hardware counters: all threads, a measured rate
      EXPECT_EQ(h.compute_threads, "all");
      EXPECT_GT(h.instructions_per_s, 0);
    } else { // no counters (this project's test machine): time x rate, the calling thread
      EXPECT_EQ(h.compute_unit, "flops");
      EXPECT_EQ(h.compute_threads, "calling");
      EXPECT_EQ(h.instructions_per_s, 0);
      // every second between MPI calls is written as 2.5e9 flops (%.6g per line)
      double seconds = profile.ranks[rank].compute_s;
      EXPECT_NEAR(compute_total(fmt::format("{}/rank-{}.txt", out, rank)), seconds * 2.5e9, 1e-5 * seconds * 2.5e9);
    }
  }
}

TEST(TracerHeader, AMissingOrMalformedHeaderNamesTheFileAndLine)
{
  test::TempDir dir;
  dir.file("rank-0.txt", "# perfcast: header version=2 rank=0 size=2 host=a compute_unit=flops flops_per_s=1e9 "
                         "instructions_per_s=0 compute_threads=calling thread_level=single\n0 init\n");
  dir.file("rank-1.txt", "# perfcast: header version=2 rank=1 size=2 host=b compute_unit=furlongs flops_per_s=1e9 "
                         "instructions_per_s=0 compute_threads=calling thread_level=single\n1 init\n");
  try {
    read_trace_headers(dir.path());
    FAIL() << "a bad compute_unit was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.path() + "/rank-1.txt:1: header: compute_unit=furlongs: expected flops or instructions");
  }
  dir.file("rank-1.txt", "1 init\n");
  try {
    read_trace_headers(dir.path());
    FAIL() << "a trace without a header was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/rank-1.txt:1: expected '# perfcast: header version=2"), std::string::npos)
        << e.what();
  }
}

TEST(TracerHeader, ASanitizedTracerIsPreloadedAfterItsRuntime)
{
#ifndef PERFCAST_TRACER
  GTEST_FAIL() << "the tracer library was not built";
#else
  // the tracer links Open MPI's C library; a PERFCAST_SANITIZE build also libasan
  auto needed = needed_libraries(PERFCAST_TRACER);
  EXPECT_TRUE(std::any_of(needed.begin(), needed.end(), [](const std::string& n) { return n.rfind("libmpi.so", 0) == 0; }))
      << fmt::format("{}", fmt::join(needed, " "));
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_EQ(sanitizer_runtime_of(PERFCAST_TRACER).rfind("libasan.so", 0), 0u);
#else
  EXPECT_EQ(sanitizer_runtime_of(PERFCAST_TRACER), "");
#endif
  EXPECT_TRUE(needed_libraries(test::source_dir() + "/README.md").empty()); // not an ELF file
#endif
}
