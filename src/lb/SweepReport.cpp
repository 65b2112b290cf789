#include "lb/SweepReport.hpp"

#include "report/PlotSvg.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>

namespace perfcast::lb {

namespace {

const char* kColours[] = {"#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d"};

std::string describe(const SweepResult& r)
{
  if (r.config.period == 0)
    return fmt::format("{} VPs on {} cores, no balancing", r.vps, r.config.cores);
  return fmt::format("{} VPs on {} cores, {} every {} migration points", r.vps, r.config.cores, r.config.balancer,
                     r.config.period);
}

// One line per balancer of the rows `keep` accepts, x from `x_of`; plus the reference as a flat line.
std::vector<PlotSeries> series_by_balancer(const std::vector<SweepResult>& results,
                                           const std::function<bool(const SweepResult&)>& keep,
                                           const std::function<double(const SweepResult&)>& x_of)
{
  std::vector<PlotSeries> series;
  std::map<std::string, std::size_t> index;
  PlotSeries reference{"no balancing", "#2c3e50", {}};
  for (const SweepResult& r : results) {
    if (!keep(r))
      continue;
    if (r.config.period == 0)
      continue;
    auto [it, added] = index.emplace(r.config.balancer, series.size());
    if (added)
      series.push_back({r.config.balancer, kColours[series.size() % std::size(kColours)], {}});
    series[it->second].points.emplace_back(x_of(r), r.makespan_s);
  }
  for (const PlotSeries& s : series)
    for (const auto& [x, y] : s.points) {
      for (const SweepResult& r : results)
        if (keep(r) && r.config.balancer == s.name && x_of(r) == x)
          if (std::find_if(reference.points.begin(), reference.points.end(),
                           [x = x](const auto& p) { return p.first == x; }) == reference.points.end())
            reference.points.emplace_back(x, r.reference_s);
    }
  std::sort(reference.points.begin(), reference.points.end());
  for (PlotSeries& s : series)
    std::sort(s.points.begin(), s.points.end());
  series.insert(series.begin(), reference);
  return series;
}

} // namespace

std::string format_sweep(const std::vector<SweepResult>& results)
{
  std::string out = fmt::format("{:>6} {:>6} {:<28} {:>7} {:>14} {:>8} {:>10} {:>14} {:>13}\n", "vps", "cores",
                                "balancer", "period", "makespan_s", "speedup", "migrations", "bytes_moved",
                                "balancing_s");
  for (const SweepResult& r : results)
    out += fmt::format("{:>6} {:>6} {:<28} {:>7} {:14.6f} {:8.3f} {:>10} {:>14} {:13.6f}\n", r.vps, r.config.cores,
                       r.config.period == 0 ? "(no balancing)" : r.config.balancer, r.config.period, r.makespan_s,
                       r.makespan_s > 0 ? r.reference_s / r.makespan_s : 0.0, r.migrations, r.bytes, r.balancing_s);
  if (!results.empty()) {
    const SweepResult& best = results[best_result(results)];
    out += fmt::format("\nbest: {}: {:.6f} s (speedup {:.3f} over no balancing)\n", describe(best), best.makespan_s,
                       best.makespan_s > 0 ? best.reference_s / best.makespan_s : 0.0);
  }
  return out;
}

nlohmann::json sweep_json(const std::vector<SweepResult>& results)
{
  nlohmann::json rows = nlohmann::json::array();
  for (const SweepResult& r : results)
    rows.push_back({{"vps", r.vps},
                    {"level", r.config.level},
                    {"cores", r.config.cores},
                    {"balancer", r.config.period == 0 ? "none" : r.config.balancer},
                    {"period", r.config.period},
                    {"makespan_s", r.makespan_s},
                    {"makespan_without_balancing_s", r.reference_s},
                    {"balancing_steps", r.steps},
                    {"migrations", r.migrations},
                    {"bytes_migrated", r.bytes},
                    {"balancing_s", r.balancing_s}});
  nlohmann::json j;
  j["configurations"] = rows;
  if (!results.empty())
    j["best"] = best_result(results);
  return j;
}

std::string sweep_periods_svg(const std::vector<SweepResult>& results, const std::string& subtitle)
{
  const SweepResult& best = results[best_result(results)];
  auto keep = [&](const SweepResult& r) { return r.config.level == best.config.level && r.config.cores == best.config.cores; };
  LineChart chart;
  chart.title = fmt::format("Makespan against the balancing period ({} VPs on {} cores)", best.vps, best.config.cores);
  chart.subtitle = subtitle;
  chart.x_label = "balancing period (migration points)";
  chart.y_label = "makespan (s)";
  return line_chart_svg(chart, series_by_balancer(results, keep, [](const SweepResult& r) {
                          return static_cast<double>(r.config.period);
                        }));
}

std::string sweep_levels_svg(const std::vector<SweepResult>& results, const std::string& subtitle)
{
  const SweepResult& best = results[best_result(results)];
  int period = best.config.period;
  if (period == 0) // the best is no balancing: show the first period swept
    for (const SweepResult& r : results)
      if (r.config.period > 0) {
        period = r.config.period;
        break;
      }
  auto keep = [&](const SweepResult& r) { return r.config.cores == best.config.cores && r.config.period == period; };
  LineChart chart;
  chart.title = fmt::format("Makespan against over-decomposition (period {}, {} cores)", period, best.config.cores);
  chart.subtitle = subtitle;
  chart.x_label = "VPs";
  chart.y_label = "makespan (s)";
  chart.log2_x = true;
  return line_chart_svg(chart, series_by_balancer(results, keep, [](const SweepResult& r) {
                          return static_cast<double>(r.vps);
                        }));
}

} // namespace perfcast::lb
