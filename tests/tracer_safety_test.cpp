// The PMPI tracer under stress: many outstanding requests, the program's own
// signal handlers, a full disk, MPI_THREAD_MULTIPLE. Each test is named after
// what broke and runs a small program from tests/apps under `perfcast trace`.
#include "trace/Preload.hpp"
#include "trace/Tracing.hpp"
#include "TestUtil.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace perfcast;

namespace {

using test::kMpiEnv;

class TracerSafety : public test::TracerTest {
protected:
  // Compiles tests/apps/NAME.c with mpicc.
  std::string build(const std::string& name)
  {
    std::string exe = dir_.path() + "/" + name;
    auto r = test::run_command(
        fmt::format("mpicc -O2 -o {} {}/tests/apps/{}.c -lpthread", exe, test::source_dir(), name));
    EXPECT_EQ(r.status, 0) << r.output;
    return exe;
  }

  // `perfcast trace -o OUT -- mpirun -np RANKS APP`, stopped after `limit` seconds (a hang fails, not blocks):
  // SIGTERM reaches perfcast, which passes it to mpirun and the ranks
  test::CommandResult trace(const std::string& out, const std::string& app, int ranks, int limit = 120)
  {
    return test::run_command(fmt::format("{} timeout -k 10 {} {} trace -o {} -- mpirun --oversubscribe -np {} {}",
                                         kMpiEnv, limit, test::perfcast_binary(), out, ranks, app));
  }

  test::TempDir dir_;
};

nlohmann::json profile_json(const std::string& dir)
{
  return nlohmann::json::parse(test::read_text(dir + "/profile.json"));
}

// action keyword -> lines, over the non-comment lines of a rank's trace
std::map<std::string, int> count_actions(const std::string& path)
{
  std::map<std::string, int> counts;
  std::istringstream in(test::read_text(path));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream words(line);
    std::string rank, action;
    words >> rank >> action;
    ++counts[action];
  }
  return counts;
}

std::string last_line(const std::string& path)
{
  std::string text = test::read_text(path);
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  auto nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

} // namespace

TEST_F(TracerSafety, TracerDoesNotHangWithManyOutstandingRequests)
{
  std::string app = build("many_requests");
  // 4100 sends and 4100 receives outstanding per rank overflowed the old
  // 4096-slot table (it spun forever); 50000 of each is 100,000 per rank
  for (int n : {4100, 50000}) {
    std::string out = fmt::format("{}/trace{}", dir_.path(), n);
    auto r = trace(out, fmt::format("{} {}", app, n), 2, 60);
    ASSERT_EQ(r.status, 0) << r.output.substr(0, 3000);
    auto j = profile_json(out);
    EXPECT_TRUE(j["complete"].get<bool>());
    for (int rank = 0; rank < 2; ++rank) {
      EXPECT_EQ(j["ranks"][rank]["messages_sent"], n);
      EXPECT_EQ(j["ranks"][rank]["messages_received"], n);
      EXPECT_EQ(j["ranks"][rank]["bytes_received"], 4 * n);
      // every request posted is waited for once, also when Open MPI hands
      // several completed sends the same request handle
      auto counts = count_actions(fmt::format("{}/rank-{}.txt", out, rank));
      EXPECT_EQ(counts["isend"], n);
      EXPECT_EQ(counts["irecv"], n);
      EXPECT_EQ(counts["wait"], 2 * n) << "n = " << n << ", rank " << rank;
    }
  }
}

TEST_F(TracerSafety, SigtermHandlerInstalledBeforeMpiInitStillRuns)
{
  std::string app = build("signal_handlers");
  std::string out = dir_.path() + "/trace";
  auto r = trace(out, fmt::format("{} before {}", app, dir_.path()), 2);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("did not run"), std::string::npos) << r.output;
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/checkpoint-{}", dir_.path(), rank))) << rank;
  // the handler returned, so tracing went on: 10 exchanges before the signal and 10 after
  auto j = profile_json(out);
  EXPECT_TRUE(j["complete"].get<bool>());
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_EQ(j["ranks"][rank]["messages_sent"], 20u);
}

TEST_F(TracerSafety, SignalHandlerInstalledAfterMpiInitRunsAfterTheFlush)
{
  std::string app = build("signal_handlers");
  std::string out = dir_.path() + "/trace";
  // the handler writes its checkpoint and ends the rank with _exit(0): mpirun
  // then reports ranks that did not finalize
  auto r = trace(out, fmt::format("{} after {}", app, dir_.path()), 2);
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.output.find("another SIGTERM handler"), std::string::npos) << r.output;
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_TRUE(std::filesystem::exists(fmt::format("{}/checkpoint-{}", dir_.path(), rank))) << rank;
    std::string path = fmt::format("{}/rank-{}.txt", out, rank);
    EXPECT_EQ(last_line(path), "# perfcast: incomplete (SIGTERM, in the program's handler)");
    EXPECT_EQ(count_actions(path)["sendRecv"], 10);
  }
}

TEST_F(TracerSafety, OpenMpiSegvHandlerStillReportsTheCrash)
{
  std::string app = build("signal_handlers");
  std::string out = dir_.path() + "/trace";
  auto r = trace(out, fmt::format("{} segv {}", app, dir_.path()), 2);
  EXPECT_NE(r.status, 0);
  if (!sanitizer_runtime_of(find_tracer_library()).empty()) {
    // a sanitized tracer preloads ASan, whose own SIGSEGV handler comes first
    // and ends the process (its handle_segv contract): nothing else runs
    EXPECT_NE(r.output.find("AddressSanitizer: SEGV"), std::string::npos) << r.output;
    return;
  }
  // Open MPI's handler (installed in MPI_Init, before the tracer's) prints its report
  EXPECT_NE(r.output.find("Process received signal"), std::string::npos) << r.output;
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_EQ(last_line(fmt::format("{}/rank-{}.txt", out, rank)), "# perfcast: incomplete (SIGSEGV)");
}

TEST_F(TracerSafety, FullDiskMarksTheTraceIncompleteAndFailsTheRun)
{
  if (test::run_command("unshare -m true").status != 0)
    GTEST_SKIP() << "cannot make a private mount namespace here (unshare -m needs CAP_SYS_ADMIN)";
  std::string app = dir_.path() + "/stencil2d";
  ASSERT_EQ(test::run_command(fmt::format("mpicc -O2 -o {} {}/examples/apps/stencil2d.c", app, test::source_dir()))
                .status,
            0);
  // a 256 KiB file system; 20000 iterations write about 4 MB of trace per rank
  std::string disk = dir_.path() + "/disk";
  std::filesystem::create_directories(disk);
  auto r = test::run_command(fmt::format(
      "unshare -m sh -c 'mount -t tmpfs -o size=256k tmpfs {0} || exit 77; {1} timeout -k 10 120 {2} trace "
      "-o {0}/trace -- mpirun --oversubscribe -np 2 {3} 20000 16; echo \"exit=$?\"; cp -r {0}/trace {4}/copy'",
      disk, kMpiEnv, test::perfcast_binary(), app, dir_.path()));
  if (r.status == 77)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << r.output;
  // the program succeeded, the trace did not: exit 3 (incomplete), or 1 when
  // perfcast could not write the index either; the reasons are said either way
  EXPECT_TRUE(r.output.find("exit=3") != std::string::npos || r.output.find("exit=1") != std::string::npos)
      << r.output;
  int allreduces = 0;
  for (int rank = 0; rank < 2; ++rank) {
    std::string reason = fmt::format("write error on {}/trace/rank-{}.txt: No space left on device", disk, rank);
    EXPECT_NE(r.output.find(fmt::format("rank {} stopped early: {}", rank, reason)), std::string::npos) << r.output;
    std::string path = fmt::format("{}/copy/rank-{}.txt", dir_.path(), rank);
    EXPECT_EQ(last_line(path), "# perfcast: incomplete (" + reason + ")");
    std::string text = test::read_text(path);
    EXPECT_EQ(text.back(), '\n');
    allreduces += count_actions(path)["allreduce"];
    EXPECT_FALSE(std::filesystem::exists(fmt::format("{}/copy/rank-{}.reserve", dir_.path(), rank)));
  }
  // what was written before the disk filled is kept, in whole lines: about
  // 240 KiB of lines of about 20 bytes, one allreduce in every 8 lines
  EXPECT_GT(allreduces, 1000);
}

TEST_F(TracerSafety, ThreadMultipleRanksRecordEveryCallOfBothThreads)
{
  std::string app = build("threads_multiple");
  std::string out = dir_.path() + "/trace";
  // two threads per rank, 300 exchanges each: Isend, Recv, Wait
  auto r = trace(out, app + " 300", 2);
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = profile_json(out);
  EXPECT_TRUE(j["complete"].get<bool>());
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(j["ranks"][rank]["messages_sent"], 600u);
    EXPECT_EQ(j["ranks"][rank]["messages_received"], 600u);
    std::string path = fmt::format("{}/rank-{}.txt", out, rank);
    auto counts = count_actions(path);
    EXPECT_EQ(counts["isend"], 600);
    EXPECT_EQ(counts["recv"], 600);
    EXPECT_EQ(counts["wait"], 600);
    EXPECT_NE(test::read_text(path).find(" thread_level=multiple "), std::string::npos);
  }
}
