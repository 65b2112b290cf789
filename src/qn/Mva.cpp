#include "core/Error.hpp"
#include "qn/ClosedNetwork.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

namespace {

void check(const ClosedNetwork& net, int customers)
{
  if (net.stations.empty())
    throw Error("queueing network: no station");
  if (customers < 1)
    throw Error(fmt::format("queueing network: population must be at least 1, got {}", customers));
  if (!(net.think_time_s >= 0) || !std::isfinite(net.think_time_s))
    throw Error("queueing network: think time must be a finite non-negative number");
  for (const Station& s : net.stations) {
    if (!(s.demand_s >= 0) || !std::isfinite(s.demand_s))
      throw Error(fmt::format("queueing network: station '{}' has demand {} (expected a finite non-negative number)",
                              s.name, s.demand_s));
    if (s.kind == StationKind::MultiServer && s.servers < 1)
      throw Error(fmt::format("queueing network: station '{}' needs at least one server", s.name));
  }
}

} // namespace

std::vector<MvaResult> solve_mva_all(const ClosedNetwork& net, int customers)
{
  check(net, customers);
  std::size_t K = net.stations.size();
  std::vector<double> queue(K, 0.0); // Q_i(n-1)
  // p[i][k] = P(k customers at multi-server station i | n-1 in the network)
  std::vector<std::vector<double>> p(K);
  for (std::size_t i = 0; i < K; ++i)
    if (net.stations[i].kind == StationKind::MultiServer)
      p[i] = {1.0};
  std::vector<MvaResult> results;
  results.reserve(static_cast<std::size_t>(customers));
  std::vector<double> residence(K);
  for (int n = 1; n <= customers; ++n) {
    double total = 0;
    for (std::size_t i = 0; i < K; ++i) {
      const Station& s = net.stations[i];
      switch (s.kind) {
      case StationKind::Queue:
        residence[i] = s.demand_s * (1 + queue[i]);
        break;
      case StationKind::Delay:
        residence[i] = s.demand_s;
        break;
      case StationKind::MultiServer: {
        // W(n) = sum_{k=1..n} (D / min(k, c)) k p(k-1 | n-1)
        double w = 0;
        for (int k = 1; k <= n; ++k)
          w += s.demand_s / std::min(k, s.servers) * k * p[i][static_cast<std::size_t>(k - 1)];
        residence[i] = w;
        break;
      }
      }
      total += residence[i];
    }
    double x = n / (net.think_time_s + total);
    MvaResult r;
    r.customers = n;
    r.throughput = x;
    r.response_s = total;
    r.stations.resize(K);
    for (std::size_t i = 0; i < K; ++i) {
      const Station& s = net.stations[i];
      queue[i] = x * residence[i];
      r.stations[i].residence_s = residence[i];
      r.stations[i].queue_length = queue[i];
      int servers = s.kind == StationKind::MultiServer ? s.servers : 1;
      r.stations[i].utilization = s.kind == StationKind::Delay ? 0.0 : x * s.demand_s / servers;
      if (s.kind == StationKind::MultiServer) {
        // p(k | n) = (D / min(k, c)) X p(k-1 | n-1), k >= 1; p(0 | n) = 1 - sum
        std::vector<double> next(static_cast<std::size_t>(n + 1), 0.0);
        double sum = 0;
        for (int k = 1; k <= n; ++k) {
          next[static_cast<std::size_t>(k)] =
              s.demand_s / std::min(k, s.servers) * x * p[i][static_cast<std::size_t>(k - 1)];
          sum += next[static_cast<std::size_t>(k)];
        }
        if (sum > 1) {
          // round-off pushed p(0) below zero: renormalise rather than go negative
          for (double& v : next)
            v /= sum;
          next[0] = 0;
        } else {
          next[0] = 1 - sum;
        }
        p[i] = std::move(next);
      }
    }
    results.push_back(std::move(r));
  }
  return results;
}

MvaResult solve_mva(const ClosedNetwork& network, int customers)
{
  return solve_mva_all(network, customers).back();
}

MvaResult solve_mva_approximate(const ClosedNetwork& net, int customers, double tolerance)
{
  check(net, customers);
  // Bard-Schweitzer fixed point. A c-server station uses the multi-server
  // correction of approximate MVA (as in Bolch et al., Queueing Networks and
  // Markov Chains), with X(N-1) estimated as X(N) (N-1)/N:
  //   W = D/c (1 + Q + sum_{j=0}^{c-2} (c-1-j) pi(j)),
  // with the marginals pi(j) = pi(0) (D X)^j / j! for j < c and
  //   pi(0) = (1 - D X / c) / (1 + (1/c) sum_{j=1}^{c-1} (c-j) (D X)^j / j!).
  std::size_t K = net.stations.size();
  double N = customers;
  std::vector<double> queue(K, N / static_cast<double>(K)), residence(K);
  double x = 0;
  auto idle_correction = [&](const Station& s, double throughput) {
    int c = s.servers;
    if (c <= 1)
      return 0.0;
    double a = s.demand_s * throughput; // busy servers on average
    double term = 1, weighted = 0;
    std::vector<double> power(static_cast<std::size_t>(c), 1.0); // (D X)^j / j!
    for (int j = 1; j < c; ++j) {
      term *= a / j;
      power[static_cast<std::size_t>(j)] = term;
      weighted += (c - j) * term;
    }
    double pi0 = std::max(0.0, (1 - a / c) / (1 + weighted / c));
    double correction = 0;
    for (int j = 0; j <= c - 2; ++j)
      correction += (c - 1 - j) * pi0 * power[static_cast<std::size_t>(j)];
    return correction;
  };
  for (int iteration = 0; iteration < 100000; ++iteration) {
    double total = 0;
    for (std::size_t i = 0; i < K; ++i) {
      const Station& s = net.stations[i];
      double q = (N - 1) / N * queue[i];
      switch (s.kind) {
      case StationKind::Queue:
        residence[i] = s.demand_s * (1 + q);
        break;
      case StationKind::Delay:
        residence[i] = s.demand_s;
        break;
      case StationKind::MultiServer:
        // the marginals are wanted at population N-1: scale X like the queues
        residence[i] = s.demand_s / s.servers * (1 + q + idle_correction(s, x * (N - 1) / N));
        break;
      }
      total += residence[i];
    }
    double next_x = N / (net.think_time_s + total);
    double change = std::fabs(next_x - x) / next_x;
    x = next_x;
    for (std::size_t i = 0; i < K; ++i) {
      double q = x * residence[i];
      change = std::max(change, std::fabs(q - queue[i]) / std::max(q, 1e-300));
      queue[i] = q;
    }
    if (change < tolerance)
      break;
  }
  MvaResult r;
  r.customers = customers;
  r.throughput = x;
  r.stations.resize(K);
  for (std::size_t i = 0; i < K; ++i) {
    const Station& s = net.stations[i];
    r.response_s += residence[i];
    r.stations[i].residence_s = residence[i];
    r.stations[i].queue_length = queue[i];
    int servers = s.kind == StationKind::MultiServer ? s.servers : 1;
    r.stations[i].utilization = s.kind == StationKind::Delay ? 0.0 : x * s.demand_s / servers;
  }
  return r;
}

} // namespace perfcast
