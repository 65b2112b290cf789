#include "qn/TrafficStructure.hpp"

#include "core/Statistics.hpp"
#include "net/SmpiFactors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>

namespace perfcast {

double setup_messages_limit(const MeasuredRun& run)
{
  std::vector<double> pairs;
  for (std::size_t rank = 0; rank < run.partners.size(); ++rank)
    for (const PartnerTraffic& p : run.partners[rank])
      if (p.messages > 0 && static_cast<std::size_t>(p.to) != rank)
        pairs.push_back(p.messages);
  return median(std::move(pairs)) / 10; // 0 when the run lists no pair
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

double busiest_receive_share(const std::vector<double>& received, double rest_bytes, double rest_root)
{
  double n = static_cast<double>(received.size());
  double total = rest_bytes;
  for (double b : received)
    total += b;
  if (!(total > 0) || n < 2)
    return 1 / std::max(n, 1.0);
  double root = std::clamp(rest_root, 1 / n, 1.0);
  double most = 0;
  for (std::size_t r = 0; r < received.size(); ++r)
    most = std::max(most, received[r] + rest_bytes * (r == 0 ? root : (1 - root) / (n - 1)));
  return std::clamp(most / total, 1 / n, 1.0);
}

std::optional<Curve> rest_hot_receive_curve(const std::vector<std::pair<int, std::vector<double>>>& runs)
{
  std::vector<double> hot_n, hot;
  for (const auto& [procs, rest] : runs) {
    double total = 0, most = 0;
    for (double b : rest) {
      total += std::max(b, 0.0);
      most = std::max(most, b);
    }
    if (total > 0) {
      hot_n.push_back(procs);
      hot.push_back(most / total);
    }
  }
  if (hot.empty() || hot.size() != runs.size())
    return std::nullopt;
  auto bounded = [](const Curve& c) { return c.form != CurveForm::Power || c.b <= 0; };
  return choose_curve(hot_n, hot, {CurveForm::Constant, CurveForm::Inverse, CurveForm::Power}, CurveForm::Constant,
                      true, 1, {}, bounded)
      .curve;
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
