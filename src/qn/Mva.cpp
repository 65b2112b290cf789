#include "core/Error.hpp"
#include "qn/ClosedNetwork.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>

namespace perfcast {

double Station::rate(int k) const
{
  switch (kind) {
  case StationKind::Queue: return 1;
  case StationKind::Delay: return k;
  case StationKind::MultiServer: return std::min(k, servers);
  case StationKind::LoadDependent:
    return rates.empty() ? 1.0 : rates[static_cast<std::size_t>(std::min<int>(k, static_cast<int>(rates.size())) - 1)];
  }
  return 1;
}

void Station::check_service() const
{
  if (kind == StationKind::MultiServer && servers < 1)
    throw Error(fmt::format("queueing network: station '{}' needs at least one server", name));
  if (kind == StationKind::LoadDependent) {
    if (rates.empty())
      throw Error(fmt::format("queueing network: load-dependent station '{}' has no rates", name));
    for (double r : rates)
      if (!(r > 0) || !std::isfinite(r))
        throw Error(fmt::format("queueing network: station '{}' has a rate multiplier {} (expected positive)", name, r));
  }
}

namespace {

void check(const ClosedNetwork& net, int customers)
{
  if (net.stations.empty())
    throw Error("queueing network: no station");
  if (customers < 1)
    throw Error(fmt::format("queueing network: population must be at least 1, got {}", customers));
  if (!(net.think_time_s >= 0) || !std::isfinite(net.think_time_s))
    throw Error("queueing network: think time must be a finite non-negative number");
  double queued = 0;
  for (const Station& s : net.stations)
    queued += s.kind == StationKind::Delay ? 0.0 : s.demand_s;
  if (!(net.overlap_s >= 0) || !(net.overlap_s <= 0.5 * queued * (1 + 1e-12)))
    throw Error(fmt::format("queueing network: overlap {} s per cycle (expected from 0 to half the queues' demand, "
                            "{} s)",
                            net.overlap_s, 0.5 * queued));
  for (const Station& s : net.stations) {
    if (!(s.demand_s >= 0) || !std::isfinite(s.demand_s))
      throw Error(fmt::format("queueing network: station '{}' has demand {} (expected a finite non-negative number)",
                              s.name, s.demand_s));
    s.check_service();
  }
}

} // namespace

// Largest rate multiplier: the station's capacity in servers.
static double capacity(const Station& s)
{
  switch (s.kind) {
  case StationKind::MultiServer: return s.servers;
  case StationKind::LoadDependent: return *std::max_element(s.rates.begin(), s.rates.end());
  default: return 1;
  }
}

std::vector<MvaResult> solve_mva_all(const ClosedNetwork& net, int customers)
{
  return solve_mva_all(net, customers, false);
}

std::vector<MvaResult> solve_mva_all(const ClosedNetwork& net, int customers, bool last_only)
{
  check(net, customers);
  std::size_t K = net.stations.size();
  std::vector<double> queue(K, 0.0); // Q_i(n-1)
  // p[i][k] = P(k customers at multi-server station i | n-1 in the network)
  std::vector<std::vector<double>> p(K);
  auto marginal = [&](std::size_t i) {
    return net.stations[i].kind == StationKind::MultiServer || net.stations[i].kind == StationKind::LoadDependent;
  };
  for (std::size_t i = 0; i < K; ++i)
    if (marginal(i))
      p[i] = {1.0};
  std::vector<MvaResult> results;
  results.reserve(last_only ? 1 : static_cast<std::size_t>(customers));
  std::vector<double> residence(K), next;
  for (std::size_t i = 0; i < K; ++i)
    if (marginal(i))
      p[i].reserve(static_cast<std::size_t>(customers) + 1);
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
      case StationKind::MultiServer:
      case StationKind::LoadDependent: {
        // W(n) = sum_{k=1..n} (D / mu(k)) k p(k-1 | n-1)
        double w = 0;
        for (int k = 1; k <= n; ++k)
          w += s.demand_s / s.rate(k) * k * p[i][static_cast<std::size_t>(k - 1)];
        residence[i] = w;
        break;
      }
      }
      total += residence[i];
    }
    total -= net.overlap_s;
    double x = n / (net.think_time_s + total);
    bool keep = !last_only || n == customers;
    MvaResult r;
    if (keep) {
      r.customers = n;
      r.throughput = x;
      r.response_s = total;
      r.stations.resize(K);
    }
    for (std::size_t i = 0; i < K; ++i) {
      const Station& s = net.stations[i];
      queue[i] = x * residence[i];
      if (keep) {
        r.stations[i].residence_s = residence[i];
        r.stations[i].queue_length = queue[i];
        r.stations[i].utilization = s.kind == StationKind::Delay ? 0.0 : x * s.demand_s / capacity(s);
      }
      if (marginal(i)) {
        // p(k | n) = (D / mu(k)) X p(k-1 | n-1), k >= 1; p(0 | n) = 1 - sum
        next.assign(static_cast<std::size_t>(n + 1), 0.0);
        double sum = 0;
        for (int k = 1; k <= n; ++k) {
          next[static_cast<std::size_t>(k)] = s.demand_s / s.rate(k) * x * p[i][static_cast<std::size_t>(k - 1)];
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
        p[i].swap(next);
      }
    }
    if (keep)
      results.push_back(std::move(r));
  }
  return results;
}

MvaResult solve_mva(const ClosedNetwork& network, int customers)
{
  return solve_mva_all(network, customers, true).back();
}

double multiserver_idle_correction(int servers, double busy)
{
  // sum_{j=0}^{c-2} (c-1-j) pi(j), pi(j) = pi(0) a^j / j!,
  // pi(0) = (1 - a/c) / (1 + (1/c) sum_{j=1}^{c-1} (c-j) a^j / j!)
  int c = servers;
  double a = busy, term = 1, weighted = 0, idle = c - 1;
  for (int j = 1; j < c; ++j) {
    term *= a / j;
    weighted += (c - j) * term;
    idle += (c - 1 - j) * term;
  }
  double pi0 = std::max(0.0, (1 - a / c) / (1 + weighted / c));
  return pi0 * idle;
}

MvaResult solve_mva_approximate(const ClosedNetwork& net, int customers, double tolerance)
{
  check(net, customers);
  // Bard-Schweitzer: W_i = D_i (1 + (N-1)/N Q_i) and Q_i = X W_i. For a given
  // throughput X each station's queue length is then explicit,
  //   Q_i(X) = X D_i / (1 - X D_i (N-1)/N),
  // and a c-server station (demand D/c per server) adds the usual correction
  // for idle servers (as in Bolch et al., Queueing Networks and Markov Chains):
  //   W = D/c (1 + (N-1)/N Q + sum_{j=0}^{c-2} (c-1-j) pi(j)),
  //   pi(j) = pi(0) a^j / j!,  pi(0) = (1 - a/c) / (1 + (1/c) sum_{j=1}^{c-1} (c-j) a^j / j!),
  // with a = D X (N-1)/N, the busy servers at population N-1. The closure
  // N = X Z + sum_i Q_i(X) is solved for X by bracketed false position: the
  // same fixed point the classic iteration approaches, in a few steps.
  std::size_t K = net.stations.size();
  double N = customers, f = (N - 1) / N;
  // queue length of station i at throughput x (infinite past its pole)
  auto queue_at = [&](std::size_t i, double x) {
    const Station& s = net.stations[i];
    switch (s.kind) {
    case StationKind::Delay:
      return x * s.demand_s;
    case StationKind::Queue: {
      double u = x * s.demand_s;
      return u * f < 1 ? u / (1 - u * f) : std::numeric_limits<double>::infinity();
    }
    case StationKind::MultiServer: {
      double u = x * s.demand_s / s.servers;
      double extra = s.servers > 1 ? multiserver_idle_correction(s.servers, x * s.demand_s * f) : 0.0;
      return u * f < 1 ? u * (1 + extra) / (1 - u * f) : std::numeric_limits<double>::infinity();
    }
    case StationKind::LoadDependent: {
      double m = capacity(s), u = x * s.demand_s / m;
      double queued = u * f < 1 ? u / (1 - u * f) : std::numeric_limits<double>::infinity();
      return queued + x * s.demand_s * (1 - 1 / m);
    }
    }
    return 0.0;
  };
  auto excess = [&](double x) {
    // the overlap is a negative delay: x (Z - overlap) customers
    double q = x * (net.think_time_s - net.overlap_s);
    for (std::size_t i = 0; i < K; ++i)
      q += queue_at(i, x);
    return q - N;
  };
  // bracket: excess(0) = -N; the upper end is the first pole (or a bound from Z)
  double hi = std::numeric_limits<double>::infinity();
  for (const Station& s : net.stations) {
    if (s.kind == StationKind::Delay || s.demand_s <= 0)
      continue;
    double per_server = s.demand_s / capacity(s);
    hi = std::min(hi, f > 0 ? 1 / (per_server * f) : std::numeric_limits<double>::infinity());
  }
  if (!std::isfinite(hi)) {
    double delays = net.think_time_s;
    for (const Station& s : net.stations)
      delays += s.demand_s;
    hi = delays > 0 ? 2 * N / delays : 1e300;
  }
  double lo = 0, g_lo = -N, g_hi = excess(hi);
  for (int k = 0; k < 200 && !(g_hi > 0); ++k) { // only delays, or N = 1: widen
    hi *= 2;
    g_hi = excess(hi);
  }
  double x = hi;
  int side = 0;
  for (int it = 0; it < 300; ++it) {
    // false position (Illinois) when the upper value is finite, else bisection
    double mid = std::isfinite(g_hi) ? (lo * g_hi - hi * g_lo) / (g_hi - g_lo) : 0.5 * (lo + hi);
    if (!(mid > lo && mid < hi))
      mid = 0.5 * (lo + hi);
    double g = excess(mid);
    x = mid;
    if (std::fabs(g) <= tolerance * N || (hi - lo) <= tolerance * hi)
      break;
    if (g > 0) {
      hi = mid;
      g_hi = g;
      if (side == -1)
        g_lo *= 0.5;
      side = -1;
    } else {
      lo = mid;
      g_lo = g;
      if (side == 1 && std::isfinite(g_hi))
        g_hi *= 0.5;
      side = 1;
    }
  }
  MvaResult r;
  r.customers = customers;
  r.throughput = x;
  r.stations.resize(K);
  for (std::size_t i = 0; i < K; ++i) {
    const Station& s = net.stations[i];
    double q = queue_at(i, x);
    r.stations[i].queue_length = q;
    r.stations[i].residence_s = x > 0 ? q / x : s.demand_s;
    r.response_s += r.stations[i].residence_s;
    if (i + 1 == K)
      r.response_s -= net.overlap_s;
    r.stations[i].utilization = s.kind == StationKind::Delay ? 0.0 : x * s.demand_s / capacity(s);
  }
  return r;
}

} // namespace perfcast
