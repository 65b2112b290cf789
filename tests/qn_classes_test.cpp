// The queueing model with one customer class per node: each node's processes
// use their own CPU and send queue, and the classes' demands add up to the
// paper's single-class network (issue 13, session 9).
#include "fit/Curve.hpp"
#include "platform/Platform.hpp"
#include "qn/QueueingModel.hpp"
#include "QnTestUtil.hpp"
#include "TestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

Platform two_nodes() { return test::qn_two_nodes(); }

QueueingModel plain_model() { return test::qn_plain_model(0.1, 9.6e8 /* 100 ms of one core in all */); }

} // namespace

TEST(QnClasses, ClassDemandsWeightedByTheirSharesAreThePapersNetwork)
{
  // sum_c (n_c / n) D_c,k is the single-class demand D_k at every station,
  // for uneven nodes, a reduce's root and uniform partners
  Platform p = two_nodes();
  for (double hot : {-1.0, 0.6}) {
    QueueingModel m = plain_model();
    if (hot > 0) {
      m.hot_receive = Curve{CurveForm::Constant, hot, 0};
      m.hot_send = Curve{CurveForm::Constant, 0.05, 0};
      m.hot_send_messages = Curve{CurveForm::Constant, 0.1, 0};
    }
    for (HostCounts placement : {HostCounts{{0, 3}, {1, 5}}, HostCounts{{0, 1}, {1, 1}}, HostCounts{{0, 4}}}) {
      ClosedNetwork single = build_network(m, p, placement);
      MultiClassNetwork classes = build_class_network(m, p, placement);
      double n = 0;
      for (const auto& [h, c] : placement)
        n += c;
      for (const Station& s : single.stations) {
        double weighted = 0;
        for (std::size_t k = 0; k < classes.stations.size(); ++k)
          if (classes.stations[k].name == s.name)
            for (const CustomerClass& c : classes.classes)
              weighted += c.population / n * c.demand_s[k];
        EXPECT_NEAR(weighted, s.demand_s, 1e-12 * s.demand_s + 1e-18) << s.name << " hot " << hot << " n " << n;
      }
    }
  }
}

TEST(QnClasses, TwoPinnedRanksNeverWaitForEachOthersLink)
{
  // rank 0 on host 0, rank 1 on host 1, each sending every message to the
  // other: rank 0 uses host 0's CPU and up link and host 1's down link, rank 1
  // the mirror, so neither ever waits. A cycle is compute + one transfer (its
  // two links held at once) + the route latency:
  //   W / (s n speed) x (V_comp + V_comm / 2) + m / bandwidth + latency
  // The paper's single class sends both customers through either node's
  // queues by visit ratios: they meet there, and the cycle is longer
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  double compute = 9.6e8 / (100 * 2 * 9.6e9) * (0.9 + 0.1 / 2), transfer = 125000 / 125e6, latency = 101e-6;
  Prediction classes = predict_run_time(m, p, {{0, 1}, {1, 1}}, MvaSolver::Exact);
  EXPECT_NEAR(classes.response_s, compute + transfer + latency, 1e-12);
  EXPECT_NEAR(classes.time_s, 100 * (compute + transfer + latency), 1e-9);
  m.node_classes = false;
  Prediction single = predict_run_time(m, p, {{0, 1}, {1, 1}}, MvaSolver::Exact);
  EXPECT_GT(single.response_s, classes.response_s * 1.05);
}

TEST(QnClasses, OneWayStreamLoadsOneLinkDirection)
{
  // a reduce at 2 processes: rank 1 (host 1) sends every byte and message to
  // rank 0 (host 0), which sends nothing (h = 1, g = 0). A cycle of the run is
  // one message on average, so rank 1 sends two a cycle: its class loads host
  // 1's up link and host 0's down link with 2 transfers, pays 2 latencies, and
  // never waits (rank 0 only computes):
  //   R_1 = W / (s n speed) x (V_comp + V_comm / 2) + 2 m / bandwidth + 2 latency
  // Uniform senders split the same bytes evenly between both directions, one
  // transfer each way a cycle, and the run is a transfer and a latency shorter
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  m.hot_receive = Curve{CurveForm::Constant, 1, 0};
  m.hot_send = Curve{CurveForm::Constant, 0, 0};
  m.hot_send_messages = Curve{CurveForm::Constant, 0, 0};
  double compute = 9.6e8 / (100 * 2 * 9.6e9) * (0.9 + 0.1 / 2), transfer = 125000 / 125e6, latency = 101e-6;
  MultiClassNetwork net = build_class_network(m, p, {{0, 1}, {1, 1}});
  ASSERT_EQ(net.classes.size(), 2u);
  for (std::size_t k = 0; k < net.stations.size(); ++k) {
    const std::string& name = net.stations[k].name;
    double want_root = name == "e5620-0.cpu" ? compute : 0.0;
    double want_sender = name == "e5620-1.cpu"       ? compute
                         : name == "e5620-1.net-out" ? 2 * transfer
                         : name == "e5620-0.net-in"  ? 2 * transfer
                         : name == "e5620-1.latency" ? 2 * latency
                                                     : 0.0;
    EXPECT_NEAR(net.classes[0].demand_s[k], want_root, 1e-15) << name;
    EXPECT_NEAR(net.classes[1].demand_s[k], want_sender, 1e-15) << name;
  }
  Prediction one_way = predict_run_time(m, p, {{0, 1}, {1, 1}}, MvaSolver::Exact);
  EXPECT_NEAR(one_way.response_s, compute + 2 * transfer + 2 * latency, 1e-12);
  // the single-class network: host 1's up link carries the whole cycle's transfer, host 0's none
  ClosedNetwork single = build_network(m, p, {{0, 1}, {1, 1}});
  for (const Station& s : single.stations) {
    if (s.name == "e5620-1.net-out" || s.name == "e5620-0.net-in") {
      EXPECT_NEAR(s.demand_s, transfer, 1e-15) << s.name;
    } else if (s.name == "e5620-0.net-out" || s.name == "e5620-1.net-in") {
      EXPECT_NEAR(s.demand_s, 0.0, 1e-15) << s.name;
    }
  }
  m.hot_send.reset(); // uniform senders
  m.hot_send_messages.reset();
  Prediction uniform = predict_run_time(m, p, {{0, 1}, {1, 1}}, MvaSolver::Exact);
  EXPECT_NEAR(uniform.response_s, compute + transfer + latency, 1e-12);
}

TEST(QnClasses, OneNodeIsTheSingleClassModel)
{
  // a single node is a single class: both models are the same network
  Platform p = two_nodes();
  QueueingModel m = plain_model();
  for (int n : {1, 2, 5, 12}) {
    double classes = predict_run_time(m, p, {{0, n}}, MvaSolver::Exact).time_s;
    m.node_classes = false;
    double single = predict_run_time(m, p, {{0, n}}, MvaSolver::Exact).time_s;
    m.node_classes = true;
    EXPECT_NEAR(classes, single, 1e-12 * single) << n;
  }
}

TEST(QnClasses, SlowestNodeEndsTheRun)
{
  // 2 processes on a fast host and 2 on a slow one, no messages: each class
  // computes alone on its own cores, and the run lasts as long as the slow
  // host's processes: W / (s n speed_slow) per cycle, s cycles
  Platform p = load_platform(test::source_dir() + "/examples/platforms/hetero8.json");
  int fast = -1, slow = -1;
  for (std::size_t h = 0; h < p.hosts().size(); ++h) {
    double speed = p.hosts()[h].speed_flops;
    if (fast < 0 || speed > p.hosts()[static_cast<std::size_t>(fast)].speed_flops)
      fast = static_cast<int>(h);
    if (slow < 0 || speed < p.hosts()[static_cast<std::size_t>(slow)].speed_flops)
      slow = static_cast<int>(h);
  }
  ASSERT_NE(fast, slow);
  QueueingModel m = plain_model();
  m.v_comp = 1;
  m.v_comm = 0;
  m.message_bytes = {CurveForm::Constant, 0, 0};
  m.latency_delay = false;
  Prediction pr = predict_run_time(m, p, {{fast, 2}, {slow, 2}}, MvaSolver::Exact);
  double want = 100 * m.work_flops / (100 * 4 * p.hosts()[static_cast<std::size_t>(slow)].speed_flops);
  EXPECT_NEAR(pr.time_s, want, 1e-9 * want);
}
