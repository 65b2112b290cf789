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

const MeasuredRun* largest_sized_run(const std::vector<MeasuredRun>& runs)
{
  const MeasuredRun* largest = nullptr;
  for (const MeasuredRun& r : runs)
    if (!r.message_sizes.empty() && (largest == nullptr || r.procs > largest->procs))
      largest = &r;
  return largest;
}

std::vector<SizeShare> relative_mix(const std::vector<GridTraffic>& classes)
{
  double messages = 0, bytes = 0;
  for (const GridTraffic& c : classes)
    messages += c.messages, bytes += c.bytes;
  std::vector<SizeShare> mix;
  if (!(messages > 0) || !(bytes > 0))
    return mix;
  double mean = bytes / messages;
  for (const GridTraffic& c : classes)
    if (c.messages > 0)
      mix.push_back({c.bytes / c.messages / mean, c.messages / messages});
  return mix;
}

std::vector<SizeShare> size_mix(const std::vector<MeasuredRun>& runs)
{
  const MeasuredRun* largest = largest_sized_run(runs);
  return largest == nullptr ? std::vector<SizeShare>{} : size_mix_beside(*largest, {});
}

std::vector<SizeShare> size_mix_beside(const MeasuredRun& run, const std::vector<GridTraffic>& carried)
{
  std::vector<GridTraffic> left;
  for (const SizeClass& c : run.message_sizes)
    left.push_back({c.messages, c.bytes});
  for (const GridTraffic& k : carried) {
    if (!(k.messages > 0))
      continue;
    double size = k.bytes / k.messages;
    // the class that starts last at or below the size (a mean may fall between two classes' integer bounds)
    std::size_t at = left.size();
    for (std::size_t i = 0; i < run.message_sizes.size(); ++i) {
      double low = run.message_sizes[i].min_bytes;
      if (low <= size && (at == left.size() || low >= run.message_sizes[at].min_bytes))
        at = i;
    }
    if (at == left.size())
      continue; // smaller than every class: nothing to take it from
    left[at].messages = std::max(0.0, left[at].messages - k.messages);
    left[at].bytes = std::max(0.0, left[at].bytes - k.bytes);
  }
  // a class emptied of its messages (to within rounding of the classes' sums) is gone, its bytes with it
  double all = 0;
  for (const SizeClass& c : run.message_sizes)
    all += c.messages;
  for (GridTraffic& c : left)
    if (c.messages <= 1e-9 * all)
      c = {};
  return relative_mix(left);
}

std::vector<SizeAt> sizes_at_mean(const std::vector<SizeShare>& mix, double mean_bytes)
{
  if (mix.empty())
    return {{mean_bytes, 1}};
  std::vector<SizeAt> sizes;
  for (const SizeShare& s : mix)
    sizes.push_back({s.relative_size * mean_bytes, s.message_share});
  return sizes;
}

std::pair<double, double> smpi_mixed_factors(const std::vector<SizeAt>& sizes, double envelope)
{
  // every message pays its own latency factor; every byte its own message's bandwidth factor
  double latency = 0, per_byte = 0, bytes = 0, messages = 0;
  for (const SizeAt& s : sizes) {
    if (!(s.messages > 0))
      continue;
    latency += s.messages * smpi_lat_factor(s.bytes + envelope);
    per_byte += s.messages * s.bytes / smpi_bw_factor(s.bytes + envelope);
    bytes += s.messages * s.bytes;
    messages += s.messages;
  }
  if (!(messages > 0))
    return {smpi_lat_factor(envelope), 1 / smpi_bw_factor(envelope)};
  return {latency / messages, bytes > 0 ? per_byte / bytes : 1 / smpi_bw_factor(envelope)};
}

} // namespace perfcast
