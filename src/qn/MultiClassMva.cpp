#include "core/Error.hpp"
#include "qn/MultiClassNetwork.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace perfcast {

namespace {

void check(const MultiClassNetwork& net)
{
  if (net.stations.empty())
    throw Error("queueing network: no station");
  if (net.classes.empty())
    throw Error("queueing network: no customer class");
  for (const Station& s : net.stations)
    s.check_service();
  for (const CustomerClass& c : net.classes) {
    if (c.population < 1)
      throw Error(fmt::format("queueing network: class '{}' has population {} (expected at least 1)", c.name,
                              c.population));
    if (c.demand_s.size() != net.stations.size())
      throw Error(fmt::format("queueing network: class '{}' has {} demands for {} stations", c.name,
                              c.demand_s.size(), net.stations.size()));
    double queued = 0;
    for (std::size_t k = 0; k < net.stations.size(); ++k) {
      double d = c.demand_s[k];
      if (!(d >= 0) || !std::isfinite(d))
        throw Error(fmt::format("queueing network: class '{}' has demand {} at station '{}' (expected a finite "
                                "non-negative number)",
                                c.name, d, net.stations[k].name));
      queued += net.stations[k].kind == StationKind::Delay ? 0.0 : d;
    }
    if (!(c.think_time_s >= 0) || !std::isfinite(c.think_time_s))
      throw Error(fmt::format("queueing network: class '{}' needs a finite non-negative think time", c.name));
    if (!(c.overlap_s >= 0) || !(c.overlap_s <= 0.5 * queued * (1 + 1e-12)))
      throw Error(fmt::format("queueing network: class '{}' overlaps {} s per cycle (expected from 0 to half its "
                              "queues' demand, {} s)",
                              c.name, c.overlap_s, 0.5 * queued));
  }
}

bool has_marginals(const Station& s)
{
  return s.kind == StationKind::MultiServer || s.kind == StationKind::LoadDependent;
}

double capacity(const Station& s)
{
  switch (s.kind) {
  case StationKind::MultiServer: return s.servers;
  case StationKind::LoadDependent: return *std::max_element(s.rates.begin(), s.rates.end());
  default: return 1;
  }
}

MultiClassResult finish(const MultiClassNetwork& net, MultiClassResult r)
{
  std::size_t K = net.stations.size(), C = net.classes.size();
  r.cycle_s.assign(C, 0);
  r.utilization.assign(K, 0);
  r.queue_length.assign(K, 0);
  for (std::size_t c = 0; c < C; ++c) {
    r.cycle_s[c] = net.classes[c].population / r.throughput[c];
    for (std::size_t k = 0; k < K; ++k) {
      const Station& s = net.stations[k];
      r.queue_length[k] += r.throughput[c] * r.residence_s[c][k];
      if (s.kind != StationKind::Delay)
        r.utilization[k] += r.throughput[c] * net.classes[c].demand_s[k] / capacity(s);
    }
  }
  return r;
}

} // namespace

double multiclass_exact_cost(const MultiClassNetwork& net)
{
  double lattice = 1, kept = static_cast<double>(net.stations.size());
  for (const CustomerClass& c : net.classes)
    lattice *= c.population + 1.0;
  for (std::size_t k = 0; k < net.stations.size(); ++k)
    if (has_marginals(net.stations[k])) {
      kept += 1;
      for (const CustomerClass& c : net.classes)
        kept += k < c.demand_s.size() && c.demand_s[k] > 0 ? c.population : 0;
    }
  return lattice * static_cast<double>(std::max<std::size_t>(net.classes.size(), 1)) * kept;
}

MultiClassResult solve_multiclass_mva(const MultiClassNetwork& net)
{
  check(net);
  std::size_t K = net.stations.size(), C = net.classes.size();
  // population vectors n = (n_0, ..., n_C-1), 0 <= n_c <= N_c, numbered in
  // mixed radix: index = sum n_c stride_c. n - e_r has index - stride_r, at
  // the level (total population) below, which is all the recurrence reads
  std::vector<long long> stride(C);
  long long lattice = 1;
  int total = 0;
  for (std::size_t c = 0; c < C; ++c) {
    stride[c] = lattice;
    lattice *= net.classes[c].population + 1;
    total += net.classes[c].population;
  }
  // each station's slots in a vector's record: Q_k for a queue, p_k(0..M_k-1)
  // for a load-dependent one, M_k = 1 + customers of the classes that visit it
  std::vector<std::size_t> offset(K), width(K);
  std::size_t record = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const Station& s = net.stations[k];
    int visitors = 0;
    for (const CustomerClass& c : net.classes)
      visitors += c.demand_s[k] > 0 ? c.population : 0;
    offset[k] = record;
    width[k] = s.kind == StationKind::Queue ? 1 : has_marginals(s) ? static_cast<std::size_t>(visitors) + 1 : 0;
    record += width[k];
  }
  // the lattice by level, each level's vectors in index order
  std::vector<int> level_of(static_cast<std::size_t>(lattice));
  std::vector<std::size_t> position(static_cast<std::size_t>(lattice));
  std::vector<std::size_t> level_size(static_cast<std::size_t>(total) + 1, 0);
  std::vector<int> digits(C, 0);
  for (long long i = 0; i < lattice; ++i) {
    int level = 0;
    for (int d : digits)
      level += d;
    level_of[static_cast<std::size_t>(i)] = level;
    position[static_cast<std::size_t>(i)] = level_size[static_cast<std::size_t>(level)]++;
    for (std::size_t c = 0; c < C; ++c) { // next vector: increment the mixed-radix digits
      if (++digits[c] <= net.classes[c].population)
        break;
      digits[c] = 0;
    }
  }
  // level 0: the empty network, every marginal station certainly empty
  std::vector<double> below(record, 0.0), here;
  for (std::size_t k = 0; k < K; ++k)
    if (has_marginals(net.stations[k]))
      below[offset[k]] = 1;
  std::vector<std::vector<double>> residence(C, std::vector<double>(K, 0.0));
  std::vector<double> x(C, 0.0);
  MultiClassResult result;
  // the vectors of each level, enumerated again in index order
  std::vector<std::vector<long long>> members(static_cast<std::size_t>(total) + 1);
  for (long long i = 0; i < lattice; ++i)
    members[static_cast<std::size_t>(level_of[static_cast<std::size_t>(i)])].push_back(i);
  for (int level = 1; level <= total; ++level) {
    const auto& list = members[static_cast<std::size_t>(level)];
    here.assign(list.size() * record, 0.0);
    for (std::size_t at = 0; at < list.size(); ++at) {
      long long index = list[at];
      double* rec = &here[at * record];
      for (std::size_t r = 0; r < C; ++r) {
        int n_r = static_cast<int>((index / stride[r]) % (net.classes[r].population + 1));
        x[r] = 0;
        std::fill(residence[r].begin(), residence[r].end(), 0.0);
        if (n_r == 0)
          continue;
        const double* prev = &below[position[static_cast<std::size_t>(index - stride[r])] * record];
        const CustomerClass& cls = net.classes[r];
        double sum = 0;
        for (std::size_t k = 0; k < K; ++k) {
          const Station& s = net.stations[k];
          double d = cls.demand_s[k];
          if (d <= 0)
            continue;
          double w = 0;
          switch (s.kind) {
          case StationKind::Queue: w = d * (1 + prev[offset[k]]); break;
          case StationKind::Delay: w = d; break;
          case StationKind::MultiServer:
          case StationKind::LoadDependent:
            // W_r(n) = sum_j (D_r / mu(j)) j p(j-1 | n - e_r)
            for (std::size_t j = 1; j < width[k] && j <= static_cast<std::size_t>(level); ++j)
              w += d / s.rate(static_cast<int>(j)) * static_cast<double>(j) * prev[offset[k] + j - 1];
            break;
          }
          residence[r][k] = w;
          sum += w;
        }
        x[r] = n_r / (cls.think_time_s + sum - cls.overlap_s);
      }
      for (std::size_t k = 0; k < K; ++k) {
        const Station& s = net.stations[k];
        if (s.kind == StationKind::Queue) {
          double q = 0;
          for (std::size_t r = 0; r < C; ++r)
            q += x[r] * residence[r][k];
          rec[offset[k]] = q;
        } else if (has_marginals(s)) {
          // p(j | n) = sum_r (D_r / mu(j)) X_r(n) p(j-1 | n - e_r), j >= 1; p(0 | n) = 1 - sum
          double* p = rec + offset[k];
          for (std::size_t r = 0; r < C; ++r) {
            double d = net.classes[r].demand_s[k];
            if (d <= 0 || x[r] <= 0)
              continue;
            const double* prev = &below[position[static_cast<std::size_t>(index - stride[r])] * record] + offset[k];
            for (std::size_t j = 1; j < width[k] && j <= static_cast<std::size_t>(level); ++j)
              p[j] += d / s.rate(static_cast<int>(j)) * x[r] * prev[j - 1];
          }
          double sum = 0;
          for (std::size_t j = 1; j < width[k]; ++j)
            sum += p[j];
          if (sum > 1) { // round-off pushed p(0) below zero: renormalise rather than go negative
            for (std::size_t j = 1; j < width[k]; ++j)
              p[j] /= sum;
            p[0] = 0;
          } else {
            p[0] = 1 - sum;
          }
        }
      }
      if (level == total) {
        result.throughput = x;
        result.residence_s = residence;
      }
    }
    below.swap(here);
  }
  return finish(net, std::move(result));
}

MultiClassResult solve_multiclass_mva_approximate(const MultiClassNetwork& net, double tolerance)
{
  check(net);
  std::size_t K = net.stations.size(), C = net.classes.size();
  // q[r][k]: class r's customers at station k (at a general load-dependent
  // station, those queued at its D / mu_max part); spread evenly to start
  std::vector<std::vector<double>> q(C, std::vector<double>(K, 0.0)), w(C, std::vector<double>(K, 0.0));
  std::vector<double> x(C, 0.0), queued(K, 0.0);
  for (std::size_t r = 0; r < C; ++r) {
    int visited = 0;
    for (std::size_t k = 0; k < K; ++k)
      visited += net.classes[r].demand_s[k] > 0;
    for (std::size_t k = 0; k < K; ++k)
      if (net.classes[r].demand_s[k] > 0)
        q[r][k] = static_cast<double>(net.classes[r].population) / visited;
  }
  constexpr int kMaxSweeps = 100000;
  for (int sweep = 1; sweep <= kMaxSweeps; ++sweep) {
    std::fill(queued.begin(), queued.end(), 0.0);
    for (std::size_t r = 0; r < C; ++r)
      for (std::size_t k = 0; k < K; ++k)
        queued[k] += q[r][k];
    std::vector<double> next_x(C, 0.0);
    for (std::size_t r = 0; r < C; ++r) {
      const CustomerClass& cls = net.classes[r];
      double own = 1.0 / cls.population, sum = 0;
      for (std::size_t k = 0; k < K; ++k) {
        const Station& s = net.stations[k];
        double d = cls.demand_s[k];
        w[r][k] = 0;
        if (d <= 0)
          continue;
        // the queue an arriving customer of class r sees: all but its own share
        double seen = queued[k] - q[r][k] * own;
        switch (s.kind) {
        case StationKind::Queue: w[r][k] = d * (1 + seen); break;
        case StationKind::Delay: w[r][k] = d; break;
        case StationKind::MultiServer: {
          // busy servers at the population less one class-r customer
          double busy = 0;
          for (std::size_t c = 0; c < C; ++c)
            busy += x[c] * net.classes[c].demand_s[k] * (c == r ? 1 - own : 1.0);
          double idle = s.servers > 1 ? multiserver_idle_correction(s.servers, busy) : 0.0;
          w[r][k] = d / s.servers * (1 + seen + idle);
          break;
        }
        case StationKind::LoadDependent: {
          double m = capacity(s);
          w[r][k] = d / m * (1 + seen) + d * (1 - 1 / m);
          break;
        }
        }
        sum += w[r][k];
      }
      next_x[r] = cls.population / (cls.think_time_s + sum - cls.overlap_s);
    }
    double change = 0;
    for (std::size_t r = 0; r < C; ++r) {
      change = std::max(change, std::fabs(next_x[r] - x[r]) / next_x[r]);
      for (std::size_t k = 0; k < K; ++k) {
        const Station& s = net.stations[k];
        double d = net.classes[r].demand_s[k];
        // at a general load-dependent station only the D / mu_max part queues
        double in_queue = s.kind == StationKind::LoadDependent && d > 0 ? w[r][k] - d * (1 - 1 / capacity(s)) : w[r][k];
        double nq = next_x[r] * in_queue;
        change = std::max(change, std::fabs(nq - q[r][k]) / net.classes[r].population);
        q[r][k] = nq;
      }
    }
    x = next_x;
    if (change <= tolerance) {
      MultiClassResult result;
      result.throughput = x;
      result.residence_s = w;
      result.iterations = sweep;
      return finish(net, std::move(result));
    }
  }
  throw Error(fmt::format("queueing network: approximate MVA did not converge in {} sweeps", kMaxSweeps));
}

} // namespace perfcast
