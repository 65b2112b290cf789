// A rank's messages to itself in the queueing model (src/qn/SelfTraffic): a transpose that sends every rank its
// own block too, as SWFFT's pencil redistributions do, replayed at 1 to 32 ranks and fitted on 1 to 8.
#include "QnTestUtil.hpp"
#include "core/Error.hpp"
#include "platform/Placement.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/SelfTraffic.hpp"
#include "report/ReplayOutput.hpp"
#include "sim/Replay.hpp"

#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace perfcast;

namespace {

constexpr int kSteps = 4;
constexpr double kField = 8388608; // bytes of the field, all ranks together (2^23: whole blocks up to 64 ranks)
constexpr double kWork = 2e9;   // flops of a whole run, split evenly

// Each of kSteps steps: compute, then every rank sends every rank (itself included) its block of the field,
// kField / n^2 bytes; the replay of it on the two-node cluster (round-robin), as a run file read back.
MeasuredRun transpose_run(int n, test::TempDir& dir, bool own_blocks = true)
{
  std::string index;
  long long block = std::llround(kField / n / n);
  for (int r = 0; r < n; ++r) {
    std::string text = fmt::format("{} init\n", r);
    for (int step = 0; step < kSteps; ++step) {
      text += fmt::format("{} compute {:.0f}\n", r, kWork / n / kSteps);
      for (int d = 0; d < n; ++d)
        if (own_blocks || d != r)
          text += fmt::format("{} irecv {} 0 {}\n", r, d, block);
      for (int d = 0; d < n; ++d)
        if (own_blocks || d != r)
          text += fmt::format("{} isend {} 0 {}\n", r, d, block);
      text += fmt::format("{} waitall\n", r);
    }
    text += fmt::format("{} finalize\n", r);
    dir.file(fmt::format("t{}{}/rank{}.txt", n, own_blocks ? "" : "-others", r), text);
    index += fmt::format("rank{}.txt\n", r);
  }
  Platform p = test::qn_two_nodes();
  TraceIndex t = read_trace_index(dir.file(fmt::format("t{}{}/index.txt", n, own_blocks ? "" : "-others"), index));
  ReplayReport r = replay_trace(t, p, place_by_policy(p, "round-robin", n), ReplayOptions{});
  return load_runs(dir.file(fmt::format("run-{}{}.json", n, own_blocks ? "" : "-others"), replay_to_json(r, p).dump()))
      .front();
}

// The training runs: the transpose at 1, 2, 4 and 8 ranks.
std::vector<MeasuredRun> training_runs(test::TempDir& dir, bool own_blocks = true)
{
  std::vector<MeasuredRun> runs;
  for (int n : {1, 2, 4, 8})
    runs.push_back(transpose_run(n, dir, own_blocks));
  return runs;
}

// What a run's ranks sent themselves: messages and bytes over all ranks.
std::pair<double, double> sent_to_itself(const MeasuredRun& run)
{
  double messages = 0, bytes = 0;
  for (std::size_t r = 0; r < run.partners.size(); ++r)
    for (const PartnerTraffic& p : run.partners[r])
      if (p.to == static_cast<int>(r))
        messages += p.messages, bytes += p.bytes;
  return {messages, bytes};
}

} // namespace

TEST(QnSelf, ClosedForms)
{
  SelfTraffic t;
  t.messages = 4, t.messages_exponent = 0;
  t.bytes = 3.2e7, t.bytes_exponent = -2;
  GridTraffic at = t.at(8);
  EXPECT_DOUBLE_EQ(at.messages, 32);
  EXPECT_DOUBLE_EQ(at.self_messages, 32);
  EXPECT_DOUBLE_EQ(at.bytes, 8 * 3.2e7 / 64);
  std::vector<SizeAt> sizes = t.sizes_at(8);
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_DOUBLE_EQ(sizes[0].bytes, 3.2e7 / 64 / 4); // one size: the mean
  EXPECT_DOUBLE_EQ(sizes[0].messages, 32);
  // two sizes relative to the mean keep their shares
  t.mix = {{0.5, 0.5}, {1.5, 0.5}};
  sizes = t.sizes_at(1);
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_DOUBLE_EQ(sizes[0].bytes, 0.5 * 3.2e7 / 4);
  EXPECT_DOUBLE_EQ(sizes[1].messages, 2);
}

TEST(QnSelf, ATransposesOwnBlocksAreAClassOfTheirOwnAtTheTarget)
{
  test::TempDir dir;
  std::vector<MeasuredRun> runs = training_runs(dir);
  Platform p = test::qn_two_nodes();
  QueueingModel m = fit_queueing_model(runs, p);
  // a rank's blocks to itself are a redistribution's: the grid stays refused, and the curves fit the pairs' traffic
  EXPECT_FALSE(m.grid.has_value());
  ASSERT_TRUE(m.self_traffic.has_value());
  EXPECT_NEAR(m.self_traffic->messages_exponent, 0, 1e-9);
  EXPECT_NEAR(m.self_traffic->bytes_exponent, -2, 1e-6);
  EXPECT_EQ(m.self_traffic->seen_at, (std::vector<int>{1, 2, 4, 8}));
  for (int n : {16, 32}) {
    MeasuredRun truth = transpose_run(n, dir);
    auto [messages, bytes] = sent_to_itself(truth);
    GridTraffic at = structured_traffic(m, n);
    EXPECT_NEAR(at.self_messages, messages, 1e-6 * messages) << n;
    EXPECT_NEAR(at.self_bytes, bytes, 1e-6 * bytes) << n;
    // beside them the curves: 4 (n - 1) messages a rank to the others, 4 (n - 1) kField / n^2 bytes a rank
    EXPECT_NEAR(cycles_at(m, n), truth.sends_per_process, 0.05 * truth.sends_per_process) << n;
  }
  // one process: all of its messages go to itself, and they are the cycles the network sees
  EXPECT_NEAR(cycles_at(m, 1), kSteps, 1e-9);
  EXPECT_NEAR(message_bytes_at(m, 1), kField, 1e-3 * kField);
  // and the model file keeps it
  auto [back, amdahl] = model_from_json(model_to_json(m, fit_amdahl(runs)).dump(), "model.json");
  ASSERT_TRUE(back.self_traffic.has_value());
  EXPECT_NEAR(structured_traffic(back, 32).self_bytes, structured_traffic(m, 32).self_bytes, 1e-9);
}

TEST(QnSelf, TheOneProcessRunsOwnBlocksAreNetworkTimeNotWork)
{
  // at one process the field crosses the host's own link kSteps times (8.4 MB at 110 MB/s: 0.30 s of the replay's
  // 0.51 s, against 0.21 s of computation): counted as computation, W comes out twice as large
  test::TempDir dir;
  std::vector<MeasuredRun> runs = training_runs(dir);
  Platform p = test::qn_two_nodes();
  ModelVariant apart, within;
  within.self_traffic = false;
  QueueingModel self = fit_queueing_model(runs, p, apart);
  QueueingModel curves = fit_queueing_model(runs, p, within);
  ASSERT_TRUE(self.self_traffic.has_value());
  EXPECT_FALSE(curves.self_traffic.has_value());
  EXPECT_FALSE(curves.grid.has_value()); // the blocks to itself refuse the grid
  // (what is left of W's error is the fit's compromise with the 2- to 8-process runs, whose all-pairs traffic
  // the network of queues times 0.83 times too slowly: 2.62e9 with Net_Constant 0.83, against 4.20e9 and 0.59)
  EXPECT_NEAR(self.work_flops, kWork, 0.35 * kWork);
  EXPECT_GT(curves.work_flops, 1.8 * kWork);
  // and the predictions at 16 and 32 against the replay
  for (int n : {16, 32}) {
    MeasuredRun truth = transpose_run(n, dir);
    HostCounts placement = host_counts(truth, p);
    double t = truth.time_s;
    double with_self = predict_run_time(self, p, placement).time_s;
    double without = predict_run_time(curves, p, placement).time_s;
    EXPECT_NEAR(with_self, t, 0.15 * t) << n; // -10% and -1% (without the self traffic: -29% and -19%)
    EXPECT_LT(std::fabs(with_self - t), 0.5 * std::fabs(without - t)) << n;
  }
}

TEST(QnSelf, ALoneRankSendsWhatItsOneProcessRunSentNotAGridsWrap)
{
  // all pairs but none to itself (CoSP2's rows): the runs of 2 to 8 show a periodic 1-D grid with an all-to-all
  // class, whose wrap would send a lone rank its own blocks; its one-process run sent nothing, so at one process
  // the model sends nothing (before, that phantom traffic left the fit unable to determine W)
  test::TempDir dir;
  std::vector<MeasuredRun> runs = training_runs(dir, false);
  QueueingModel m = fit_queueing_model(runs, test::qn_two_nodes());
  ASSERT_TRUE(m.one_process_traffic.has_value());
  EXPECT_DOUBLE_EQ(m.one_process_traffic->messages, 0);
  EXPECT_DOUBLE_EQ(structured_traffic(m, 1).messages, 0);
  EXPECT_DOUBLE_EQ(structured_traffic(m, 1).self_bytes, 0);
  EXPECT_FALSE(m.self_traffic.has_value());
  ASSERT_FALSE(m.residuals.empty());
  EXPECT_LT(std::fabs(m.residuals[0]), 0.05); // the one-process run: its computation alone
  auto [back, amdahl] = model_from_json(model_to_json(m, fit_amdahl(runs)).dump(), "model.json");
  ASSERT_TRUE(back.one_process_traffic.has_value());
  EXPECT_DOUBLE_EQ(structured_traffic(back, 1).messages, 0);
}
