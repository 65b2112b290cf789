// The PMPI tracer under Open MPI's mpirun, end to end: trace, profile, replay.
#include "trace/TraceReader.hpp"
#include "TestUtil.hpp"
#include "trace/Preload.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace perfcast;

namespace {

using test::kMpiEnv;

// Compiles examples/apps/SOURCE with an MPI compiler wrapper; extra flags last.
std::string build_app(const test::TempDir& dir, const std::string& source, const std::string& compiler = "mpicc",
                      const std::string& extra = "")
{
  std::string exe = dir.path() + "/" + std::filesystem::path(source).stem().string();
  auto r = test::run_command(
      fmt::format("{} -O2 -o {} {}/examples/apps/{} {}", compiler, exe, test::source_dir(), source, extra));
  EXPECT_EQ(r.status, 0) << r.output;
  return exe;
}

test::CommandResult traced(const std::string& dir, const std::string& app_and_args, int ranks,
                           const std::string& extra = "")
{
  return test::run_command(fmt::format("{} {} trace {} -o {} -- mpirun --oversubscribe -np {} {}", kMpiEnv,
                                       test::perfcast_binary(), extra, dir, ranks, app_and_args));
}

nlohmann::json profile_json(const std::string& dir)
{
  std::ifstream in(dir + "/profile.json");
  return nlohmann::json::parse(in);
}

// perfcast replays the trace in DIR on a bundled platform.
void expect_replays(const std::string& dir, const std::string& platform)
{
  auto r = test::run_perfcast(
      fmt::format("replay {}/trace.txt -p {}/examples/platforms/{} -q", dir, test::source_dir(), platform));
  EXPECT_EQ(r.status, 0) << r.output.substr(0, 2000);
}

// perfcast and `smpirun -replay` give the trace in DIR the same makespan
// (within 1%) on cluster16, one rank per node.
void expect_replay_matches_simgrid(const test::TempDir& tmp, const std::string& dir, int ranks)
{
  std::string platform = test::source_dir() + "/examples/platforms/cluster16.xml";
  std::string hosts;
  for (int r = 0; r < ranks; ++r)
    hosts += fmt::format("node-{}\n", r);
  std::string hostfile = tmp.file(fmt::format("hosts{}", ranks), hosts);
  std::string log;
  double simgrid = test::simgrid_makespan(dir + "/trace.txt", ranks, platform, hostfile, log);
  ASSERT_GT(simgrid, 0) << "smpirun -replay printed no time: " << log;
  double ours = test::replay_json(fmt::format("{}/trace.txt -p {} --hostfile {}", dir, platform, hostfile))["makespan_s"]
                    .get<double>();
  EXPECT_NEAR(ours, simgrid, 0.01 * simgrid);
}

using Tracer = test::TracerTest;

} // namespace

TEST_F(Tracer, StencilCountsAreExactAndTheTraceReplays)
{
  test::TempDir dir;
  std::string app = build_app(dir, "stencil2d.c");
  std::string out = dir.path() + "/trace";
  // 4 ranks form a 2 x 2 grid: each has 2 neighbours; 10 iterations of 64 doubles per halo
  auto r = traced(out, app + " 10 64", 4);
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = profile_json(out);
  EXPECT_TRUE(j["complete"].get<bool>());
  ASSERT_EQ(j["ranks"].size(), 4u);
  for (const auto& rank : j["ranks"]) {
    EXPECT_EQ(rank["messages_sent"], 20u);
    EXPECT_EQ(rank["bytes_sent"], 20u * 64 * 8);
    EXPECT_EQ(rank["messages_received"], 20u);
    EXPECT_EQ(rank["bytes_received"], 20u * 64 * 8);
    EXPECT_EQ(rank["collectives"], 10u); // one allreduce per iteration
    EXPECT_EQ(rank["calls"]["MPI_Isend"]["calls"], 20u);
  }
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["procs"], 4);
  EXPECT_DOUBLE_EQ(j["runs"][0]["message_bytes"].get<double>(), 512.0);
  // perfcast replays it, and so does SimGrid (it uses only what SimGrid knows)
  expect_replay_matches_simgrid(dir, out, 4);
}

// Regression: MPI_Sendrecv with MPI_PROC_NULL at the ends of a chain was
// written as a sendRecv line with peer -2, which no replayer accepts, and
// counted as a message sent and received, so codes with non-periodic halos
// (the comm study's heat2d from csc-training) showed bytes nobody sent.
TEST_F(Tracer, SendrecvWithProcNullCountsOnlyRealMessages)
{
  test::TempDir dir;
  std::string exe = dir.path() + "/chain";
  auto c = test::run_command(fmt::format("mpicc -O2 -o {} {}/tests/apps/sendrecv_chain.c", exe, test::source_dir()));
  ASSERT_EQ(c.status, 0) << c.output;
  std::string out = dir.path() + "/trace";
  auto r = traced(out, exe, 3);
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = profile_json(out);
  ASSERT_EQ(j["ranks"].size(), 3u);
  // five exchanges of 100 doubles; rank 0 has no left, rank 2 no right
  const unsigned sent[3] = {5, 5, 0}, received[3] = {0, 5, 5};
  for (int k = 0; k < 3; ++k) {
    const auto& rank = j["ranks"][k];
    EXPECT_EQ(rank["messages_sent"], sent[k]) << k;
    EXPECT_EQ(rank["bytes_sent"], sent[k] * 800u) << k;
    EXPECT_EQ(rank["messages_received"], received[k]) << k;
    EXPECT_EQ(rank["bytes_received"], received[k] * 800u) << k;
  }
  expect_replays(out, "cluster16.xml");
}

TEST_F(Tracer, MasterWorkerWithAnySourceReplaysWithoutDeadlock)
{
  test::TempDir dir;
  std::string app = build_app(dir, "master_worker.c");
  std::string out = dir.path() + "/trace";
  // 12 tasks of 2e6 flops over 3 workers
  auto r = traced(out, app + " 12 2e6 256", 4);
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = profile_json(out);
  // master: 12 tasks + 3 stop messages out, 12 results in
  EXPECT_EQ(j["ranks"][0]["messages_sent"], 15u);
  EXPECT_EQ(j["ranks"][0]["messages_received"], 12u);
  unsigned long long results = 0;
  for (int w = 1; w < 4; ++w)
    results += j["ranks"][w]["messages_sent"].get<unsigned long long>();
  EXPECT_EQ(results, 12u);
  expect_replays(out, "hetero8.json");
}

TEST_F(Tracer, ReplacesItsOwnDirectoryButNotOtherFilesWithoutForce)
{
  // one rule for every output: what perfcast wrote is replaced, anything
  // else needs --force (which replaces only perfcast's files)
  test::TempDir dir;
  std::string app = build_app(dir, "pingpong.c");
  std::string out = dir.path() + "/trace";
  ASSERT_EQ(traced(out, app + " 1 1024", 2).status, 0);
  EXPECT_EQ(traced(out, app + " 1 1024", 2).status, 0); // its own directory: replaced
  std::ofstream(out + "/notes.txt") << "mine\n";
  auto again = traced(out, app + " 1 1024", 2);
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.output.find("holds 'notes.txt', which perfcast did not write"), std::string::npos)
      << again.output;
  EXPECT_EQ(traced(out, app + " 1 1024", 2, "--force").status, 0);
  EXPECT_EQ(test::read_text(out + "/notes.txt"), "mine\n");
}

// perfcast trace of APP (2 ranks, far more iterations than the run is given)
// sent SIGNAL one second after both ranks opened their trace files (in
// MPI_Init, where the tracer's handlers go in), not after a fixed time: on a
// loaded machine mpirun's start-up alone can take longer than any fixed
// delay, and ranks killed before MPI_Init leave nothing to mark. Two minutes
// without both files and the signal goes anyway, so the test fails rather
// than hangs. The output ends with took_ms=, the time perfcast took after it.
test::CommandResult traced_then_signalled(const std::string& out, const std::string& app, const std::string& signal)
{
  return test::run_command(fmt::format(
      "{{ {} {} trace -o {} -- mpirun --oversubscribe -np 2 {} 100000000 32 & p=$!; i=0; "
      "while [ $i -lt 1200 ] && ! {{ [ -e {}/rank-0.txt ] && [ -e {}/rank-1.txt ]; }}; do sleep 0.1; i=$((i+1)); done; "
      "sleep 1; s=$(date +%s%N); kill -{} $p; wait $p; st=$?; echo \"took_ms=$(( ($(date +%s%N) - s) / 1000000 ))\"; "
      "exit $st; }}",
      kMpiEnv, test::perfcast_binary(), out, app, out, out, signal));
}

TEST_F(Tracer, KilledRunLeavesAReadableTraceMarkedIncomplete)
{
  test::TempDir dir;
  std::string app = build_app(dir, "stencil2d.c");
  std::string out = dir.path() + "/trace";
  // SIGTERM reaches perfcast, which passes it to mpirun and its ranks
  auto r = traced_then_signalled(out, app, "TERM");
  EXPECT_NE(r.status, 0);
  ASSERT_TRUE(std::filesystem::exists(out + "/trace.txt")) << r.output;
  auto j = profile_json(out);
  EXPECT_FALSE(j["complete"].get<bool>());
  for (int rank = 0; rank < 2; ++rank) {
    std::string path = fmt::format("{}/rank-{}.txt", out, rank);
    std::string text = test::read_text(path);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n') << "partial last line in " << path;
    EXPECT_NE(text.find("# perfcast: incomplete (SIGTERM)"), std::string::npos) << text.substr(text.size() - 200);
    // every line parses
    RankReader reader(path, rank, 2);
    Action a;
    std::size_t actions = 0;
    while (reader.next(a))
      ++actions;
    EXPECT_GT(actions, 10u);
  }
}

// Ctrl-C during perfcast trace took about 8 s to return and said nothing
// (Open MPI's mpirun, signalled alone, waits seconds before it stops its
// ranks), and perfcast profile then reported "wall 0.000000 s" with status 0
TEST_F(Tracer, CtrlCStopsTheTraceWithinSecondsAndProfileSaysIncomplete)
{
  test::TempDir dir;
  std::string app = build_app(dir, "stencil2d.c");
  std::string out = dir.path() + "/trace";
  auto r = traced_then_signalled(out, app, "INT");
  EXPECT_EQ(r.status, 130) << r.output;
  EXPECT_NE(r.output.find("perfcast: Ctrl-C received, stopping"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("interrupted; the trace in"), std::string::npos) << r.output;
  const auto at = r.output.find("took_ms=");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_LT(std::stol(r.output.substr(at + 8)), 5000) << r.output; // the grace period is 2 s a step
  for (int rank = 0; rank < 2; ++rank) {
    std::string text = test::read_text(fmt::format("{}/rank-{}.txt", out, rank));
    EXPECT_NE(text.find("# perfcast: incomplete (SIGINT)"), std::string::npos) << text.substr(text.size() - 200);
  }
  auto p = test::run_perfcast("profile " + out);
  EXPECT_EQ(p.status, 3) << p.output;
  EXPECT_NE(p.output.find("wall unknown (no rank reached MPI_Finalize), INCOMPLETE"), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("is an incomplete run (0 of 2 ranks complete)"), std::string::npos) << p.output;
}

TEST_F(Tracer, FortranProgramsAreTracedThroughTheirBindings)
{
  ASSERT_EQ(test::run_command("command -v mpifort").status, 0) << "mpifort (gfortran) is required";
  test::TempDir dir;
  for (const char* program : {"ring", "halo"}) {
    std::string exe = build_app(dir, std::string(program) + ".f90", "mpifort");
    std::string out = dir.path() + "/trace-" + program;
    auto r = traced(out, exe + " 3 64", 3);
    ASSERT_EQ(r.status, 0) << r.output;
    auto j = profile_json(out);
    ASSERT_TRUE(j["complete"].get<bool>());
    for (const auto& rank : j["ranks"]) {
      // ring: one 512-byte send per lap; halo: 2 + 1 isends per iteration
      unsigned long long expected = std::string(program) == "ring" ? 3 : 9;
      EXPECT_EQ(rank["messages_sent"], expected) << program;
      EXPECT_EQ(rank["bytes_sent"], expected * 512) << program;
      EXPECT_EQ(rank["messages_received"], expected) << program;
    }
    std::string text = test::read_text(out + "/rank-0.txt");
    if (std::string(program) == "halo") {
      // MPI_Waitall over 4 requests and two MPI_Waitany over 2, per iteration,
      // become one wait per request: 3 x (4 + 2)
      std::size_t waits = 0;
      for (std::size_t pos = text.find("\n0 wait "); pos != std::string::npos; pos = text.find("\n0 wait ", pos + 1))
        ++waits;
      EXPECT_EQ(waits, 18u);
    }
    if (std::string(program) == "ring") {
      // send, recv and allreduce only: SimGrid replays it too, to the same time
      expect_replay_matches_simgrid(dir, out, 3);
    } else {
      expect_replays(out, "cluster16.xml");
    }
  }
}

TEST_F(Tracer, HpccIsTracedProfiledAndReplayed)
{
  // Debian's HPC Challenge (HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT,
  // b_eff) on 4 ranks with a small problem (examples/hpcc/hpccinf.txt): it
  // splits and frees communicators, cancels wildcard receives and waits on
  // subsets of its requests, all of which the trace must carry.
  ASSERT_EQ(test::run_command("command -v hpcc").status, 0) << "hpcc (Debian package) is required";
  test::TempDir dir;
  std::filesystem::copy_file(test::source_dir() + "/examples/hpcc/hpccinf.txt", dir.path() + "/hpccinf.txt");
  std::string out = dir.path() + "/trace";
  auto r = test::run_command(fmt::format("cd {} && {} {} trace -o {} -- mpirun --oversubscribe -np 4 hpcc", dir.path(),
                                         kMpiEnv, test::perfcast_binary(), out));
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = profile_json(out);
  ASSERT_TRUE(j["complete"].get<bool>());
  ASSERT_EQ(j["ranks"].size(), 4u);
  for (const auto& rank : j["ranks"]) {
    EXPECT_GT(rank["messages_sent"].get<unsigned long long>(), 1000u);
    EXPECT_GT(rank["collectives"].get<unsigned long long>(), 100u);
    EXPECT_GT(rank["calls"]["MPI_Comm_split"]["calls"].get<unsigned long long>(), 0u);
  }
  // messages balance: what all ranks sent point-to-point, all received
  unsigned long long sent = 0, received = 0;
  for (const auto& rank : j["ranks"]) {
    sent += rank["messages_sent"].get<unsigned long long>();
    received += rank["messages_received"].get<unsigned long long>();
  }
  EXPECT_EQ(sent, received);
  auto profile = test::run_perfcast("profile " + out);
  EXPECT_EQ(profile.status, 0);
  EXPECT_NE(profile.output.find("MPI_Comm_split"), std::string::npos);
  auto replay = test::replay_json(fmt::format("{}/trace.txt -p {}/examples/platforms/cluster16.xml", out, test::source_dir()));
  EXPECT_GT(replay["makespan_s"].get<double>(), 0);
}

TEST_F(Tracer, MpichProgramsAreTracedWithTheMpichBuild)
{
#ifndef PERFCAST_TRACER_MPICH
  GTEST_FAIL() << "the MPICH tracer was not built (libmpich-dev missing at configure time)";
#endif
  ASSERT_EQ(test::run_command("command -v mpicc.mpich && command -v mpirun.mpich").status, 0) << "MPICH is required";
  test::TempDir dir;
  std::string exe = build_app(dir, "stencil2d.c", "mpicc.mpich");
  std::string out = dir.path() + "/trace";
  // the launcher names MPICH: perfcast picks libperfcast_tracer_mpich.so
  auto r = test::run_perfcast(fmt::format("trace -o {} -- mpirun.mpich -np 4 {} 10 64", out, exe));
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = profile_json(out);
  ASSERT_TRUE(j["complete"].get<bool>());
  for (const auto& rank : j["ranks"]) {
    EXPECT_EQ(rank["messages_sent"], 20u);
    EXPECT_EQ(rank["bytes_received"], 20u * 64 * 8);
  }
  expect_replays(out, "cluster16.xml");
}

TEST_F(Tracer, NonBlockingCollectivesAndALinkedTracer)
{
  test::TempDir dir;
  // linked instead of preloaded: the program's MPI calls resolve to the tracer first
  std::string lib = std::filesystem::path(PERFCAST_TRACER).parent_path().string();
  std::string exe = build_app(dir, "nbcoll.c", "mpicc", fmt::format("-L{} -lperfcast_tracer -Wl,-rpath,{}", lib, lib));
  std::string out = dir.path() + "/trace";
  std::filesystem::create_directories(out);
  // a sanitized tracer (scripts/sanitize.sh) needs its runtime loaded first in the uninstrumented program
  std::string runtime = sanitizer_runtime_of(PERFCAST_TRACER);
  std::string preload =
      runtime.empty() ? "" : fmt::format("-x LD_PRELOAD={} -x ASAN_OPTIONS=detect_leaks=0 ", runtime);
  auto r = test::run_command(fmt::format("{} PERFCAST_TRACE_DIR={} mpirun --oversubscribe -np 4 {}{} 2 64", kMpiEnv,
                                         out, preload, exe));
  ASSERT_EQ(r.status, 0) << r.output;
  std::string text = test::read_text(out + "/rank-1.txt");
  for (const char* action : {"1 iallreduce 512 0 6", "1 ibcast 512 0 6", "1 igather 512 512 0 6 6",
                             "1 iscatter 512 512 0 6 6", "1 ialltoallv 2048 512 512 512 512 2048", "1 ibarrier",
                             "1 wait 1 1 -2", "# perfcast: complete"})
    EXPECT_NE(text.find(action), std::string::npos) << action;
  // perfcast trace writes the index afterwards; here the test does
  std::ofstream(out + "/trace.txt") << "rank-0.txt\nrank-1.txt\nrank-2.txt\nrank-3.txt\n";
  expect_replays(out, "cluster16.xml");
}

TEST_F(Tracer, RunProfilesFeedTheQueueingModel)
{
  // profile.json is a perfcast-runs file: two traced runs fit the model
  test::TempDir dir;
  std::string app = build_app(dir, "stencil2d.c");
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string platform = dir.file("here.json", fmt::format(R"({{"format": "perfcast-platform", "version": 1,
    "hosts": [{{"name": "{}", "speed": "5Gf", "cores": 2}}]}})",
                                                           host));
  std::vector<std::string> profiles;
  for (int np : {2, 3, 4}) { // a single process sends nothing: s(n) needs two or more
    std::string out = fmt::format("{}/trace{}", dir.path(), np);
    ASSERT_EQ(traced(out, app + " 40 200", np).status, 0);
    profiles.push_back(out + "/profile.json");
  }
  auto fit = test::run_perfcast(
      fmt::format("fit qn {} {} {} -p {} -o {}/m.json", profiles[0], profiles[1], profiles[2], platform, dir.path()));
  EXPECT_EQ(fit.status, 0) << fit.output;
  EXPECT_NE(fit.output.find("fitted on 3 runs"), std::string::npos) << fit.output;
}
