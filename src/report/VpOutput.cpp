#include "report/VpOutput.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

namespace {

std::vector<double> core_compute(const VpReport& r)
{
  std::vector<double> total(r.core_host.size(), 0.0);
  for (const auto& iteration : r.iteration_loads)
    for (std::size_t c = 0; c < iteration.size(); ++c)
      total[c] += iteration[c];
  return total;
}

} // namespace

std::string format_vp_comparison(const VpReport& balanced, const VpReport& unbalanced, const Platform& platform,
                                 const VpRunLabels& labels)
{
  std::size_t vps = balanced.replay.ranks.size(), cores = balanced.core_host.size();
  std::string out = fmt::format("{} VPs on {} cores ({} mapping), balancer {} every {} migration points\n\n", vps,
                                cores, labels.mapping, labels.balancer, labels.period);
  double with = balanced.replay.makespan_s, without = unbalanced.replay.makespan_s;
  out += fmt::format("makespan without balancing: {:12.6f} s\n", without);
  out += fmt::format("makespan with balancing:    {:12.6f} s   (speedup {:.3f})\n", with,
                     with > 0 ? without / with : 0.0);
  out += fmt::format("balancing steps: {}, migrations: {} ({} bytes), time in balancing steps: {:.6f} s\n\n",
                     balanced.steps.size(), balanced.migrations(), balanced.bytes_migrated(), balanced.balancing_s());
  auto before = core_compute(unbalanced), after = core_compute(balanced);
  out += fmt::format("{:>5} {:<20} {:>16} {:>16} {:>9} {:>9}\n", "core", "host", "compute_s_none", "compute_s_lb",
                     "vps_start", "vps_end");
  for (std::size_t c = 0; c < cores; ++c) {
    auto count = [c](const std::vector<int>& map) { return std::count(map.begin(), map.end(), static_cast<int>(c)); };
    std::vector<int> start = unbalanced.final_core; // nothing moves without balancing
    out += fmt::format("{:>5} {:<20} {:16.6f} {:16.6f} {:>9} {:>9}\n", c,
                       platform.hosts()[static_cast<std::size_t>(balanced.core_host[c])].name, before[c], after[c],
                       count(start), count(balanced.final_core));
  }
  return out;
}

nlohmann::json vp_comparison_json(const VpReport& balanced, const VpReport& unbalanced, const Platform& platform,
                                  const VpRunLabels& labels)
{
  nlohmann::json j;
  j["trace"] = labels.trace;
  j["vps"] = balanced.replay.ranks.size();
  j["cores"] = balanced.core_host.size();
  j["mapping"] = labels.mapping;
  j["balancer"] = labels.balancer;
  j["period"] = labels.period;
  j["makespan_s"] = balanced.replay.makespan_s;
  j["makespan_without_balancing_s"] = unbalanced.replay.makespan_s;
  j["balancing_steps"] = balanced.steps.size();
  j["migrations"] = balanced.migrations();
  j["bytes_migrated"] = balanced.bytes_migrated();
  j["balancing_s"] = balanced.balancing_s();
  nlohmann::json steps = nlohmann::json::array();
  for (const BalanceStep& s : balanced.steps)
    steps.push_back({{"start_s", s.start_s},
                     {"end_s", s.end_s},
                     {"migrations", s.migrations},
                     {"bytes", s.bytes},
                     {"max_avg_load_before", s.max_avg_load}});
  j["steps"] = steps;
  nlohmann::json core_list = nlohmann::json::array();
  auto before = core_compute(unbalanced), after = core_compute(balanced);
  for (std::size_t c = 0; c < balanced.core_host.size(); ++c)
    core_list.push_back({{"core", c},
                         {"host", platform.hosts()[static_cast<std::size_t>(balanced.core_host[c])].name},
                         {"compute_without_balancing_s", before[c]},
                         {"compute_s", after[c]}});
  j["core_list"] = core_list;
  j["final_core"] = balanced.final_core;
  j["iteration_loads_s"] = balanced.iteration_loads;
  j["iteration_loads_without_balancing_s"] = unbalanced.iteration_loads;
  return j;
}

std::vector<std::pair<double, double>> average_load_curve(const VpReport& report)
{
  std::vector<std::pair<double, double>> points;
  const Timeline& t = report.core_timeline;
  double makespan = report.replay.makespan_s;
  if (!t.enabled() || makespan <= 0)
    return points;
  // merge the timeline's bins in groups so that about 100 points cover the run
  double width = t.bin_width_s();
  std::size_t used = std::min(t.bins(), static_cast<std::size_t>(std::ceil(makespan / width)));
  std::size_t group = std::max<std::size_t>(1, used / 100);
  for (std::size_t b = 0; b < used; b += group) {
    double start = width * static_cast<double>(b);
    double span = std::min(width * static_cast<double>(group), makespan - start);
    double busy = 0;
    for (std::size_t k = b; k < std::min(used, b + group); ++k)
      for (std::size_t row = 0; row < t.rows(); ++row)
        busy += t.cell(row, k)[static_cast<std::size_t>(SpanKind::Compute)];
    if (span > 0)
      points.emplace_back(start + span / 2, busy / (span * static_cast<double>(t.ranks())));
  }
  return points;
}

} // namespace perfcast
