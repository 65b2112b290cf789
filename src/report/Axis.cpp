#include "report/Axis.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

double nice_step(double span, int target_count)
{
  if (!(span > 0) || !std::isfinite(span) || target_count < 1)
    return 1;
  // of 1, 2, 5 and 10 times the decade below span / target_count, the step
  // whose tick count is nearest to target_count (the larger one on a tie)
  double decade = std::pow(10.0, std::floor(std::log10(span / target_count)));
  double best = decade, best_miss = INFINITY;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    double miss = std::fabs(span / (m * decade) - target_count);
    if (miss <= best_miss) {
      best = m * decade;
      best_miss = miss;
    }
  }
  return best;
}

std::vector<double> nice_ticks(double lo, double hi, int target_count)
{
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
    return ticks;
  double step = nice_step(hi - lo, target_count);
  // tolerate rounding of a multiple that sits on an end
  double slack = step * 1e-9;
  auto first = static_cast<long long>(std::ceil((lo - slack) / step));
  auto last = static_cast<long long>(std::floor((hi + slack) / step));
  for (long long i = first; i <= last; ++i) {
    double t = static_cast<double>(i) * step;
    ticks.push_back(i == 0 ? 0.0 : std::clamp(t, lo, hi));
  }
  return ticks;
}

std::vector<double> covering_ticks(double value, int target_count)
{
  if (!(value > 0) || !std::isfinite(value))
    value = 1;
  double step = nice_step(value, target_count);
  auto last = static_cast<long long>(std::ceil(value / step * (1 - 1e-12)));
  std::vector<double> ticks;
  for (long long i = 0; i <= std::max(last, 1LL); ++i)
    ticks.push_back(static_cast<double>(i) * step);
  return ticks;
}

std::string format_tick(double value, double step)
{
  int decimals = step > 0 ? std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))) : 0;
  // a step of 2.5e-3 after scaling still needs one more digit than its decade
  double scaled = step * std::pow(10.0, decimals);
  if (std::fabs(scaled - std::round(scaled)) > 1e-6 * scaled)
    ++decimals;
  std::string s = fmt::format("{:.{}f}", value, decimals);
  return s == "-0" ? "0" : s;
}

TimeUnit time_unit_for(double seconds)
{
  if (seconds >= 1)
    return {1, "s"};
  if (seconds >= 1e-3)
    return {1e3, "ms"};
  return {1e6, "us"};
}

} // namespace perfcast
