#include "qn/SelfTraffic.hpp"

#include "core/Error.hpp"
#include "fit/Curve.hpp"

#include <cmath>
#include <fmt/format.h>

namespace perfcast {

GridTraffic SelfTraffic::at(double procs) const
{
  double n = std::max(procs, 1.0);
  GridTraffic t;
  t.messages = t.self_messages = n * messages * std::pow(n, messages_exponent);
  t.bytes = t.self_bytes = n * bytes * std::pow(n, bytes_exponent);
  return t;
}

std::vector<SizeAt> SelfTraffic::sizes_at(double procs) const { return sizes_of(at(procs)); }

std::vector<SizeAt> SelfTraffic::sizes_of(const GridTraffic& t) const
{
  std::vector<SizeAt> sizes;
  if (!(t.messages > 0))
    return sizes;
  for (const SizeAt& s : sizes_at_mean(mix, t.bytes / t.messages))
    sizes.push_back({s.bytes, s.messages * t.messages});
  return sizes;
}

std::string SelfTraffic::describe() const
{
  return fmt::format("{:.4g} n^{:.2f} messages and {:.4g} n^{:.2f} bytes a rank to itself", messages,
                     messages_exponent, bytes, bytes_exponent);
}

SelfTrafficOfRun self_traffic_of(const MeasuredRun& run)
{
  SelfTrafficOfRun t;
  t.received.assign(static_cast<std::size_t>(std::max(run.procs, 0)), 0.0);
  for (std::size_t r = 0; r < run.partners.size() && r < t.received.size(); ++r)
    for (const PartnerTraffic& p : run.partners[r]) {
      if (p.to != static_cast<int>(r) || !(p.messages > 0))
        continue;
      t.total.messages += p.messages, t.total.bytes += p.bytes;
      t.received[r] += p.bytes;
      t.sized = t.sized && !p.sizes.empty();
      for (const SizeClass& k : p.sizes) {
        GridTraffic& s = t.sizes[k.min_bytes];
        s.messages += k.messages, s.bytes += k.bytes;
      }
    }
  t.total.self_messages = t.total.messages, t.total.self_bytes = t.total.bytes;
  return t;
}

std::optional<SelfTraffic> fit_self_traffic(const std::vector<MeasuredRun>& runs)
{
  std::vector<std::pair<double, double>> messages, bytes;
  SelfTraffic t;
  int largest = 0;
  for (const MeasuredRun& r : runs) {
    if (r.procs < 1 || r.partners.size() != static_cast<std::size_t>(r.procs))
      continue;
    SelfTrafficOfRun c = self_traffic_of(r);
    if (!(c.total.messages > 0) || !(c.total.bytes > 0))
      return std::nullopt; // in some runs only (or empty messages): no curve can follow it
    messages.emplace_back(r.procs, c.total.messages / r.procs);
    bytes.emplace_back(r.procs, c.total.bytes / r.procs);
    t.seen_at.push_back(r.procs);
    if (r.procs >= largest) {
      largest = r.procs;
      std::vector<GridTraffic> sizes;
      for (const auto& [low, k] : c.sizes)
        sizes.push_back(k);
      t.mix = c.sized ? relative_mix(sizes) : std::vector<SizeShare>{};
    }
  }
  if (messages.empty())
    return std::nullopt;
  PowerFit m = fit_power(messages, -2, 0, 0), b = fit_power(bytes, -2, 0, 0);
  t.messages = m.c, t.messages_exponent = m.k;
  t.bytes = b.c, t.bytes_exponent = b.k;
  return t;
}

void to_json(nlohmann::json& j, const SelfTraffic& t)
{
  nlohmann::json mix = nlohmann::json::array();
  for (const SizeShare& s : t.mix)
    mix.push_back({{"relative_size", s.relative_size}, {"message_share", s.message_share}});
  j = {{"messages_per_rank", t.messages}, {"messages_exponent", t.messages_exponent},
       {"bytes_per_rank", t.bytes},       {"bytes_exponent", t.bytes_exponent},
       {"size_mix", mix},                 {"seen_at", t.seen_at}};
}

void from_json(const nlohmann::json& j, SelfTraffic& t)
{
  t.messages = j.at("messages_per_rank").get<double>();
  t.messages_exponent = j.at("messages_exponent").get<double>();
  t.bytes = j.at("bytes_per_rank").get<double>();
  t.bytes_exponent = j.at("bytes_exponent").get<double>();
  if (!(t.messages > 0) || !(t.bytes >= 0) || t.messages_exponent < -2 || t.messages_exponent > 0 ||
      t.bytes_exponent < -2 || t.bytes_exponent > 0)
    throw Error("self_traffic: expected messages_per_rank > 0, bytes_per_rank >= 0 and exponents within [-2, 0]");
  t.mix.clear();
  for (const auto& s : j.value("size_mix", nlohmann::json::array()))
    t.mix.push_back({s.at("relative_size").get<double>(), s.at("message_share").get<double>()});
  t.seen_at = j.value("seen_at", std::vector<int>{});
}

} // namespace perfcast
