#include "qn/HaloExchange.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

namespace perfcast {

std::vector<int> balanced_dims(int n, int dimensions)
{
  // prime factors, largest first, each to the smallest side so far
  std::vector<int> primes;
  for (int m = std::max(n, 1), f = 2; m > 1;) {
    if (static_cast<long long>(f) * f > m) {
      primes.push_back(m);
      break;
    }
    if (m % f == 0) {
      primes.push_back(f);
      m /= f;
    } else {
      ++f;
    }
  }
  std::sort(primes.rbegin(), primes.rend());
  std::vector<int> dims(static_cast<std::size_t>(std::max(dimensions, 1)), 1);
  for (int p : primes)
    *std::min_element(dims.begin(), dims.end()) *= p;
  std::sort(dims.rbegin(), dims.rend());
  return dims;
}

double mean_neighbours(const std::vector<int>& dims, bool diagonals)
{
  // along a side of p ranks, a rank has on average 2 (p - 1) / p neighbours
  // (p - 2 inner ranks with two, two ends with one); with diagonals, a rank's
  // neighbourhood is the product over the sides of its 1 + that many offsets
  double faces = 0, box = 1;
  for (int p : dims) {
    faces += 2.0 * (p - 1) / p;
    box *= (3.0 * p - 2) / p;
  }
  return diagonals ? box - 1 : faces;
}

namespace {

int most_neighbours(const std::vector<int>& dims, bool diagonals)
{
  int faces = 0, box = 1;
  for (int p : dims) {
    faces += std::min(p - 1, 2);
    box *= 1 + std::min(p - 1, 2);
  }
  return diagonals ? box - 1 : faces;
}

// F_k(n) = sum_i 2 (p_i - 1) prod_{j != i} p_j^(1-k)
double face_measure(const std::vector<int>& dims, double k)
{
  double f = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    double across = 1;
    for (std::size_t j = 0; j < dims.size(); ++j)
      if (j != i)
        across *= std::pow(dims[j], 1 - k);
    f += 2.0 * (dims[i] - 1) * across;
  }
  return f;
}

// What one run's partner lists say.
struct RunPartners {
  int procs = 0;
  double pairs = 0, messages = 0, bytes = 0; ///< ordered pairs with messages, their messages and bytes
  int most = 0;                              ///< largest number of partners of a rank
  bool mutual = true, even = true;           ///< partners both ways; every pair as many messages (within 5%)
  std::vector<std::vector<double>> partner_bytes; ///< per rank, its partners' bytes, largest first
};

std::optional<RunPartners> read_partners(const MeasuredRun& r)
{
  if (r.partners.size() != static_cast<std::size_t>(r.procs))
    return std::nullopt;
  RunPartners x;
  x.procs = r.procs;
  std::map<std::pair<int, int>, double> pair_messages;
  x.partner_bytes.resize(static_cast<std::size_t>(r.procs));
  for (int rank = 0; rank < r.procs; ++rank) {
    int count = 0;
    for (const PartnerTraffic& p : r.partners[static_cast<std::size_t>(rank)]) {
      if (!(p.messages > 0) || p.to == rank) // a message to itself crosses no boundary
        continue;
      ++count;
      pair_messages[{rank, p.to}] += p.messages;
      x.messages += p.messages;
      x.bytes += p.bytes;
      x.partner_bytes[static_cast<std::size_t>(rank)].push_back(p.bytes);
    }
    std::sort(x.partner_bytes[static_cast<std::size_t>(rank)].rbegin(),
              x.partner_bytes[static_cast<std::size_t>(rank)].rend());
    x.most = std::max(x.most, count);
  }
  x.pairs = static_cast<double>(pair_messages.size());
  double low = 0, high = 0;
  for (const auto& [pair, messages] : pair_messages) {
    x.mutual = x.mutual && pair_messages.count({pair.second, pair.first}) > 0;
    low = low == 0 ? messages : std::min(low, messages);
    high = std::max(high, messages);
  }
  x.even = high <= 1.05 * low;
  return x;
}

// On a grid whose sides are all 2 or 1 with diagonals, every rank neighbours
// every other, as in an all-to-all. A halo's messages then still fall in
// classes by the boundary they cross: each rank has C(d', j) neighbours
// across a boundary of dimension d - j (d' sides of 2), faces carrying at
// least twice any edge's bytes, edges twice any corner's. Unknown (nullopt)
// with one side of 2: a single class, nothing to compare.
std::optional<bool> boundary_classes(const RunPartners& x, const std::vector<int>& dims)
{
  int sides = static_cast<int>(std::count(dims.begin(), dims.end(), 2));
  if (sides < 2)
    return std::nullopt;
  std::vector<int> group;
  for (int j = 1, c = sides; j <= sides; ++j) { // c = C(sides, j)
    group.push_back(c);
    c = c * (sides - j) / (j + 1);
  }
  for (const auto& bytes : x.partner_bytes) {
    std::size_t at = 0;
    for (std::size_t g = 0; g + 1 < group.size(); ++g) {
      double smallest = bytes[at + static_cast<std::size_t>(group[g]) - 1];
      at += static_cast<std::size_t>(group[g]);
      if (!(smallest >= 2 * bytes[at]))
        return false;
    }
  }
  return true;
}

} // namespace

GridTraffic halo_traffic(const HaloExchange& h, int n)
{
  if (n < 2)
    return {};
  std::vector<int> dims = balanced_dims(n, h.dimensions);
  return {h.messages_per_pair * n * mean_neighbours(dims, h.diagonals), h.bytes * face_measure(dims, h.exponent)};
}

std::optional<HaloExchange> find_halo_exchange(const std::vector<MeasuredRun>& runs)
{
  std::vector<RunPartners> seen;
  for (const MeasuredRun& r : runs) {
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    auto x = read_partners(r);
    if (!x || !(x->pairs > 0) || !x->mutual || !x->even)
      return std::nullopt;
    seen.push_back(std::move(*x));
  }
  if (seen.size() < 2)
    return std::nullopt;
  for (int d = 1; d <= 3; ++d)
    for (bool diagonals : {false, true}) {
      if (d == 1 && diagonals)
        continue; // a chain has no diagonals
      bool fits = true, bounded = false;
      for (const RunPartners& x : seen) {
        std::vector<int> dims = balanced_dims(x.procs, d);
        double expected = mean_neighbours(dims, diagonals);
        if (std::fabs(x.pairs / x.procs - expected) > 1e-9 * expected || x.most > most_neighbours(dims, diagonals)) {
          fits = false;
          break;
        }
        if (expected < x.procs - 1 - 1e-9) {
          bounded = true; // some pair of ranks are not neighbours
        } else if (diagonals) {
          auto classes = boundary_classes(x, dims);
          if (classes && !*classes) {
            fits = false;
            break;
          }
          bounded = bounded || classes.value_or(false);
        }
      }
      if (!fits || !bounded)
        continue;
      HaloExchange h;
      h.dimensions = d;
      h.diagonals = diagonals;
      for (const RunPartners& x : seen)
        h.messages_per_pair += x.messages / x.pairs / static_cast<double>(seen.size());
      // bytes F_k(n): k on a grid of 101 values in [0, 1], least squares in logs, c from the mean log ratio
      double best = -1;
      for (int step = 0; step <= 100; ++step) {
        double k = step / 100.0, log_c = 0, error = 0;
        for (const RunPartners& x : seen)
          log_c += std::log(x.bytes / face_measure(balanced_dims(x.procs, d), k)) / static_cast<double>(seen.size());
        for (const RunPartners& x : seen) {
          double r = std::log(x.bytes / face_measure(balanced_dims(x.procs, d), k)) - log_c;
          error += r * r;
        }
        if (best < 0 || error < best - 1e-12) {
          best = error;
          h.exponent = k;
          h.bytes = std::exp(log_c);
        }
      }
      if (!(h.bytes > 0) || !std::isfinite(h.bytes))
        return std::nullopt;
      return h;
    }
  return std::nullopt;
}

} // namespace perfcast
