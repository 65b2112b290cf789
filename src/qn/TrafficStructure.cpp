#include "qn/TrafficStructure.hpp"

#include "net/SmpiFactors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>

namespace perfcast {

std::pair<int, int> grid_dims(int n, bool unit_stride_on_smaller)
{
  // the divisor of n closest to its square root from below (MPI_Dims_create's 2-D grid)
  int small = 1;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
    if (n % d == 0)
      small = d;
  int large = n / small;
  return unit_stride_on_smaller ? std::pair{small, large} : std::pair{large, small};
}

GridTraffic grid_traffic(const GridExchange& g, int n)
{
  if (n < 2)
    return {};
  auto [px, py] = grid_dims(n, g.unit_stride_on_smaller);
  // ordered neighbour pairs: (px - 1) py along x, px (py - 1) along y, both ways
  double pairs_x = 2.0 * (px - 1) * py, pairs_y = 2.0 * px * (py - 1);
  double size_x = g.bytes_x * std::pow(py, -g.exponent_x), size_y = g.bytes_y * std::pow(px, -g.exponent_y);
  double mx = pairs_x * g.messages_x, my = pairs_y * g.messages_y;
  return {mx + my, mx * size_x + my * size_y};
}

double setup_messages_limit(const MeasuredRun& run)
{
  std::vector<double> pairs;
  for (std::size_t rank = 0; rank < run.partners.size(); ++rank)
    for (const PartnerTraffic& p : run.partners[rank])
      if (p.messages > 0 && static_cast<std::size_t>(p.to) != rank)
        pairs.push_back(p.messages);
  if (pairs.empty())
    return 0;
  std::sort(pairs.begin(), pairs.end());
  std::size_t half = pairs.size() / 2;
  double median = pairs.size() % 2 == 1 ? pairs[half] : (pairs[half - 1] + pairs[half]) / 2;
  return median / 10;
}

GridTraffic measured_grid_traffic(const MeasuredRun& run)
{
  GridTraffic t;
  double setup = setup_messages_limit(run);
  for (std::size_t rank = 0; rank < run.partners.size(); ++rank)
    for (const PartnerTraffic& p : run.partners[rank]) {
      if (static_cast<std::size_t>(p.to) != rank && is_setup_pair(p.messages, setup))
        continue;
      t.messages += p.messages;
      t.bytes += p.bytes;
    }
  return t;
}

namespace {

// Per-direction totals of one run on a px x py grid.
struct Directions {
  int px = 0, py = 0;
  double messages_x = 0, bytes_x = 0, messages_y = 0, bytes_y = 0;
};

// The run's traffic split by grid direction; nothing when a rank sends off
// the grid or leaves a grid neighbour without a message. Setup traffic
// (setup_messages_limit) is no part of the exchange, on the grid or off it.
std::optional<Directions> split_on_grid(const MeasuredRun& run, bool unit_stride_on_smaller)
{
  Directions d;
  std::tie(d.px, d.py) = grid_dims(run.procs, unit_stride_on_smaller);
  double setup = setup_messages_limit(run);
  for (int r = 0; r < run.procs; ++r) {
    int x = r % d.px, y = r / d.px;
    int expected = (x > 0) + (x < d.px - 1) + (y > 0) + (y < d.py - 1);
    int seen = 0;
    for (const PartnerTraffic& p : run.partners[static_cast<std::size_t>(r)]) {
      if (!(p.messages > 0) || (p.to != r && is_setup_pair(p.messages, setup)))
        continue;
      int dx = p.to % d.px - x, dy = p.to / d.px - y;
      if (std::abs(dx) + std::abs(dy) != 1)
        return std::nullopt;
      ++seen;
      (dx != 0 ? d.messages_x : d.messages_y) += p.messages;
      (dx != 0 ? d.bytes_x : d.bytes_y) += p.bytes;
    }
    if (seen != expected)
      return std::nullopt;
  }
  return d;
}

// Size of a message along one direction as c e^-k over the other side's
// extent e: least squares in logs; k within [0, 1] (a face that does not
// shrink, up to one shrinking as 1/e). Unknown (-1) with one extent only.
std::pair<double, double> fit_size(const std::vector<std::pair<double, double>>& extent_size, double fallback)
{
  std::set<double> extents;
  for (const auto& [e, s] : extent_size)
    extents.insert(e);
  double k = fallback;
  if (extents.size() >= 2) {
    double m = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [e, s] : extent_size) {
      double lx = std::log(e), ly = std::log(s);
      m += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    k = std::clamp(-(m * sxy - sx * sy) / (m * sxx - sx * sx), 0.0, 1.0);
  }
  double log_c = 0;
  for (const auto& [e, s] : extent_size)
    log_c += std::log(s) + k * std::log(e);
  return {std::exp(log_c / static_cast<double>(extent_size.size())), k};
}

std::optional<GridExchange> fit_on_grid(const std::vector<MeasuredRun>& runs, bool unit_stride_on_smaller)
{
  std::vector<Directions> seen;
  for (const MeasuredRun& r : runs) {
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    if (r.partners.size() != static_cast<std::size_t>(r.procs))
      return std::nullopt;
    auto d = split_on_grid(r, unit_stride_on_smaller);
    if (!d)
      return std::nullopt;
    seen.push_back(*d);
  }
  // a grid with one row is a chain: it cannot say how a 2-D code grows
  bool two_d = std::any_of(seen.begin(), seen.end(), [](const Directions& d) { return d.px > 1 && d.py > 1; });
  if (seen.size() < 2 || !two_d)
    return std::nullopt;
  GridExchange g;
  g.unit_stride_on_smaller = unit_stride_on_smaller;
  std::vector<std::pair<double, double>> x_sizes, y_sizes; // (extent of the other side, bytes per message)
  double x_runs = 0, y_runs = 0;
  for (const Directions& d : seen) {
    if (d.px > 1) {
      g.messages_x += d.messages_x / (2.0 * (d.px - 1) * d.py);
      x_sizes.emplace_back(d.py, d.bytes_x / d.messages_x);
      ++x_runs;
    }
    if (d.py > 1) {
      g.messages_y += d.messages_y / (2.0 * d.px * (d.py - 1));
      y_sizes.emplace_back(d.px, d.bytes_y / d.messages_y);
      ++y_runs;
    }
  }
  g.messages_x /= x_runs;
  g.messages_y /= y_runs;
  if (std::any_of(x_sizes.begin(), x_sizes.end(), [](auto& p) { return !(p.second > 0); }) ||
      std::any_of(y_sizes.begin(), y_sizes.end(), [](auto& p) { return !(p.second > 0); }))
    return std::nullopt;
  // a direction seen at one extent only borrows the other's exponent; with
  // neither known the size stays as measured (exponent 0)
  auto [cx, kx] = fit_size(x_sizes, -1);
  auto [cy, ky] = fit_size(y_sizes, kx >= 0 ? kx : -1);
  if (kx < 0)
    std::tie(cx, kx) = fit_size(x_sizes, ky >= 0 ? ky : 0.0);
  if (ky < 0)
    std::tie(cy, ky) = fit_size(y_sizes, kx);
  g.bytes_x = cx, g.exponent_x = kx, g.bytes_y = cy, g.exponent_y = ky;
  return g;
}

} // namespace

std::optional<GridExchange> find_grid_exchange(const std::vector<MeasuredRun>& runs)
{
  // MPI_Dims_create's orientation first; the other when only it fits
  if (auto g = fit_on_grid(runs, true))
    return g;
  return fit_on_grid(runs, false);
}

std::vector<SizeShare> size_mix(const std::vector<MeasuredRun>& runs)
{
  const MeasuredRun* largest = nullptr;
  for (const MeasuredRun& r : runs)
    if (!r.message_sizes.empty() && (largest == nullptr || r.procs > largest->procs))
      largest = &r;
  std::vector<SizeShare> mix;
  if (largest == nullptr)
    return mix;
  double messages = 0, bytes = 0;
  for (const SizeClass& c : largest->message_sizes)
    messages += c.messages, bytes += c.bytes;
  if (!(messages > 0) || !(bytes > 0))
    return mix;
  double mean = bytes / messages;
  for (const SizeClass& c : largest->message_sizes)
    if (c.messages > 0)
      mix.push_back({c.bytes / c.messages / mean, c.messages / messages});
  return mix;
}

std::pair<double, double> smpi_mixed_factors(const std::vector<SizeShare>& mix, double mean_bytes, double envelope)
{
  if (mix.empty())
    return {smpi_lat_factor(mean_bytes + envelope), 1 / smpi_bw_factor(mean_bytes + envelope)};
  // every message pays its own latency factor; every byte its own message's bandwidth factor
  double latency = 0, per_byte = 0, bytes = 0;
  for (const SizeShare& s : mix) {
    double size = s.relative_size * mean_bytes;
    latency += s.message_share * smpi_lat_factor(size + envelope);
    per_byte += s.message_share * s.relative_size / smpi_bw_factor(size + envelope);
    bytes += s.message_share * s.relative_size;
  }
  return {latency, bytes > 0 ? per_byte / bytes : 1 / smpi_bw_factor(envelope)};
}

} // namespace perfcast
