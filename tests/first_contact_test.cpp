// What a new user hits first: output directories into missing places, runs
// that fail or are interrupted, the wrong MPI launcher, mistyped commands,
// options, keys and elements. Each test is named after what broke.
#include "TestUtil.hpp"

#include "core/Error.hpp"
#include "core/JsonKeys.hpp"
#include "core/Text.hpp"
#include "platform/Platform.hpp"
#include "qn/Study.hpp"
#include "sched/Jobs.hpp"
#include "sched/ProcessSim.hpp"
#include "sched/Workload.hpp"
#include "trace/MpiFlavour.hpp"

#include <chrono>
#include <filesystem>

namespace perfcast {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// --- output directories -------------------------------------------------------

TEST(OutputDirectories, TraceIntoAMissingParentCreatesNoDirectoryChain)
{
  test::TempDir t;
  const std::string out = t.path() + "/missing/d/run";
  auto r = test::run_perfcast(fmt::format("trace -o {} -- true", out));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.output, "does not exist (expected an existing directory)")) << r.output;
  EXPECT_FALSE(fs::exists(t.path() + "/missing"));
}

TEST(OutputDirectories, AggregateAndCommRunIntoAMissingParentCreateNothing)
{
  test::TempDir t;
  const std::string trace = test::source_dir() + "/examples/traces/stencil16/trace.txt";
  auto r = test::run_perfcast(fmt::format("aggregate {} -o {}/missing/coarse --ranks 4", trace, t.path()));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.output, "does not exist")) << r.output;
  EXPECT_FALSE(fs::exists(t.path() + "/missing"));
  // comm run refuses the path before it runs anything
  r = test::run_perfcast(fmt::format("comm run -o {}/missing/out -- /bin/true", t.path()));
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(fs::exists(t.path() + "/missing"));
}

TEST(OutputDirectories, FailedTraceOfAMissingProgramLeavesNoDirectory)
{
  test::TempDir t;
  const std::string out = t.path() + "/run";
  auto r = test::run_perfcast(fmt::format("trace -o {} -- {}/does-not-exist", out, t.path()));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.output, "cannot run")) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(OutputDirectories, InterruptedCommRunLeavesNoDirectoryAndStopsWithinSeconds)
{
  test::TempDir t;
  const std::string out = t.path() + "/out";
  // the analysed program runs for a minute; Ctrl-C (SIGINT) reaches perfcast after it started
  const auto start = std::chrono::steady_clock::now();
  auto r = test::run_command(fmt::format(
      "{{ {} comm run -o {} -- sleep 60 & p=$!; i=0; while [ $i -lt 100 ] && [ ! -d {} ]; do sleep 0.1; i=$((i+1)); "
      "done; sleep 0.5; kill -INT $p; wait $p; }}",
      test::perfcast_binary(), out, out));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 130) << r.output;
  EXPECT_TRUE(has(r.output, "interrupted by Ctrl-C")) << r.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_LT(seconds, 20.0) << "the interrupt did not stop the run";
}

// --- the tracer for the program's MPI -----------------------------------------

std::string build_pingpong(const test::TempDir& t, const std::string& compiler, const std::string& name)
{
  const std::string exe = t.path() + "/" + name;
  auto r = test::run_command(
      fmt::format("{} -O2 -o {} {}/examples/apps/pingpong.c", compiler, exe, test::source_dir()));
  EXPECT_EQ(r.status, 0) << r.output;
  return exe;
}

TEST(TracerChoice, ProgramOfOneMpiUnderTheOtherLauncherIsRefusedBeforeItRuns)
{
  ASSERT_EQ(test::run_command("command -v mpicc && command -v mpicc.mpich && command -v mpiexec.mpich").status, 0)
      << "Open MPI and MPICH are required";
  test::TempDir t;
  const std::string ompi = build_pingpong(t, "mpicc", "pp_ompi");
  const std::string mpich = build_pingpong(t, "mpicc.mpich", "pp_mpich");
  EXPECT_EQ(linked_mpi(ompi), "openmpi");
  EXPECT_EQ(linked_mpi(mpich), "mpich");
  EXPECT_EQ(choose_mpi({"mpirun", "-np", "2", ompi}, "auto").mpi, "openmpi");
  EXPECT_EQ(choose_mpi({"mpiexec.mpich", "-n", "2", mpich}, "auto").mpi, "mpich");
  EXPECT_EQ(choose_mpi({mpich}, "auto").mpi, "mpich"); // a singleton run: the program decides
  // an Open MPI program under MPICH's launcher crashed inside the MPICH tracer;
  // the reverse failed after 9 s with "Invalid communicator"
  EXPECT_TRUE(has(error_of([&] { choose_mpi({"mpiexec.mpich", "-n", "2", ompi}, "auto"); }),
                  "is linked with Open MPI (libmpi.so.40), but mpiexec.mpich is MPICH's launcher"));
  EXPECT_TRUE(has(error_of([&] { choose_mpi({"mpirun", "-np", "2", mpich}, "auto"); }),
                  "is linked with MPICH (libmpich.so.12), but mpirun is Open MPI's launcher"));
  EXPECT_TRUE(has(error_of([&] { choose_mpi({"mpirun", "-np", "2", ompi}, "mpich"); }), "--mpi mpich"));
  const std::string out = t.path() + "/trace";
  auto r = test::run_perfcast(fmt::format("trace -o {} -- mpiexec.mpich -n 2 {} 1 64", out, ompi));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "MPICH's launcher")) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

// --- mistyped commands and options --------------------------------------------

TEST(Typos, MistypedCommandsAndOptionsGetASuggestion)
{
  auto r = test::run_perfcast("replya x");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.output, "unknown command 'replya' (did you mean 'replay'?)")) << r.output;
  r = test::run_perfcast("replay t.txt --platfrom p.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.output, "perfcast replay: unknown option '--platfrom' (did you mean '--platform'?)")) << r.output;
  r = test::run_perfcast("lb replya");
  EXPECT_TRUE(has(r.output, "perfcast lb: unknown command 'replya' (did you mean 'replay'?)")) << r.output;
  r = test::run_perfcast("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.output, "unknown command 'frobnicate'; 'perfcast --help' lists the commands")) << r.output;
}

TEST(Typos, CloseNamesAreSuggestedAndFarOnesAreNot)
{
  EXPECT_EQ(edit_distance("sped", "speed"), 1u);
  EXPECT_EQ(edit_distance("replya", "replay"), 1u); // a swapped pair is one edit
  EXPECT_EQ(closest_name("cabnet", {"cluster", "cabinet", "zone"}), "cabinet");
  EXPECT_EQ(closest_name("xyz", {"cluster", "cabinet", "zone"}), "");
  EXPECT_EQ(did_you_mean("hots", {"hosts", "links"}), " (did you mean 'hosts'?)");
}

// --- strict readers -----------------------------------------------------------

const char* const kJsonPlatform = R"({
  "format": "perfcast-platform", "version": 1,
  "clusters": [{"name": "c", "bandwidth": "1Gbps", "latency": "50us",
                "nodes": [{"prefix": "n-", "count": 2,
                           "sped": "1Gf", "speed": "1Gf"}]}]
})";

TEST(StrictReaders, UnknownPlatformJsonKeyIsAnErrorAtItsLine)
{
  const std::string e = error_of([] { parse_json_platform(kJsonPlatform, "p.json"); });
  EXPECT_TRUE(has(e, "p.json:5: clusters[0].nodes[0]: unknown key 'sped' (did you mean 'speed'?)")) << e;
  std::string fixed = kJsonPlatform;
  fixed.replace(fixed.find("\"sped\": \"1Gf\", "), 15, "");
  EXPECT_EQ(parse_json_platform(fixed, "p.json").hosts().size(), 2u);
  const std::string top = error_of([] {
    parse_json_platform(R"({"format": "perfcast-platform", "version": 1, "host": []})", "q.json");
  });
  EXPECT_TRUE(has(top, "q.json:1: unknown key 'host' (did you mean 'hosts'?)")) << top;
}

TEST(StrictReaders, UnknownPlatformXmlElementAndAttributeAreErrors)
{
  const std::string typo = error_of([] {
    parse_simgrid_platform("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Cluster\">\n"
                           "  <cabnet id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Gbps\" "
                           "lat=\"1us\"/>\n</zone>\n</platform>",
                           "p.xml");
  });
  EXPECT_TRUE(has(typo, "p.xml:3: <cabnet> is not a SimGrid platform element (did you mean 'cabinet'?)")) << typo;
  const std::string attribute = error_of([] {
    parse_simgrid_platform("<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" "
                           "sped=\"1Gf\" speed=\"1Gf\" bw=\"1Gbps\" lat=\"1us\"/>\n</platform>",
                           "p.xml");
  });
  EXPECT_TRUE(has(attribute, "p.xml:2: <cluster> has an unknown attribute 'sped' (did you mean 'speed'?)"))
      << attribute;
  const std::string unmodelled = error_of([] {
    parse_simgrid_platform("<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" "
                           "speed=\"1Gf\"/>\n<router id=\"r\"/>\n</zone>\n</platform>",
                           "p.xml");
  });
  EXPECT_TRUE(has(unmodelled, "p.xml:4: <router> inside <zone> is not supported yet")) << unmodelled;
}

// found by the fuzzer: a radical of 2e67 was converted to int (undefined behaviour)
TEST(StrictReaders, RadicalBeyondAnIntOrNotWholeIsAnError)
{
  for (const char* radical : {"2e67-2e67", "1.5", "0-3,2e9"}) {
    const std::string e = error_of([&] {
      parse_simgrid_platform(fmt::format("<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"n\" radical=\"{}\" "
                                         "speed=\"1Gf\" bw=\"1Gbps\" lat=\"1us\"/>\n</platform>",
                                         radical),
                             "p.xml");
    });
    EXPECT_TRUE(has(e, "p.xml:2: <cluster> radical=")) << radical << ": " << e;
  }
}

// SimGrid's <cabinet> (sg_platf_new_cabinet): hosts PREFIX i SUFFIX of one core,
// each with a split-duplex private link link_HOST used as its host link
TEST(StrictReaders, CabinetInAClusterZoneBuildsSimGridsHostsAndLinks)
{
  Platform p = parse_simgrid_platform(
      "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Cluster\">\n"
      "  <cabinet id=\"cab\" prefix=\"node-\" suffix=\".a\" radical=\"0-2\" speed=\"2Gf\" bw=\"125MBps\" lat=\"10us\"/>\n"
      "  <backbone id=\"bb\" bandwidth=\"1GBps\" latency=\"1us\"/>\n</zone>\n</platform>",
      "cab.xml");
  ASSERT_EQ(p.hosts().size(), 3u);
  EXPECT_EQ(p.hosts()[2].name, "node-2.a");
  EXPECT_EQ(p.hosts()[0].speed_flops, 2e9);
  EXPECT_EQ(p.hosts()[0].cores, 1);
  Route r = p.route(p.find_host("node-0.a"), p.find_host("node-2.a"));
  ASSERT_EQ(r.links.size(), 3u); // up, backbone, down
  EXPECT_EQ(p.links()[static_cast<std::size_t>(r.links[0])].name, "link_node-0.a_UP");
  EXPECT_EQ(p.links()[static_cast<std::size_t>(r.links[2])].name, "link_node-2.a_DOWN");
  EXPECT_DOUBLE_EQ(r.latency_s, 10e-6 + 1e-6 + 10e-6);
}

// a valid SimGrid file with <cabinet>s got "the platform has no host": the
// replay on one now gives smpirun -replay's makespan
TEST(StrictReaders, CabinetPlatformReplaysAsSimGridDoes)
{
  test::TempDir t;
  const std::string platform = t.file(
      "cabinets.xml",
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Cluster\">\n"
      "  <cabinet id=\"a\" prefix=\"a-\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\"/>\n"
      "  <cabinet id=\"b\" prefix=\"b-\" suffix=\"\" radical=\"0-1\" speed=\"2Gf\" bw=\"12.5MBps\" lat=\"100us\"/>\n"
      "  <backbone id=\"bb\" bandwidth=\"1.25GBps\" latency=\"10us\"/>\n</zone>\n</platform>\n");
  // a ring of 1 MB messages and unequal computation on four ranks, one per host
  std::string index;
  for (int r = 0; r < 4; ++r) {
    const int next = (r + 1) % 4, prev = (r + 3) % 4;
    t.file(fmt::format("r{}.txt", r), fmt::format("{0} init\n{0} compute {1}\n{0} isend {2} 0 1000000\n"
                                                 "{0} recv {3} 0 1000000\n{0} waitall\n{0} allreduce 8 1e6\n"
                                                 "{0} finalize\n",
                                                 r, (r + 1) * 1e8, next, prev));
    index += fmt::format("{}/r{}.txt\n", t.path(), r);
  }
  const std::string trace = t.file("trace.txt", index);
  const std::string hosts = t.file("hosts", "a-0\na-1\nb-0\nb-1\n");
  auto ours = test::replay_json(fmt::format("{} --platform {} --hostfile {}", trace, platform, hosts));
  std::string log;
  const double simgrid = test::simgrid_makespan(trace, 4, platform, hosts, log);
  ASSERT_GT(simgrid, 0) << log;
  EXPECT_NEAR(ours["makespan_s"].get<double>(), simgrid, 1e-6 * simgrid) << log;
}

TEST(StrictReaders, UnknownWorkloadAndJobKeysAreErrors)
{
  const std::string w = error_of([] {
    sched::parse_workload(R"({"format": "perfcast-workload", "version": 1,
  "processes": [{"arrival_s": 0, "host": "a", "stages": [["cpu", 1e9]]}]})",
                          "w.json");
  });
  EXPECT_TRUE(has(w, "w.json:2: processes[0]: unknown key 'host'")) << w;
  const std::string top = error_of([] {
    sched::parse_workload(R"({"format": "perfcast-workload", "version": 1, "placement": "spread",
  "generate": {"count": 2}})",
                          "w.json");
  });
  EXPECT_TRUE(has(top, "w.json:1: unknown key 'placement'")) << top;
  const std::string jobs = error_of([] {
    sched::parse_any_workload(R"({"format": "perfcast-workload", "version": 1,
  "jobs": [{"procs": 2, "run_s": 10, "core": 4}]})",
                              "j.json");
  });
  EXPECT_TRUE(has(jobs, "j.json:2: jobs[0]: unknown key 'core'")) << jobs;
}

// found by the fuzzer: a number beyond a double (1e999) or a field of the
// wrong type ended perfcast schedule with an uncaught exception
TEST(StrictReaders, OutOfRangeNumbersAndWrongTypesInWorkloadsAreErrors)
{
  for (const char* text : {R"({"format": "perfcast-workload", "version": 1, "generate": {"count": 1e999}})",
                           R"({"format": 5, "version": 1, "generate": {"count": 2}})",
                           R"({"format": "perfcast-workload", "version": "1", "jobs": []})",
                           // a version or seed beyond an int was converted to one (undefined)
                           R"({"format": "perfcast-workload", "version": 1111111111111111111111111, "jobs": []})",
                           R"({"format": "perfcast-workload", "version": 1, "generate": {"count": 2, "seed": 1e30}})"}) {
    const std::string a = error_of([&] { sched::parse_any_workload(text, "w.json"); });
    EXPECT_TRUE(has(a, "w.json: ")) << text << ": " << a;
  }
  std::vector<sched::RigidJob> jobs(1);
  jobs[0].id = 1;
  const std::string s = error_of([&] {
    sched::apply_sidecar(jobs, R"({"format": "perfcast-swf-sidecar", "version": [1], "jobs": {}})", "s.json");
  });
  EXPECT_TRUE(has(s, "s.json: ")) << s;
}

// --- numbers a user reads -----------------------------------------------------

TEST(Outputs, WaitingTimeOfAProcessServedAtOnceIsZeroNotMinusOneE16)
{
  sched::ProcessResult r;
  r.arrival_s = 0.7;
  r.service_s = 0.1;
  r.finish_s = 0.7 + 0.1; // 0.7999999999999999: finish - arrival is 0.1 - 1.3e-16
  EXPECT_EQ(r.waiting_s(), 0.0);
  EXPECT_FALSE(std::signbit(r.waiting_s()));
}

// Amdahl's fit was scored at -22% accuracy: a model off by more than 100% on
// average reads 0, and its error stays in the CV
TEST(Outputs, AccuracyOfAModelOffByMoreThanItsRunsIsZeroNotNegative)
{
  std::vector<MeasuredRun> runs(2);
  runs[0].procs = 1;
  runs[0].time_s = 1.0;
  runs[1].procs = 2;
  runs[1].time_s = 0.5;
  Accuracy a = score("amdahl", {2.5, 1.2}, runs); // off by 150% and 140%
  EXPECT_EQ(a.accuracy_percent, 0.0);
  EXPECT_GT(a.cv, 1.0);
  EXPECT_NEAR(score("close", {1.1, 0.45}, runs).accuracy_percent, 90.0, 1e-9); // 100 - (10% + 10%) / 2
}

TEST(Outputs, NoRouteToItselfNamesThePlatformFile)
{
  test::TempDir t;
  const std::string platform = t.file("full.xml", "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                                                  "<host id=\"a\" speed=\"1Gf\"/>\n</zone>\n</platform>\n");
  const std::string trace = t.file("trace.txt", "0 init\n1 init\n0 send 1 8\n1 recv 0 8\n0 finalize\n1 finalize\n");
  auto r = test::run_perfcast(fmt::format("replay {} --platform {} --placement a:2", trace, platform));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.output, platform + ": no route from host 'a' to itself")) << r.output;
}

} // namespace
} // namespace perfcast
