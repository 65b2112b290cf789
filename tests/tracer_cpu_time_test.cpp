// Computation between MPI calls is measured in thread CPU time: ranks
// oversubscribed on few cores record the compute of one rank per core
// (SAMPI's "sequential emulation on one host").
#include "trace/Tracing.hpp"
#include "TestUtil.hpp"

#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <algorithm>
#include <sstream>
#include <thread>
#include <vector>

using namespace perfcast;
using test::kMpiEnv;

namespace {

// Per iteration (compute between allreduces) of one rank's trace: its total,
// and its least iteration times the iterations. CPU time is only ever
// inflated by what shares the machine (a busy hypervisor, caches), never made
// smaller than the work, so the least iteration is the work's own cost; on
// this project's shared 2-core VM single iterations vary by up to +80%.
// Iterations are short (about 1 ms) so that some run without being preempted.
struct Volume {
  double total = 0;
  double least = 0;
};

Volume volume(const std::string& file)
{
  std::ifstream in(file);
  std::vector<double> iterations;
  double current = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string rank, action;
    double amount = 0;
    if (!(w >> rank >> action))
      continue;
    if (action == "compute" && w >> amount)
      current += amount;
    if (action == "allreduce") {
      iterations.push_back(current);
      current = 0;
    }
  }
  Volume v;
  for (double x : iterations)
    v.total += x;
  v.least = iterations.empty() ? 0 : *std::min_element(iterations.begin(), iterations.end()) * iterations.size();
  return v;
}

// per-rank compute volumes of a traced run of fixed_work at `ranks` ranks
std::vector<Volume> traced_volumes(const test::TempDir& dir, const std::string& app, int ranks, int cores)
{
  static int run = 0;
  std::string out = fmt::format("{}/trace-{}-{}", dir.path(), ranks, ++run);
  // one flop rate for every rank: the volumes compare the CPU seconds each rank measured (the rate each
  // rank would measure itself varies with the machine's load, a separate matter)
  // the ranks share the first `cores` CPUs (taskset), whatever the machine has
  auto r = test::run_command(fmt::format("{} PERFCAST_FLOP_RATE=1e9 {} trace -o {} -- taskset -c 0-{} mpirun "
                                         "--bind-to none -np {} {} 100 600000",
                                         kMpiEnv, test::perfcast_binary(), out, cores - 1, ranks, app));
  EXPECT_EQ(r.status, 0) << r.output;
  std::vector<Volume> v;
  for (int rank = 0; rank < ranks; ++rank)
    v.push_back(volume(fmt::format("{}/rank-{}.txt", out, rank)));
  auto headers = read_trace_headers(out);
  EXPECT_EQ(headers.at(0).compute_clock, "thread_cpu");
  return v;
}

} // namespace

using TracerCpuTime = test::TracerTest;

TEST_F(TracerCpuTime, FourTimesOversubscribedRanksRecordTheComputeOfOneRankPerCore)
{
  test::TempDir dir;
  std::string app = dir.path() + "/fixed_work";
  auto c = test::run_command(fmt::format("mpicc -O2 -o {} {}/tests/apps/fixed_work.c", app, test::source_dir()));
  ASSERT_EQ(c.status, 0) << c.output;
  if (!test::have_command("taskset"))
    GTEST_SKIP() << "no taskset (Debian package util-linux)";
  int cores = std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
  // every rank runs the same 100 x 6e5 multiply-adds, at any rank count
  // Four runs of each, alternated, and the least of them: this VM's speed per CPU second moves by up to 20%
  // for seconds at a time (the host's other guests), and with two runs of each both references fell in one
  // slow spell twice in a loaded day (crowded / reference 0.833). Each run takes about a second.
  constexpr int kPairs = 4;
  Volume reference{1e300, 1e300};
  std::vector<Volume> crowded(4 * cores, Volume{1e300, 1e300});
  for (int pair = 0; pair < kPairs; ++pair) {
    std::vector<Volume> alone = traced_volumes(dir, app, cores, cores);
    std::vector<Volume> more = traced_volumes(dir, app, 4 * cores, cores);
    ASSERT_EQ(alone.size(), static_cast<std::size_t>(cores));
    ASSERT_EQ(more.size(), crowded.size());
    Volume mean;
    for (const Volume& v : alone) {
      mean.total += v.total / alone.size();
      mean.least += v.least / alone.size();
    }
    reference.total = std::min(reference.total, mean.total);
    reference.least = std::min(reference.least, mean.least);
    for (std::size_t r = 0; r < crowded.size(); ++r) {
      crowded[r].total = std::min(crowded[r].total, more[r].total);
      crowded[r].least = std::min(crowded[r].least, more[r].least);
    }
  }
  ASSERT_GT(reference.least, 0);
  for (std::size_t r = 0; r < crowded.size(); ++r) {
    // the work's own cost: within 20% of one rank per core (elapsed time would give 4 times, a rank
    // charged for the core it shares 2 to 4 times). Not 5%: on the shared 2-core VM, with other work
    // running beside the test, a crowded rank measured 5.2% less than the reference (95.0 against 100.3
    // Mflop), the reference itself being the inflated one. Not 10%: alone under the heavy lock on an idle
    // machine (session 13, 19:54 UTC), every crowded rank came out 1.13 to 1.17 times the reference in
    // all four alternated pairs, and 1.00 a minute later; CPU time per unit of work on this VM moves that
    // much with the host's state, which the tracer cannot see
    EXPECT_NEAR(crowded[r].least / reference.least, 1.0, 0.20)
        << "rank " << r << " of " << crowded.size() << ": " << crowded[r].least << " flops, one rank per core "
        << reference.least;
    // elapsed time would give 4 times the volume (each rank has a quarter of a core); CPU time, with the
    // machine's noise, stays well under twice
    EXPECT_LT(crowded[r].total / reference.total, 1.5) << "rank " << r;
  }
}
