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

// F_k(n) = sum_i c_i prod_{j != i} p_j^(1-k), c_i the cut planes along side i:
// p_i - 1 twice (each cut seen from both sides), or on a periodic grid p_i
// twice when p_i >= 2 (the ends meet); a side of 1 wraps onto the rank
// itself, its one plane counted (twice) only in `ones`, the faces a rank
// sends itself
double face_measure(const std::vector<int>& dims, double k, bool periodic, bool ones = false)
{
  double f = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    double across = 1;
    for (std::size_t j = 0; j < dims.size(); ++j)
      if (j != i)
        across *= std::pow(dims[j], 1 - k);
    double cuts = ones ? (dims[i] == 1 ? 1 : 0) : periodic ? (dims[i] >= 2 ? dims[i] : 0) : dims[i] - 1;
    f += 2.0 * cuts * across;
  }
  return f;
}

// What one run's partner lists say.
// A periodic face exchange's faces per rank on the grid dims: two a side, to
// partners along the sides of 2 or more and to the rank itself along the
// sides of 1 (first: to partners, second: to itself)
std::pair<double, double> periodic_faces_per_rank(const std::vector<int>& dims)
{
  std::pair<double, double> faces{0, 0};
  for (int p : dims)
    (p >= 2 ? faces.first : faces.second) += 2;
  return faces;
}

struct RunPartners {
  int procs = 0;
  double pairs = 0, messages = 0, bytes = 0; ///< ordered pairs with messages, their messages and bytes
  int most = 0;                              ///< largest number of partners of a rank
  bool mutual = true, even = true;           ///< partners both ways; every pair as many messages (within 5%)
  std::vector<std::vector<double>> partner_bytes;    ///< per rank, its partners' bytes, largest first
  std::vector<std::vector<double>> partner_messages; ///< per rank, its partners' messages, most first
  std::vector<double> self_messages;                 ///< per rank, the messages it sent to itself
};

std::optional<RunPartners> read_partners(const MeasuredRun& r)
{
  if (r.partners.size() != static_cast<std::size_t>(r.procs))
    return std::nullopt;
  RunPartners x;
  x.procs = r.procs;
  std::map<std::pair<int, int>, double> pair_messages;
  x.partner_bytes.resize(static_cast<std::size_t>(r.procs));
  x.partner_messages.resize(static_cast<std::size_t>(r.procs));
  x.self_messages.assign(static_cast<std::size_t>(r.procs), 0.0);
  // setup traffic (a one-off pair, TrafficStructure's setup_messages_limit)
  // is no part of the exchange: it stays with the traffic beside it
  double setup = setup_messages_limit(r);
  auto exchanged = [&](const PartnerTraffic& p, int rank) {
    return p.messages > 0 && (p.to == rank || !is_setup_pair(p.messages, setup));
  };
  for (int rank = 0; rank < r.procs; ++rank) {
    auto at = static_cast<std::size_t>(rank);
    for (const PartnerTraffic& p : r.partners[at]) {
      if (!exchanged(p, rank))
        continue;
      if (p.to == rank) { // a message to itself crosses no boundary (a periodic side of 1 wraps onto it)
        x.self_messages[at] += p.messages;
        continue;
      }
      pair_messages[{rank, p.to}] += p.messages;
      x.messages += p.messages;
      x.bytes += p.bytes;
    }
  }
  for (const auto& [pair, messages] : pair_messages)
    x.partner_messages[static_cast<std::size_t>(pair.first)].push_back(messages);
  for (int rank = 0; rank < r.procs; ++rank) {
    auto at = static_cast<std::size_t>(rank);
    for (const PartnerTraffic& p : r.partners[at])
      if (exchanged(p, rank) && p.to != rank)
        x.partner_bytes[at].push_back(p.bytes);
    std::sort(x.partner_bytes[at].rbegin(), x.partner_bytes[at].rend());
    std::sort(x.partner_messages[at].rbegin(), x.partner_messages[at].rend());
    x.most = std::max(x.most, static_cast<int>(x.partner_messages[at].size()));
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

// Whether one run fits a periodic face exchange on the grid dims, and whether
// it shows the wrap (nullopt: it does not fit). Each rank sends m messages
// across each of its 2 faces per side of 2 or more: along a side of 3 or
// more to two partners, m each; along a side of 2 both faces to its one
// partner, 2m; along a side of 1 to itself, 2m, or nothing when the code
// copies its own faces without a message. The wrap shows where a non-periodic
// grid would differ: a side of 3 or more (the ends are neighbours), or the
// messages a rank sends itself across its sides of 1.
std::optional<bool> periodic_faces_fit(const RunPartners& x, const std::vector<int>& dims)
{
  int twos = 0, wide = 0, ones = 0;
  for (int p : dims)
    (p == 1 ? ones : p == 2 ? twos : wide) += 1;
  if (twos + wide == 0)
    return std::nullopt;
  double m = x.messages / (x.procs * 2.0 * (twos + wide));
  auto near = [](double v, double want) { return std::fabs(v - want) <= 0.05 * want; };
  bool to_itself = false, not_to_itself = false;
  for (std::size_t rank = 0; rank < x.partner_messages.size(); ++rank) {
    const std::vector<double>& msgs = x.partner_messages[rank];
    if (msgs.size() != static_cast<std::size_t>(twos + 2 * wide))
      return std::nullopt;
    for (std::size_t i = 0; i < msgs.size(); ++i)
      if (!near(msgs[i], i < static_cast<std::size_t>(twos) ? 2 * m : m))
        return std::nullopt;
    double self = x.self_messages[rank];
    if (self > 0 && !(ones > 0 && near(self, 2.0 * ones * m)))
      return std::nullopt;
    (self > 0 ? to_itself : not_to_itself) = true;
  }
  if (to_itself && not_to_itself)
    return std::nullopt; // some ranks wrap onto themselves and others not: no one grid
  return wide > 0 || to_itself;
}

} // namespace

GridTraffic halo_traffic(const HaloExchange& h, int n)
{
  bool to_itself = h.periodic && h.to_itself;
  if (n < 2 && !to_itself)
    return {};
  std::vector<int> dims = balanced_dims(n, h.dimensions);
  // messages per rank over messages_per_pair
  auto [per_rank, self_per_rank] =
      h.periodic ? periodic_faces_per_rank(dims) : std::pair<double, double>{mean_neighbours(dims, h.diagonals), 0};
  GridTraffic t{h.messages_per_pair * n * per_rank, h.bytes * face_measure(dims, h.exponent, h.periodic)};
  if (to_itself) {
    t.self_messages = h.messages_per_pair * n * self_per_rank;
    t.self_bytes = h.bytes * face_measure(dims, h.exponent, true, true);
    t.messages += t.self_messages;
    t.bytes += t.self_bytes;
  }
  return t;
}

std::optional<HaloExchange> find_halo_exchange(const std::vector<MeasuredRun>& runs)
{
  std::vector<RunPartners> seen;
  for (const MeasuredRun& r : runs) {
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    auto x = read_partners(r);
    if (!x || !(x->pairs > 0) || !x->mutual)
      return std::nullopt;
    seen.push_back(std::move(*x));
  }
  if (seen.size() < 2)
    return std::nullopt;
  // per dimension: a periodic face exchange when the runs show the wrap, then
  // faces, then faces, edges and corners on a grid whose ends do not meet
  enum class Kind { PeriodicFaces, Faces, Diagonals };
  for (int d = 1; d <= 3; ++d)
    for (Kind kind : {Kind::PeriodicFaces, Kind::Faces, Kind::Diagonals}) {
      bool diagonals = kind == Kind::Diagonals, periodic = kind == Kind::PeriodicFaces;
      if (d == 1 && diagonals)
        continue; // a chain has no diagonals
      bool fits = true, bounded = false;
      for (const RunPartners& x : seen) {
        std::vector<int> dims = balanced_dims(x.procs, d);
        if (periodic) {
          auto wrap = periodic_faces_fit(x, dims);
          if (!wrap) {
            fits = false;
            break;
          }
          bounded = bounded || *wrap; // shown to wrap: not the non-periodic grid
          continue;
        }
        double expected = mean_neighbours(dims, diagonals);
        if (!x.even || std::fabs(x.pairs / x.procs - expected) > 1e-9 * expected ||
            x.most > most_neighbours(dims, diagonals)) {
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
      h.periodic = periodic;
      auto sends_itself = [](const RunPartners& x) {
        return std::any_of(x.self_messages.begin(), x.self_messages.end(), [](double m) { return m > 0; });
      };
      h.to_itself = periodic && std::any_of(seen.begin(), seen.end(), sends_itself);
      for (const RunPartners& x : seen) {
        // periodic: per face, 2 a side of 2 or more
        double per_rank = periodic ? periodic_faces_per_rank(balanced_dims(x.procs, d)).first : x.pairs / x.procs;
        h.messages_per_pair += x.messages / x.procs / per_rank / static_cast<double>(seen.size());
      }
      // bytes F_k(n): k on a grid of 101 values in [0, 1], least squares in logs, c from the mean log ratio
      double best = -1;
      for (int step = 0; step <= 100; ++step) {
        double k = step / 100.0, log_c = 0, error = 0;
        for (const RunPartners& x : seen)
          log_c += std::log(x.bytes / face_measure(balanced_dims(x.procs, d), k, periodic)) / static_cast<double>(seen.size());
        for (const RunPartners& x : seen) {
          double r = std::log(x.bytes / face_measure(balanced_dims(x.procs, d), k, periodic)) - log_c;
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

void to_json(nlohmann::json& j, const HaloExchange& h)
{
  j = nlohmann::json{{"dimensions", h.dimensions},
                     {"diagonals", h.diagonals},
                     {"periodic", h.periodic},
                     {"to_itself", h.to_itself},
                     {"messages_per_pair", h.messages_per_pair},
                     {"bytes", h.bytes},
                     {"exponent", h.exponent}};
}

void from_json(const nlohmann::json& j, HaloExchange& h)
{
  j.at("dimensions").get_to(h.dimensions);
  j.at("diagonals").get_to(h.diagonals);
  h.periodic = j.value("periodic", false);
  h.to_itself = j.value("to_itself", false);
  j.at("messages_per_pair").get_to(h.messages_per_pair);
  j.at("bytes").get_to(h.bytes);
  j.at("exponent").get_to(h.exponent);
}

} // namespace perfcast
