// Multi-class mean value analysis against closed forms: one class is the
// single-class MVA, classes on separate stations never meet, and small cases
// derived by hand (the derivations are in the comments).
#include "core/Error.hpp"
#include "qn/ClosedNetwork.hpp"
#include "qn/MultiClassNetwork.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// the single-class network as one class of N customers
MultiClassNetwork as_one_class(const ClosedNetwork& single, int customers)
{
  MultiClassNetwork net;
  CustomerClass c;
  c.name = "all";
  c.population = customers;
  c.think_time_s = single.think_time_s;
  c.overlap_s = single.overlap_s;
  for (const Station& s : single.stations) {
    net.stations.push_back(s);
    c.demand_s.push_back(s.demand_s);
  }
  net.classes.push_back(c);
  return net;
}

ClosedNetwork mixed_network()
{
  // a 4-core CPU, two queues, a delay, a general load-dependent station, think time
  ClosedNetwork net;
  net.stations.push_back({"cpu", StationKind::MultiServer, 0.8, 4, {}});
  net.stations.push_back({"out", StationKind::Queue, 0.3, 1, {}});
  net.stations.push_back({"in", StationKind::Queue, 0.25, 1, {}});
  net.stations.push_back({"latency", StationKind::Delay, 0.1, 1, {}});
  net.stations.push_back({"disk", StationKind::LoadDependent, 0.2, 1, {1.0, 1.6, 2.0}});
  net.think_time_s = 0.05;
  net.overlap_s = 0.25;
  return net;
}

} // namespace

TEST(MultiClassMva, OneClassIsTheSingleClassMva)
{
  ClosedNetwork single = mixed_network();
  for (int N : {1, 2, 3, 7, 20}) {
    MvaResult want = solve_mva(single, N);
    MultiClassResult got = solve_multiclass_mva(as_one_class(single, N));
    EXPECT_NEAR(got.throughput[0], want.throughput, 1e-12 * want.throughput) << N;
    for (std::size_t k = 0; k < single.stations.size(); ++k) {
      EXPECT_NEAR(got.residence_s[0][k], want.stations[k].residence_s, 1e-12) << N << " " << k;
      EXPECT_NEAR(got.utilization[k], want.stations[k].utilization, 1e-12) << N << " " << k;
    }
    // the approximation too reduces to the single-class Bard-Schweitzer (same fixed point)
    double approx = solve_mva_approximate(single, N).throughput;
    EXPECT_NEAR(solve_multiclass_mva_approximate(as_one_class(single, N)).throughput[0], approx, 1e-8 * approx) << N;
  }
}

TEST(MultiClassMva, ClassesOnSeparateStationsNeverWaitForEachOther)
{
  // two symmetric classes, each with its own queue and delay: each is the
  // single-class network of its own stations, whatever the other does. With
  // one customer each: X = 1 / (D + Z) (nobody to wait for)
  MultiClassNetwork net;
  net.stations = {{"q-a", StationKind::Queue, 0, 1, {}},
                  {"q-b", StationKind::Queue, 0, 1, {}},
                  {"z-a", StationKind::Delay, 0, 1, {}},
                  {"z-b", StationKind::Delay, 0, 1, {}}};
  net.classes = {{"a", 1, {0.5, 0, 1.5, 0}, 0, 0}, {"b", 1, {0, 0.5, 0, 1.5}, 0, 0}};
  MultiClassResult one = solve_multiclass_mva(net);
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(one.throughput[c], 1 / (0.5 + 1.5), 1e-12);
    EXPECT_NEAR(one.cycle_s[c], 2.0, 1e-12);
  }
  // with 5 customers each, each class is the machine-repairman network of its own queue
  ClosedNetwork alone;
  alone.stations = {{"q", StationKind::Queue, 0.5, 1, {}}, {"z", StationKind::Delay, 1.5, 1, {}}};
  double want = solve_mva(alone, 5).throughput, want_approx = solve_mva_approximate(alone, 5).throughput;
  net.classes[0].population = net.classes[1].population = 5;
  MultiClassResult five = solve_multiclass_mva(net), approx = solve_multiclass_mva_approximate(net);
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(five.throughput[c], want, 1e-12 * want);
    EXPECT_NEAR(approx.throughput[c], want_approx, 1e-8 * want_approx);
  }
}

TEST(MultiClassMva, TwoClassesSharingAQueueDerivedByHand)
{
  // class 1: one customer, demand 1 at the queue and a delay of 1; class 2:
  // one customer, demand 2 at the queue and nothing else.
  //   (1,0): W1 = 1, X1 = 1/2, Q = 1/2;   (0,1): W2 = 2, X2 = 1/2, Q = 1
  //   (1,1): W1 = 1 (1 + Q(0,1)) = 2, X1 = 1/(1 + 2) = 1/3
  //          W2 = 2 (1 + Q(1,0)) = 3, X2 = 1/3
  // Checked against the Markov chain (processor sharing): state A (class 1
  // at the delay) leaves at rate 1, state B (both queued) at rate 1/2 (class
  // 1 served at half speed): pi_A = 1/3, pi_B = 2/3; X1 = pi_B / 2 = 1/3, X2 =
  // pi_A / 2 + pi_B / 4 = 1/3; the queue is never idle, X1 D1 + X2 D2 = 1/3 + 2/3 = 1.
  MultiClassNetwork net;
  net.stations = {{"queue", StationKind::Queue, 0, 1, {}}, {"think", StationKind::Delay, 0, 1, {}}};
  net.classes = {{"one", 1, {1, 1}, 0, 0}, {"two", 1, {2, 0}, 0, 0}};
  MultiClassResult r = solve_multiclass_mva(net);
  EXPECT_NEAR(r.throughput[0], 1.0 / 3, 1e-12);
  EXPECT_NEAR(r.throughput[1], 1.0 / 3, 1e-12);
  EXPECT_NEAR(r.residence_s[0][0], 2, 1e-12);
  EXPECT_NEAR(r.residence_s[1][0], 3, 1e-12);
  EXPECT_NEAR(r.utilization[0], 1, 1e-12);
  EXPECT_NEAR(r.queue_length[0], 2.0 / 3 + 1, 1e-12);
}

TEST(MultiClassMva, TwoServersForTwoCustomersNeverQueueDerivedByHand)
{
  // one customer per class, a 2-server station (demands 1 and 3) and a delay
  // of 1 each: nobody ever waits, W = D. Through the marginals:
  //   (1,0): W1 = 1 p(0|0) = 1, X1 = 1/2, p(1|(1,0)) = 1/2, p(0) = 1/2
  //   (0,1): W2 = 3, X2 = 1/4, p(1|(0,1)) = 3/4, p(0) = 1/4
  //   (1,1): W1 = 1 x 1 x p(0|(0,1)) + (1/2) x 2 x p(1|(0,1)) = 1/4 + 3/4 = 1
  //          W2 = 3 x p(0|(1,0)) + (3/2) x 2 x p(1|(1,0)) = 3/2 + 3/2 = 3
  MultiClassNetwork net;
  net.stations = {{"cpu", StationKind::MultiServer, 0, 2, {}}, {"think", StationKind::Delay, 0, 1, {}}};
  net.classes = {{"one", 1, {1, 1}, 0, 0}, {"two", 1, {3, 1}, 0, 0}};
  MultiClassResult r = solve_multiclass_mva(net);
  EXPECT_NEAR(r.residence_s[0][0], 1, 1e-12);
  EXPECT_NEAR(r.residence_s[1][0], 3, 1e-12);
  EXPECT_NEAR(r.throughput[0], 1.0 / 2, 1e-12);
  EXPECT_NEAR(r.throughput[1], 1.0 / 4, 1e-12);
}

TEST(MultiClassMva, ApproximationFollowsTheExactSolution)
{
  // four classes (nodes) of 6 customers, each on its own 4-core CPU and send
  // queue, receiving at the others' queues, with a latency delay and overlap:
  // the model's shape. Bard-Schweitzer is within a few percent of exact MVA
  MultiClassNetwork net;
  const int nodes = 4;
  for (int i = 0; i < nodes; ++i) {
    net.stations.push_back({"cpu", StationKind::MultiServer, 0, 4, {}});
    net.stations.push_back({"out", StationKind::Queue, 0, 1, {}});
    net.stations.push_back({"in", StationKind::Queue, 0, 1, {}});
    net.stations.push_back({"lat", StationKind::Delay, 0, 1, {}});
  }
  for (int c = 0; c < nodes; ++c) {
    CustomerClass cls{"node", 6, std::vector<double>(net.stations.size(), 0.0), 0, 0};
    cls.demand_s[4 * c] = 1.0 + 0.2 * c;
    cls.demand_s[4 * c + 1] = 0.45;
    for (int j = 0; j < nodes; ++j)
      if (j != c)
        cls.demand_s[4 * j + 2] = 0.15;
    cls.demand_s[4 * c + 3] = 0.05;
    cls.overlap_s = 0.45;
    net.classes.push_back(cls);
  }
  MultiClassResult exact = solve_multiclass_mva(net), approx = solve_multiclass_mva_approximate(net);
  for (int c = 0; c < nodes; ++c)
    EXPECT_NEAR(approx.throughput[c] / exact.throughput[c], 1, 0.05) << c;
  EXPECT_GT(approx.iterations, 0);
  // deterministic: the same sweeps give the same bits
  EXPECT_EQ(solve_multiclass_mva_approximate(net).throughput, approx.throughput);
}

TEST(MultiClassMva, BadNetworksAreErrors)
{
  MultiClassNetwork net;
  EXPECT_THROW(solve_multiclass_mva(net), Error);
  net.stations = {{"q", StationKind::Queue, 0, 1, {}}};
  EXPECT_THROW(solve_multiclass_mva(net), Error); // no class
  net.classes = {{"a", 0, {1}, 0, 0}};
  EXPECT_THROW(solve_multiclass_mva(net), Error); // no customer
  net.classes = {{"a", 1, {1, 2}, 0, 0}};
  EXPECT_THROW(solve_multiclass_mva_approximate(net), Error); // demands for 2 stations
  net.classes = {{"a", 1, {-1}, 0, 0}};
  EXPECT_THROW(solve_multiclass_mva(net), Error);
}
