// The perfcast command as a user runs it: exit codes, messages, JSON, golden output.
#include "TestUtil.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace perfcast;

namespace {

std::string examples() { return test::source_dir() + "/examples"; }

} // namespace

TEST(Cli, GoldenTableForASmallTrace)
{
  test::TempDir dir;
  dir.file("r0.txt", "0 init\n0 compute 1e9\n0 send 1 0 1000\n0 finalize\n");
  dir.file("r1.txt", "1 init\n1 recv 0 0 1000\n1 finalize\n");
  std::string index = dir.file("i.txt", "r0.txt\nr1.txt\n");
  std::string platform = dir.file("p.xml", "<platform version=\"4.1\"><cluster id=\"c\" prefix=\"n\" radical=\"0-1\" "
                                           "speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\"/></platform>");
  auto r = test::run_perfcast(fmt::format("replay {} --platform {} -q", index, platform));
  ASSERT_EQ(r.status, 0) << r.output;
  // 1 s of compute, then 1016 bytes (in the (732, 1426] factor band):
  // 100 us x 1.9503 + 1016 / (0.341987 x 125 MB/s) = 195.0 us + 23.8 us = 218.8 us
  const char* expected =
      "makespan: 1.000219 s   (2 ranks, 7 actions, network model smpi)\n\n"
      " rank host                 finish_s    compute_s       comm_s       wait_s  msgs_out    bytes_out   msgs_in     "
      "bytes_in\n"
      "    0 n0                   1.000000     1.000000     0.000000     0.000000         1         1000         0     "
      "       0\n"
      "    1 n1                   1.000219     0.000000     0.000219     1.000000         0            0         1     "
      "    1000\n";
  EXPECT_EQ(r.output, expected);
}

TEST(Cli, JsonHasMakespanAndRanks)
{
  auto j = test::replay_json(examples() + "/traces/stencil16/trace.txt --platform " + examples() + "/platforms/hetero8.json");
  ASSERT_TRUE(j.contains("makespan_s"));
  ASSERT_EQ(j["ranks"].size(), 16u);
  double latest = 0;
  for (const auto& r : j["ranks"])
    latest = std::max(latest, r["finish_s"].get<double>());
  EXPECT_DOUBLE_EQ(j["makespan_s"].get<double>(), latest);
  EXPECT_EQ(j["ranks"][6]["host"], "e52450-0");
}

TEST(Cli, ElasticMasterWorkerRedealsTasksOnAnotherPlatform)
{
  std::string fixed = examples() + "/traces/master_worker8/trace.txt";
  std::string elastic = examples() + "/traces/master_worker8_elastic/trace.txt";
  // on the platform it was recorded on, both forms replay the same run
  std::string home = "--platform " + examples() + "/platforms/cluster16.xml";
  EXPECT_DOUBLE_EQ(test::replay_json(fixed + " " + home)["makespan_s"].get<double>(),
                   test::replay_json(elastic + " " + home)["makespan_s"].get<double>());
  // on the mixed cluster the two E5-2450 workers (ranks 6, 7; 1.75x faster)
  // take more of the 40 tasks, and the run ends sooner than the fixed replay
  std::string away = "--platform " + examples() + "/platforms/hetero8.json";
  auto e = test::replay_json(elastic + " " + away);
  auto f = test::replay_json(fixed + " " + away);
  int total = 0;
  for (int w = 1; w < 8; ++w)
    total += e["ranks"][w]["messages_received"].get<int>() - 1; // minus the stop message
  EXPECT_EQ(total, 40);
  for (int slow = 1; slow <= 5; ++slow)
    for (int fast = 6; fast <= 7; ++fast)
      EXPECT_GT(e["ranks"][fast]["messages_received"].get<int>(), e["ranks"][slow]["messages_received"].get<int>());
  EXPECT_LT(e["makespan_s"].get<double>(), 0.9 * f["makespan_s"].get<double>());
}

TEST(Cli, TimelineIsWrittenAsSvg)
{
  test::TempDir dir;
  std::string svg = dir.path() + "/t.svg";
  auto r = test::run_perfcast("replay " + examples() + "/traces/collectives8/trace.txt --platform " + examples() +
                    "/platforms/hetero8.xml --timeline " + svg + " -q");
  ASSERT_EQ(r.status, 0) << r.output;
  std::string text = test::read_text(svg);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_NE(text.find("<!-- generator: perfcast -->\n<svg"), std::string::npos);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  EXPECT_NE(text.find("<rect"), std::string::npos);
}

TEST(Cli, BadInputGivesLocatedErrorsAndNonZeroExit)
{
  test::TempDir dir;
  std::string platform = examples() + "/platforms/cluster16.xml";
  dir.file("r0.txt", "0 init\n0 sned 1 0 8\n");
  dir.file("r1.txt", "1 init\n");
  std::string bad_action = dir.file("i.txt", "r0.txt\nr1.txt\n");
  auto r = test::run_perfcast("replay " + bad_action + " --platform " + platform);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("r0.txt:2: unknown action 'sned'"), std::string::npos) << r.output;

  r = test::run_perfcast("replay " + bad_action + " --platform " + dir.path() + "/missing.xml");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("missing.xml: cannot open platform file"), std::string::npos) << r.output;

  std::string hosts = dir.file("hosts", "node-0\nnode-99\n");
  r = test::run_perfcast("replay " + bad_action + " --platform " + platform + " --hostfile " + hosts);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("hosts:2: host 'node-99' is not in the platform"), std::string::npos) << r.output;

  dir.file("d0.txt", "0 recv 1 0 8\n");
  dir.file("d1.txt", "1 recv 0 0 8\n");
  r = test::run_perfcast("replay " + dir.file("d.txt", "d0.txt\nd1.txt\n") + " --platform " + platform);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("deadlock"), std::string::npos) << r.output;

  r = test::run_perfcast("replay " + bad_action + " --platform " + platform + " --net bogus");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown network model 'bogus'"), std::string::npos) << r.output;

  r = test::run_perfcast("replay " + bad_action);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("--platform"), std::string::npos) << r.output;
}

TEST(Cli, ListNamesModelsAndAlgorithms)
{
  auto r = test::run_perfcast("list");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("smpi"), std::string::npos);
  EXPECT_NE(r.output.find("loggp"), std::string::npos);
  EXPECT_NE(r.output.find("rabenseifner"), std::string::npos);
}

TEST(Cli, FitPredictCompareOnBundledRuns)
{
  test::TempDir dir;
  std::string runs = examples() + "/runs/stencil2d-4nodes.csv";
  std::string platform = examples() + "/platforms/table1-4nodes.json";
  std::string model = dir.path() + "/model.json";
  auto fit = test::run_perfcast("fit qn " + runs + " -p " + platform + " -o " + model);
  ASSERT_EQ(fit.status, 0) << fit.output;
  EXPECT_NE(fit.output.find("W (computation)"), std::string::npos) << fit.output;
  std::string svg = dir.path() + "/curve.svg";
  auto pr = test::run_perfcast("predict " + model + " -p " + platform + " --procs 2..64:x2 --best-group 2 --svg " + svg +
                    " --measured " + runs + " --json");
  ASSERT_EQ(pr.status, 0) << pr.output;
  auto j = nlohmann::json::parse(pr.output);
  ASSERT_EQ(j["predictions"].size(), 6u);
  EXPECT_EQ(j["predictions"][0]["procs"], 2);
  EXPECT_GT(j["predictions"][0]["predicted_s"].get<double>(), 0);
  EXPECT_TRUE(j.contains("turning_point"));
  EXPECT_EQ(j["best_group"]["servers"].size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(svg));
  auto cmp = test::run_perfcast("compare " + runs + " -p " + platform + " --json");
  ASSERT_EQ(cmp.status, 0) << cmp.output;
  auto all = nlohmann::json::parse(cmp.output);
  const auto& c = all["leave_one_out"];
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]["model"], "queueing-network");
  EXPECT_EQ(c[0]["predicted_s"].size(), 7u);
  EXPECT_LE(c[0]["accuracy_percent"].get<double>(), 100.0);
  // the runs have 2 to 16 processes: fit on the smaller half of the counts, predict the rest
  const auto& x = all["extrapolation"];
  ASSERT_TRUE(x.contains("accuracy")) << x.dump();
  EXPECT_GT(x["tested"].size(), 0u);
  for (const auto& t : x["tested"])
    EXPECT_GT(t["procs"].get<int>(), x["largest_training_procs"].get<int>());
  EXPECT_EQ(x["accuracy"][0]["predicted_s"].size(), x["tested"].size());
}

TEST(Cli, FitFollowsRecordedWorkUnlessConstantWorkIsAsked)
{
  // Replays at 1, 2, 4 and 8 processes on two 8-core 9.6 Gflop/s nodes whose
  // recorded work grows as W (1 + n) / 2 (work replicated per process, as
  // HPL's polling or CoMD's ghost cells): `fit qn` follows it by default
  // (session 11), `--constant-work` keeps W constant as the paper, and the
  // old `--work-growth` is accepted but cannot be combined with it
  test::TempDir dir;
  std::string platform = examples() + "/platforms/table1-2nodes.json";
  std::string runs;
  for (int n : {1, 2, 4, 8}) {
    double work = 1e10 * (1 + n) / 2.0, rank_compute = work / n / 9.6e9;
    nlohmann::json ranks = nlohmann::json::array();
    for (int r = 0; r < n; ++r) {
      double comm = n > 1 ? 0.005 : 0;
      ranks.push_back({{"host", fmt::format("e5620-{}", r % 2)}, {"compute_s", rank_compute}, {"wait_s", comm},
                       {"communicate_s", comm}, {"messages_sent", n > 1 ? 10 : 0}, {"bytes_sent", n > 1 ? 1e5 : 0}});
    }
    nlohmann::json doc = {{"makespan_s", rank_compute + (n > 1 ? 0.01 : 0)}, {"ranks", ranks}};
    runs += " " + dir.file(fmt::format("run-{}.json", n), doc.dump());
  }
  auto growth_of = [&](const std::string& flags) {
    std::string model = dir.path() + "/m.json";
    auto r = test::run_perfcast("fit qn" + runs + " -p " + platform + " -o " + model + " --force " + flags);
    EXPECT_EQ(r.status, 0) << r.output;
    std::ifstream in(model);
    return nlohmann::json::parse(in).value("work_growth", nlohmann::json());
  };
  nlohmann::json by_default = growth_of("");
  ASSERT_TRUE(by_default.is_object()) << by_default.dump();
  EXPECT_EQ(by_default["form"], "linear");
  EXPECT_TRUE(growth_of("--constant-work").is_null());
  EXPECT_EQ(growth_of("--work-growth"), by_default);
  auto both = test::run_perfcast("fit qn" + runs + " -p " + platform + " -o " + dir.path() +
                                 "/x.json --work-growth --constant-work");
  EXPECT_NE(both.status, 0);
}

TEST(Cli, ReplayFitAndPredictExpandTheTracesCollectives)
{
  // a code of one allreduce and two reduces to rank 0 a run, recorded at 1, 2, 4 and 8 processes: `replay --json`
  // lists the calls, `fit qn` keeps them, and `predict` expands them at 64 with the replay's algorithms: an
  // allreduce is 2 (n - 1) messages, a reduce n - 1, so (2 x 63 + 2 x 63) / 64 = 3.9375 messages a rank
  test::TempDir dir;
  std::string xml = examples() + "/platforms/table1-2nodes.xml", platform = examples() + "/platforms/table1-2nodes.json";
  std::string runs;
  for (int n : {1, 2, 4, 8}) {
    std::string index;
    for (int r = 0; r < n; ++r) {
      dir.file(fmt::format("t{}/rank{}.txt", n, r),
               fmt::format("{0} init\n{0} compute {1}\n{0} allreduce 8 0\n{0} reduce 100000 0 0\n{0} compute {1}\n"
                           "{0} reduce 100000 0 0\n{0} finalize\n",
                           r, 4e9 / n));
      index += fmt::format("rank{}.txt\n", r);
    }
    nlohmann::json run = test::replay_json(dir.file(fmt::format("t{}/index.txt", n), index) + " -p " + xml);
    ASSERT_TRUE(run["ranks"][0].contains("collective_calls")) << run.dump().substr(0, 2000);
    runs += " " + dir.file(fmt::format("run-{}.json", n), run.dump());
  }
  std::string model = dir.path() + "/m.json";
  auto fit = test::run_perfcast("fit qn" + runs + " -p " + platform + " -o " + model);
  ASSERT_EQ(fit.status, 0) << fit.output;
  EXPECT_NE(fit.output.find("    reduce         2 calls of 1e+05 B x n^-0.00; root 0 (100%)"), std::string::npos)
      << fit.output;
  auto pr = test::run_perfcast("predict " + model + " -p " + platform + " --procs 64");
  ASSERT_EQ(pr.status, 0) << pr.output;
  EXPECT_NE(pr.output.find("collectives: allreduce 1, reduce 2 calls a rank, expanded by the replay's default "
                           "algorithms: 3.938 messages a rank at 64"),
            std::string::npos)
      << pr.output;
}

TEST(Cli, FitAndPredictTakeTheProcessGrid)
{
  // replays of a 2-D face exchange on 2x1, 2x2 and 4x2 (x fastest; 10
  // messages of 1,000 bytes per neighbour pair) at 1, 2, 4 and 8 processes:
  // `fit qn --grid-file` classes it on the file's grids and `predict` lays
  // the classes on the 64-process grid the file names
  test::TempDir dir;
  std::string platform = examples() + "/platforms/table1-2nodes.json";
  std::string runs;
  for (auto [n, px] : {std::pair{1, 1}, {2, 2}, {4, 2}, {8, 4}}) {
    nlohmann::json ranks = nlohmann::json::array();
    for (int r = 0; r < n; ++r) {
      int x = r % px, y = r / px, py = n / px;
      nlohmann::json partners = nlohmann::json::array();
      for (auto [dx, dy] : {std::pair{-1, 0}, {1, 0}, {0, -1}, {0, 1}})
        if (x + dx >= 0 && x + dx < px && y + dy >= 0 && y + dy < py)
          partners.push_back({{"rank", x + dx + px * (y + dy)}, {"messages", 10}, {"bytes", 10000}});
      double sent = 10.0 * static_cast<double>(partners.size());
      ranks.push_back({{"host", fmt::format("e5620-{}", r % 2)}, {"compute_s", 1.0 / n}, {"wait_s", 0.001},
                       {"communicate_s", 0.001}, {"messages_sent", sent}, {"bytes_sent", 1000 * sent},
                       {"bytes_received", 1000 * sent}, {"partners", partners}});
    }
    nlohmann::json doc = {{"makespan_s", 1.0 / n + 0.002 * (n > 1)}, {"ranks", ranks}};
    runs += " " + dir.file(fmt::format("run-{}.json", n), doc.dump());
  }
  std::string grids = dir.file("faces.grid", "# x fastest\n1 1x1\n2 2x1\n4 2x2\n8 4x2\n64 8x8\n");
  std::string model = dir.path() + "/m.json";
  auto fit = test::run_perfcast("fit qn" + runs + " -p " + platform + " -o " + model + " --grid-file " + grids);
  ASSERT_EQ(fit.status, 0) << fit.output;
  EXPECT_NE(fit.output.find("process grid          2-D grid, 4 classes"), std::string::npos) << fit.output;
  auto pr = test::run_perfcast("predict " + model + " -p " + platform + " --procs 64 --json");
  ASSERT_EQ(pr.status, 0) << pr.output;
  // (warnings on stderr first: the fit has 3 sending runs for 2 constants)
  auto row = nlohmann::json::parse(pr.output.substr(pr.output.find("{\n")))["predictions"][0];
  EXPECT_NE(row["structure"].get<std::string>().find("8x8 at 64"), std::string::npos) << row.dump();
  // 224 ordered neighbour pairs of 10 messages at 8x8: 35 a process
  EXPECT_NEAR(row["inputs"]["messages_per_process"].get<double>(), 35, 1e-6) << row.dump();
  // a count the file does not name, a bad line, and both options at once are errors that say so
  auto unnamed = test::run_perfcast("predict " + model + " -p " + platform + " --procs 32");
  EXPECT_EQ(unnamed.status, 1);
  EXPECT_NE(unnamed.output.find("faces.grid: the grid file names no grid for 32 processes"), std::string::npos)
      << unnamed.output;
  std::string bad = dir.file("bad.grid", "2 2x1\n32 4x4\n");
  auto refused = test::run_perfcast("fit qn" + runs + " -p " + platform + " -o " + dir.path() + "/x.json --grid-file " +
                                    bad);
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.output.find("bad.grid:2: grid 4x4 holds 16 processes, not 32"), std::string::npos)
      << refused.output;
  auto both = test::run_perfcast("fit qn" + runs + " -p " + platform + " -o " + dir.path() +
                                 "/x.json --grid dims_create --grid-file " + grids);
  EXPECT_EQ(both.status, 1);
  EXPECT_NE(both.output.find("--grid and --grid-file: give one of them"), std::string::npos) << both.output;
}

TEST(Cli, ModelBadInputIsNamed)
{
  test::TempDir dir;
  std::string platform = examples() + "/platforms/table1-4nodes.json";
  std::string missing = dir.file("missing.csv", "procs,time_s,mpi_s,sends_per_process,placement\n2,1,0.1,10,e5620-0:2\n");
  auto r = test::run_perfcast("fit qn " + missing + " -p " + platform + " -o " + dir.path() + "/m.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("missing.csv:1: CSV header lacks column 'message_bytes'"), std::string::npos) << r.output;

  std::string ghost = dir.file("ghost.csv", "procs,time_s,mpi_s,sends_per_process,message_bytes,placement\n"
                                            "2,1,0.1,10,100,ghost-0:2\n4,0.6,0.1,12,90,e5620-0:4\n");
  r = test::run_perfcast("fit qn " + ghost + " -p " + platform + " -o " + dir.path() + "/m.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("ghost.csv:2: placement names host 'ghost-0', which the platform lacks"), std::string::npos)
      << r.output;

  std::string one = dir.file("one.csv", "procs,time_s,mpi_s,sends_per_process,message_bytes,placement\n"
                                        "2,1,0.1,10,100,e5620-0:2\n");
  r = test::run_perfcast("fit qn " + one + " -p " + platform + " -o " + dir.path() + "/m.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("2 constants to fit but 1 run was given"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/m.json"));

  std::string badcount = dir.file("bad.csv", "procs,time_s,mpi_s,sends_per_process,message_bytes,placement\n"
                                             "3,1,0.1,10,100,e5620-0:2\n");
  r = test::run_perfcast("fit qn " + badcount + " -p " + platform + " -o " + dir.path() + "/m.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("bad.csv:2: placement puts 2 processes but procs is 3"), std::string::npos) << r.output;
}
