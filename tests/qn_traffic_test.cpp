// Where the queueing model's messages go and how much they carry: partners
// among the other processes, a reduce's root receiving from everyone, and the
// bytes of a run fitted as one curve (issue 13, the third-party study).
#include "fit/Curve.hpp"
#include "platform/Platform.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"
#include "QnTestUtil.hpp"
#include "TestUtil.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast;

namespace {

using test::demand_of;

Platform two_nodes() { return test::qn_two_nodes(); }

QueueingModel plain_model() { return test::qn_plain_model(0, 9.6e6 /* 1 ms of one core in all */); }

} // namespace

TEST(QnTraffic, TwoProcessesOnTwoHostsSendEveryMessageAcross)
{
  // rank 0 on host 0, rank 1 on host 1: each message goes to the other rank,
  // so a cycle's message leaves host 0 with probability 1/2 (rank 0 sends)
  // and enters it with probability 1/2. The paper's eq. 9 draws the partner
  // among all n, the sender included: n_i/n (n-n_i)/n = 1/4, half the traffic
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  double s_net = 125000 / 125e6;
  ClosedNetwork net = build_network(m, p, {{0, 1}, {1, 1}});
  EXPECT_NEAR(demand_of(net, "e5620-0.net-out"), 0.5 * s_net, 1e-15);
  EXPECT_NEAR(demand_of(net, "e5620-0.net-in"), 0.5 * s_net, 1e-15);
  EXPECT_NEAR(demand_of(net, "e5620-0.latency"), 0.5 * 101e-6, 1e-15);
  m.other_partners = false;
  EXPECT_NEAR(demand_of(build_network(m, p, {{0, 1}, {1, 1}}), "e5620-0.net-out"), 0.25 * s_net, 1e-15);
}

TEST(QnTraffic, ReduceRootReceivesFromEveryRank)
{
  // every byte goes to rank 0 (h = 1); ranks 0 and 1 on host 0, 2 and 3 on
  // host 1. Ranks 1, 2, 3 send to rank 0 (probability 1/4 each); rank 0, the
  // root, sends to the 3 others evenly (1/4 x 1/3 each). Host 0: in = ranks 2
  // and 3 to 0 = 1/2; local = 1 to 0 plus 0 to 1 = 1/4 + 1/12 = 1/3; out = 0
  // to 2 and 3 = 1/6. Host 1: out = 1/2, in = 1/6, local = 0. Local messages
  // cross the host's own links (no loopback), so they load both directions.
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  m.hot_receive = Curve{CurveForm::Constant, 1, 0};
  double s_net = 125000 / 125e6;
  ClosedNetwork net = build_network(m, p, {{0, 2}, {1, 2}});
  EXPECT_NEAR(demand_of(net, "e5620-0.net-in"), (1.0 / 2 + 1.0 / 3) * s_net, 1e-15);
  EXPECT_NEAR(demand_of(net, "e5620-0.net-out"), (1.0 / 6 + 1.0 / 3) * s_net, 1e-15);
  EXPECT_NEAR(demand_of(net, "e5620-1.net-out"), 1.0 / 2 * s_net, 1e-15);
  EXPECT_NEAR(demand_of(net, "e5620-1.net-in"), 1.0 / 6 * s_net, 1e-15);
  // uniform partners spread the same traffic: (2/4)(2/3) remote + (2/4)(1/3) local each way
  m.hot_receive.reset();
  EXPECT_NEAR(demand_of(build_network(m, p, {{0, 2}, {1, 2}}), "e5620-0.net-in"), (1.0 / 3 + 1.0 / 6) * s_net, 1e-15);
}

TEST(QnTraffic, ReduceRootNicBoundsTheRunTime)
{
  // with the root's node receiving nearly every byte, its NIC is the
  // bottleneck: X <= 1 / D_max, so T = s n / X >= s n D_max, the bytes
  // entering the root's node over the link's bandwidth, and the balanced-job
  // bound X >= N / (D + (N-1) D_max) caps it. 64 ranks, 32 per host:
  // D_in,0 = [32/64 (from host 1) + 31/64 (its own ranks) + 1/64 x 31/63
  // (root to its neighbours)] s_net; computation negligible (1 ms)
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  m.hot_receive = Curve{CurveForm::Constant, 1, 0};
  double s_net = 125000 / 125e6, n = 64, s = 100;
  double d_max = (32.0 / 64 + 31.0 / 64 + 31.0 / 63 / 64) * s_net;
  ClosedNetwork net = build_network(m, p, {{0, 32}, {1, 32}});
  EXPECT_NEAR(demand_of(net, "e5620-0.net-in"), d_max, 1e-15);
  double total = 0;
  for (const Station& st : net.stations)
    total += st.demand_s;
  Prediction pr = predict_run_time(m, p, {{0, 32}, {1, 32}});
  EXPECT_EQ(pr.bottleneck, "e5620-0.net-in");
  EXPECT_GE(pr.time_s, s * n * d_max * (1 - 1e-12));
  EXPECT_LE(pr.time_s, s * (total + (n - 1) * d_max));
  // uniform partners would spread those bytes over both hosts' links
  m.hot_receive.reset();
  EXPECT_LT(predict_run_time(m, p, {{0, 32}, {1, 32}}).time_s, 0.6 * pr.time_s);
}

TEST(QnTraffic, RunBytesExtrapolateAnAllgather)
{
  // a ring allgather of V bytes (n - 1 messages of V/n per process) plus k
  // 8-byte messages: s(n) = n - 1 + k, B(n) = n (V (n-1)/n + 8 k) = (V + 8k) n - V,
  // a straight line, while m(n) = B / (n s) follows none of the curve forms.
  // Fitted on 2, 4 and 8 processes, the bytes at 64 are exact; fitting m(n)
  // directly misses them.
  Platform p = two_nodes();
  const double V = 3e6, k = 10;
  auto bytes_per_process = [&](double n) { return V * (n - 1) / n + 8 * k; };
  auto sends = [&](double n) { return n - 1 + k; };
  QueueingModel truth = plain_model();
  std::vector<MeasuredRun> runs;
  for (int n : {1, 2, 4, 8}) {
    MeasuredRun r;
    r.procs = n;
    r.placement = n == 1 ? std::map<std::string, int>{{"e5620-0", 1}}
                         : std::map<std::string, int>{{"e5620-0", n / 2}, {"e5620-1", n / 2}};
    r.sends_per_process = n > 1 ? sends(n) : 0;
    r.message_bytes = n > 1 ? bytes_per_process(n) / sends(n) : 0;
    truth.sends = {CurveForm::Constant, std::max(r.sends_per_process, 1.0), 0};
    truth.message_bytes = {CurveForm::Constant, r.message_bytes, 0};
    HostCounts hc = n == 1 ? HostCounts{{0, 1}} : HostCounts{{0, n / 2}, {1, n / 2}};
    r.time_s = predict_run_time(truth, p, hc).time_s * (1 + 0.01 * n); // any times: only the curves matter here
    r.mpi_s = n > 1 ? 0.5 * r.time_s : 0;
    r.source = "allgather";
    runs.push_back(r);
  }
  QueueingModel fit = fit_queueing_model(runs, p);
  ASSERT_TRUE(fit.run_bytes.has_value());
  EXPECT_EQ(fit.run_bytes->form, CurveForm::Linear);
  double want = bytes_per_process(64);
  EXPECT_NEAR(message_bytes_at(fit, 64) * fit.sends(64), want, 1e-6 * want);
  ModelVariant direct;
  direct.run_bytes = false;
  QueueingModel old = fit_queueing_model(runs, p, direct);
  EXPECT_GT(std::fabs(message_bytes_at(old, 64) * old.sends(64) / want - 1), 0.2);
}

TEST(QnTraffic, ReplayGivesTheBusiestReceiversShare)
{
  // rank 0 receives 300 of the 500 bytes received: share 0.6; it sends 100
  // of the 500 bytes sent (0.2) and 2 of the 6 messages
  test::TempDir dir;
  std::string rank = R"({{"rank": {}, "host": "{}", "compute_s": 0.1, "communicate_s": 0.01, "wait_s": 0.02,
                          "messages_sent": 2, "bytes_sent": {}, "bytes_received": {}}})";
  std::string json = "{\"makespan_s\": 0.2, \"ranks\": [" + fmt::format(fmt::runtime(rank), 0, "a", 100, 300) + "," +
                     fmt::format(fmt::runtime(rank), 1, "b", 200, 100) + "," +
                     fmt::format(fmt::runtime(rank), 2, "b", 200, 100) + "]}";
  auto runs = load_runs(dir.file("replay.json", json));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].hot_receive_share, 0.6);
  EXPECT_DOUBLE_EQ(runs[0].hot_send_share, 0.2);
  EXPECT_DOUBLE_EQ(runs[0].hot_send_message_share, 1.0 / 3);
  EXPECT_DOUBLE_EQ(runs[0].message_bytes, 500.0 / 6);
}

TEST(QnTraffic, DuplexTransferHoldsBothLinksOnce)
{
  // rank 0 and rank 1 on two hosts: the send queues' demands add up to one
  // transfer per cycle (1/2 s_net at each host), and so do the receive
  // queues'; the overlap counts that transfer once
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  double s_net = 125000 / 125e6;
  EXPECT_NEAR(build_network(m, p, {{0, 1}, {1, 1}}).overlap_s, s_net, 1e-15);
  // one process per host, a single cycle in flight: compute, one transfer, one latency
  m.sends = {CurveForm::Constant, 1, 0};
  m.work_flops = 0;
  ClosedNetwork net = build_network(m, p, {{0, 1}, {1, 1}});
  MvaResult one = solve_mva(net, 1);
  EXPECT_NEAR(one.response_s, s_net + 101e-6, 1e-12);
  m.duplex_nic = false; // the paper's single queue serves the transfer once: nothing overlaps
  EXPECT_EQ(build_network(m, p, {{0, 1}, {1, 1}}).overlap_s, 0.0);
}

TEST(QnTraffic, SmpiRunsAreTimedWithSmpiFactors)
{
  // a replay by SimGrid's SMPI network charged a 125000-byte message (plus a
  // 16-byte envelope, above 65472) latency x 11.6436 and bandwidth x 0.940694
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  m.smpi_factors = true;
  double s_net = 125000 / 125e6;
  ClosedNetwork net = build_network(m, p, {{0, 1}, {1, 1}});
  EXPECT_NEAR(demand_of(net, "e5620-0.net-out"), 0.5 * s_net / 0.940694, 1e-12);
  EXPECT_NEAR(demand_of(net, "e5620-0.latency"), 0.5 * 101e-6 * 11.6436, 1e-12);
  // the fit takes the factors when every run names the smpi network, not for measured runs
  test::TempDir dir;
  auto replay = [&](int procs, double time, const std::string& network) {
    std::string ranks;
    for (int r = 0; r < procs; ++r)
      ranks += fmt::format(R"({}{{"rank": {}, "host": "e5620-{}", "compute_s": 0.1, "communicate_s": 0.01,
                              "wait_s": 0.0, "messages_sent": 10, "bytes_sent": 40000, "bytes_received": 40000}})",
                           r ? "," : "", r, r % 2);
    std::string net = network.empty() ? "" : fmt::format(R"("network": "{}", )", network);
    return dir.file(fmt::format("run-{}-{}.json", procs, network),
                    fmt::format(R"({{{}"makespan_s": {}, "ranks": [{}]}})", net, time, ranks));
  };
  std::vector<MeasuredRun> smpi, measured;
  for (auto [n, t] : {std::pair{2, 0.12}, {4, 0.07}, {8, 0.045}}) {
    smpi.push_back(load_runs(replay(n, t, "smpi"))[0]);
    measured.push_back(load_runs(replay(n, t, ""))[0]);
  }
  EXPECT_EQ(smpi[0].network, "smpi");
  EXPECT_TRUE(fit_queueing_model(smpi, p).smpi_factors);
  EXPECT_FALSE(fit_queueing_model(measured, p).smpi_factors);
  EXPECT_FALSE(fit_queueing_model(smpi, p, ModelVariant::paper()).smpi_factors);
}
