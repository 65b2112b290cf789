// The queueing model's collective traffic from the traces' calls (src/qn/CollectiveTraffic): closed forms of the
// replay's default algorithms, and agreement with the replay itself across alltoall's algorithm switch.
#include "QnTestUtil.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "platform/Placement.hpp"
#include "qn/CollectiveTraffic.hpp"
#include "report/ReplayOutput.hpp"
#include "sim/Replay.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <map>

using namespace perfcast;

namespace {

// Each rank's trace: `body` (actions after the rank number) between init and finalize.
std::string trace_of(int procs, const std::string& body, test::TempDir& dir, const std::string& name)
{
  std::string index;
  for (int r = 0; r < procs; ++r) {
    std::string text = fmt::format("{0} init\n{0} compute 1e6\n", r);
    std::size_t start = 0;
    while (start < body.size()) {
      std::size_t end = body.find('\n', start);
      text += fmt::format("{} {}\n", r, body.substr(start, end - start));
      start = end == std::string::npos ? body.size() : end + 1;
    }
    text += fmt::format("{} finalize\n", r);
    std::string file = fmt::format("{}-{}/rank{}.txt", name, procs, r);
    dir.file(file, text);
    index += fmt::format("rank{}.txt\n", r);
  }
  return dir.file(fmt::format("{}-{}/index.txt", name, procs), index);
}

// The replay's JSON of `body` on `procs` ranks of the two-node cluster, written as a run file; its path.
std::string replayed_run(int procs, const std::string& body, test::TempDir& dir, const std::string& name,
                         ReplayReport* report = nullptr)
{
  Platform p = test::qn_two_nodes();
  TraceIndex t = read_trace_index(trace_of(procs, body, dir, name));
  ReplayReport r = replay_trace(t, p, place_by_policy(p, "round-robin", procs), ReplayOptions{});
  if (report != nullptr)
    *report = r;
  return dir.file(fmt::format("{}-run-{}.json", name, procs), replay_to_json(r, p).dump());
}

CollectiveType one_call(const std::string& type, double payload, std::vector<std::pair<int, double>> roots = {})
{
  CollectiveType t;
  t.type = type;
  t.calls_per_rank = 1;
  t.payload_bytes = payload;
  t.roots = std::move(roots);
  return t;
}

} // namespace

TEST(QnCollectives, ReduceRootGetsAllOfItAtAnyCount)
{
  // reduce = linear to the root: each of the n - 1 others sends the root its block of P bytes, so the root
  // receives (n - 1) P, all of the run's bytes, and the busiest share is 1 whatever n
  for (int n : {2, 3, 16, 64}) {
    CollectiveTrafficAt at = collective_traffic_at({one_call("reduce", 1000, {{0, 1.0}})}, n);
    EXPECT_DOUBLE_EQ(at.messages, n - 1) << n;
    EXPECT_DOUBLE_EQ(at.bytes, 1000.0 * (n - 1)) << n;
    EXPECT_DOUBLE_EQ(at.received[0], at.bytes) << n;
    EXPECT_DOUBLE_EQ(busiest_receive_share(at.received, 0, 1.0 / n), 1.0) << n;
  }
  // a root at rank 2 half the time: rank 2 and rank 0 get half each
  CollectiveTrafficAt at = collective_traffic_at({one_call("reduce", 1000, {{0, 0.5}, {2, 0.5}})}, 8);
  EXPECT_DOUBLE_EQ(at.received[0], 3500);
  EXPECT_DOUBLE_EQ(at.received[2], 3500);
}

TEST(QnCollectives, AllreduceSendsTwoNMinusOneMessages)
{
  // the default allreduce is a linear reduce to 0 (n - 1 messages into rank 0) and a binomial bcast from 0
  // (n - 1 messages, one into every other rank): 2 (n - 1) messages of P bytes
  for (int n : {2, 5, 16, 64}) {
    CollectiveTrafficAt at = collective_traffic_at({one_call("allreduce", 8)}, n);
    EXPECT_DOUBLE_EQ(at.messages, 2.0 * (n - 1)) << n;
    EXPECT_DOUBLE_EQ(at.bytes, 16.0 * (n - 1)) << n;
    EXPECT_DOUBLE_EQ(at.received[0], 8.0 * (n - 1)) << n;
    for (int r = 1; r < n; ++r)
      EXPECT_DOUBLE_EQ(at.received[static_cast<std::size_t>(r)], 8.0) << n << " " << r;
  }
  // a mean payload of 12 B (calls of 8 and 16) scales the blocks, the messages stay
  CollectiveType mean = one_call("allreduce", 12);
  mean.calls_per_rank = 2;
  CollectiveTrafficAt at = collective_traffic_at({mean}, 4);
  EXPECT_DOUBLE_EQ(at.messages, 12);
  EXPECT_DOUBLE_EQ(at.bytes, 144);
  EXPECT_DOUBLE_EQ(collective_traffic_at({mean}, 1).messages, 0); // one process sends nothing
}

TEST(QnCollectives, AlltoallAcrossTheAlgorithmSwitchSendsWhatTheReplaySends)
{
  // blocks of 600 B: the replay's Open MPI rules send n - 1 messages a rank at 16 and 32 processes, Bruck's
  // log2 n = 6 at 64, so the messages per rank change form with n (fewer at 64 than at 32). Fitted on
  // the replays at 2, 4 and 8, the model's expansion at each count must send what the replay of the same trace
  // sends there: messages, bytes and each rank's received bytes
  test::TempDir dir;
  const std::string body = "alltoall 600 600\nallreduce 8 0\nalltoall 600 600\nreduce 4000 0 0\nbarrier\n";
  std::vector<MeasuredRun> runs;
  for (int n : {2, 4, 8})
    runs.push_back(load_runs(replayed_run(n, body, dir, "a2a")).front());
  std::vector<std::string> warnings;
  std::optional<CollectiveTraffic> fitted = fit_collective_traffic(runs, warnings);
  ASSERT_TRUE(fitted);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(fitted->types.size(), 4u); // allreduce, alltoall, barrier, reduce
  std::map<int, double> per_rank;
  for (int n : {16, 32, 64}) {
    ReplayReport truth;
    replayed_run(n, body, dir, "a2a", &truth);
    CollectiveTrafficAt at = collective_traffic_at(fitted->types, n);
    double messages = 0, bytes = 0;
    for (const RankReport& r : truth.ranks) {
      messages += static_cast<double>(r.collective.messages);
      bytes += static_cast<double>(r.collective.bytes);
      EXPECT_NEAR(at.received[static_cast<std::size_t>(r.rank)], static_cast<double>(r.bytes_received), 1e-6)
          << n << " rank " << r.rank;
    }
    EXPECT_NEAR(at.messages, messages, 1e-9) << n;
    EXPECT_NEAR(at.bytes, bytes, 1e-6) << n;
    per_rank[n] = messages / n;
  }
  EXPECT_GT(per_rank[32], per_rank[16]);
  EXPECT_LT(per_rank[64], per_rank[32]); // not one form through the counts
}

TEST(QnCollectives, RunFilesWithoutCollectiveCallsStillFitWithTheirCollectivesInTheCurves)
{
  // a reduce code: with the calls listed, the model expands them and the curves beside them are empty; the same
  // replays without "collective_calls" (run files before session 16) fit as before, with the traffic in s(n)
  test::TempDir dir;
  const std::string body = "compute 5e8\nreduce 100000 0 0\ncompute 5e8\nreduce 100000 0 0\n";
  std::vector<MeasuredRun> with, without;
  for (int n : {1, 2, 4, 8}) {
    std::string path = replayed_run(n, body, dir, "reduce");
    with.push_back(load_runs(path).front());
    nlohmann::json doc = nlohmann::json::parse(read_file(path, "run"));
    for (auto& rank : doc["ranks"])
      rank.erase("collective_calls");
    without.push_back(load_runs(dir.file(fmt::format("old-run-{}.json", n), doc.dump())).front());
    EXPECT_TRUE(with.back().collectives_listed);
    EXPECT_FALSE(without.back().collectives_listed);
  }
  Platform p = test::qn_two_nodes();
  QueueingModel expanded = fit_queueing_model(with, p);
  QueueingModel old = fit_queueing_model(without, p);
  ASSERT_TRUE(expanded.collectives);
  EXPECT_FALSE(old.collectives);
  EXPECT_DOUBLE_EQ(expanded.sends(64), 0); // nothing beside the collectives
  EXPECT_GT(old.sends(8), 0);
  // at 64 the reduce's 63 messages a call, two calls, all into rank 0
  EXPECT_NEAR(cycles_at(expanded, 64), 2.0 * 63 / 64, 1e-9);
  EXPECT_NEAR(hot_receive_share_at(expanded, 64), 1.0, 1e-9);
  // and the model file keeps them
  auto [back, amdahl] = model_from_json(model_to_json(expanded, fit_amdahl(with)).dump(), "model.json");
  ASSERT_TRUE(back.collectives);
  EXPECT_NEAR(cycles_at(back, 64), 2.0 * 63 / 64, 1e-9);
  // a model file naming no collective is an error that names the file
  nlohmann::json bad = model_to_json(expanded, fit_amdahl(with));
  bad["collective_traffic"]["types"][0]["type"] = "sendd";
  try {
    model_from_json(bad.dump(), "bad-model.json");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad-model.json: collective_traffic: 'sendd' is no collective"),
              std::string::npos)
        << e.what();
  }
}

TEST(QnCollectives, ABadCollectiveCallsEntryNamesTheFileAndWhatWasExpected)
{
  test::TempDir dir;
  std::string path = replayed_run(2, "allreduce 8 0\n", dir, "bad");
  nlohmann::json doc = nlohmann::json::parse(read_file(path, "run"));
  doc["ranks"][1]["collective_calls"][0]["type"] = "sendd";
  std::string bad = dir.file("bad.json", doc.dump());
  try {
    load_runs(bad);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(bad), std::string::npos) << m;
    EXPECT_NE(m.find("ranks[1]: collective_calls"), std::string::npos) << m;
    EXPECT_NE(m.find("'sendd' is no collective"), std::string::npos) << m;
  }
}

TEST(QnCollectives, SmpiFactorsAreThoseOfTheMessagesTheReplaySendsAtEachCount)
{
  // an alltoall of 600-byte blocks (Bruck's aggregated blocks at 64), an allreduce of 8 bytes and a 100 kB
  // broadcast, fitted on the replays at 2, 4 and 8: at 16, 32 and 64 the model's message sizes give SimGrid's
  // latency and bandwidth factors of the messages the replay of the same trace sends there. A mix carried from
  // the 8-process run relative to its mean would move the 8-byte messages with the blocks
  test::TempDir dir;
  const std::string body = "alltoall 600 600\nallreduce 8 0\nbcast 100000 0\nalltoall 600 600\n";
  std::vector<MeasuredRun> runs;
  for (int n : {1, 2, 4, 8})
    runs.push_back(load_runs(replayed_run(n, body, dir, "mix")).front());
  QueueingModel m = fit_queueing_model(runs, test::qn_two_nodes(), ModelVariant{});
  ASSERT_TRUE(m.collectives.has_value());
  ASSERT_TRUE(m.smpi_factors);
  EXPECT_TRUE(m.size_mix_of_rest);
  for (int n : {16, 32, 64}) {
    ReplayReport truth;
    replayed_run(n, body, dir, "mix", &truth);
    std::map<int, RankReport::Traffic> classes;
    for (const RankReport& r : truth.ranks)
      for (const auto& [k, t] : r.sizes)
        classes[k].messages += t.messages, classes[k].bytes += t.bytes;
    std::vector<SizeAt> sent;
    for (const auto& [k, t] : classes)
      sent.push_back({static_cast<double>(t.bytes) / static_cast<double>(t.messages), static_cast<double>(t.messages)});
    auto [latency, per_byte] = smpi_mixed_factors(sent, 16);
    auto [model_latency, model_per_byte] = smpi_factors_at(m, n);
    EXPECT_NEAR(model_latency, latency, 1e-9 * latency) << n;
    EXPECT_NEAR(model_per_byte, per_byte, 1e-9 * per_byte) << n;
  }
}
