// The SMPI network model against closed forms (REFERENCE section 2).
#include "net/NetworkModel.hpp"
#include "net/SmpiFactors.hpp"
#include "platform/Platform.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// Two hosts joined by one shared link of bandwidth B and latency L (Full routing).
Platform two_hosts(double bandwidth, double latency)
{
  Platform p;
  int a = p.add_host({"a", 1e9, 1});
  int b = p.add_host({"b", 1e9, 1});
  int l = p.add_link({"l", bandwidth, latency, SharingPolicy::Shared});
  p.set_explicit_route(a, b, {l});
  p.set_explicit_route(b, a, {l});
  return p;
}

double run_until_done(NetworkModel& net, std::size_t expected)
{
  std::vector<std::uint32_t> done;
  double t = 0;
  while (done.size() < expected) {
    t = net.next_completion();
    if (t == kNever)
      break;
    net.advance(t, done);
  }
  return t;
}

} // namespace

TEST(SmpiFactors, PiecewiseConstantAboveEachThreshold)
{
  EXPECT_DOUBLE_EQ(smpi_bw_factor(0), 1.0);
  EXPECT_DOUBLE_EQ(smpi_bw_factor(1), 0.812084);
  EXPECT_DOUBLE_EQ(smpi_bw_factor(257), 0.812084); // threshold itself belongs below
  EXPECT_DOUBLE_EQ(smpi_bw_factor(258), 0.338112);
  EXPECT_DOUBLE_EQ(smpi_lat_factor(70000), 11.6436);
  EXPECT_DOUBLE_EQ(smpi_lat_factor(5000), 1.88101);
}

TEST(SmpiNetwork, SingleUncontendedMessageMatchesClosedForm)
{
  // T = L * lat_factor(S) + S / (bw_factor(S) * min(B, gamma / 2L)), S = payload + envelope
  const double B = 1.25e8, L = 100e-6;
  for (double S : {17.0, 1040.0, 65552.0, 1048592.0}) {
    Platform p = two_hosts(B, L);
    NetworkOptions o;
    o.crosstraffic = false;
    auto net = make_smpi_network(p, o);
    net->start(0, 1, S, 0.0);
    double rate = smpi_bw_factor(S) * std::min(B, 4194304.0 / (2 * L));
    double expected = L * smpi_lat_factor(S) + S / rate;
    EXPECT_NEAR(run_until_done(*net, 1), expected, expected * 1e-12) << "S=" << S;
  }
}

TEST(SmpiNetwork, TcpWindowCapsLongFatRoutes)
{
  // L = 10 ms: gamma / 2L = 4194304 / 0.02 = 209.7 MB/s < B = 1.25 GB/s
  const double B = 1.25e9, L = 10e-3, S = 1e7;
  Platform p = two_hosts(B, L);
  NetworkOptions o;
  o.crosstraffic = false;
  auto net = make_smpi_network(p, o);
  net->start(0, 1, S, 0.0);
  double expected = L * smpi_lat_factor(S) + S / (smpi_bw_factor(S) * 4194304.0 / (2 * L));
  EXPECT_NEAR(run_until_done(*net, 1), expected, expected * 1e-12);
}

TEST(SmpiNetwork, TwoFlowsShareALinkWithCrossTraffic)
{
  // Both flows a->b load the link with weight 1 and, by cross-traffic over the
  // same link back, 0.05: equal penalties give rho1 = rho2 and 1.05 (rho1 + rho2) = B.
  const double B = 1e8, L = 1e-6, S = 1e7;
  Platform p = two_hosts(B, L);
  auto net = make_smpi_network(p, NetworkOptions{});
  net->start(0, 1, S, 0.0);
  net->start(0, 1, S, 0.0);
  double rho = B / (2 * 1.05);
  double expected = L * smpi_lat_factor(S) + S / (smpi_bw_factor(S) * rho);
  EXPECT_NEAR(run_until_done(*net, 2), expected, expected * 1e-9);
}

TEST(SmpiNetwork, LateFlowGetsTheWholeLinkAfterTheFirstEnds)
{
  // Flow 1 alone until flow 2 arrives at t2; they share; after flow 1 ends
  // flow 2 runs alone. Without cross-traffic shares are B/2 each.
  const double B = 1e8, S = 1e7;
  Platform p = two_hosts(B, 0.0);
  NetworkOptions o;
  o.crosstraffic = false;
  auto net = make_smpi_network(p, o);
  double f = smpi_bw_factor(S);
  net->start(0, 1, S, 0.0);
  double t2 = 0.05;
  std::vector<std::uint32_t> done;
  ASSERT_GT(net->next_completion(), t2);
  net->advance(t2, done);
  net->start(0, 1, S, t2);
  // flow 1 has S - f B t2 left, now at f B / 2
  double left1 = S - f * B * t2;
  double t_end1 = t2 + left1 / (f * B / 2);
  double moved2 = (t_end1 - t2) * f * B / 2;
  double t_end2 = t_end1 + (S - moved2) / (f * B);
  double t = net->next_completion();
  EXPECT_NEAR(t, t_end1, 1e-9);
  net->advance(t, done);
  EXPECT_EQ(done.size(), 1u);
  EXPECT_NEAR(run_until_done(*net, 1), t_end2, 1e-9);
}

TEST(LogGpNetwork, ContentionFree)
{
  Platform p = two_hosts(1e8, 5e-6);
  NetworkOptions o;
  o.loggp.overhead_s = 1e-6;
  auto net = make_loggp_network(p, o);
  net->start(0, 1, 1000, 0.0);
  net->start(0, 1, 1000, 0.0);
  // no sharing: both end at L + 2o + S/B
  double expected = 5e-6 + 2e-6 + 1000 / 1e8;
  std::vector<std::uint32_t> done;
  double t = net->next_completion();
  net->advance(t, done);
  EXPECT_NEAR(t, expected, 1e-15);
  EXPECT_EQ(done.size(), 2u);
}
