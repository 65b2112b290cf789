#include "probe/SampleStats.hpp"

#include <cmath>
#include <limits>

namespace perfcast::probe {

double Estimate::relative_half_width() const
{
  return mean != 0 ? (ci_high - mean) / std::fabs(mean) : std::numeric_limits<double>::infinity();
}

Estimate summarize(const std::vector<double>& samples)
{
  Estimate e;
  e.n = static_cast<long>(samples.size());
  if (samples.empty())
    return e;
  double sum = 0;
  for (double x : samples)
    sum += x;
  e.mean = sum / static_cast<double>(e.n);
  double squares = 0;
  for (double x : samples)
    squares += (x - e.mean) * (x - e.mean);
  e.sd = e.n > 1 ? std::sqrt(squares / static_cast<double>(e.n - 1)) : 0.0;
  double half = kZ95 * e.sd / std::sqrt(static_cast<double>(e.n));
  e.ci_low = e.mean - half;
  e.ci_high = e.mean + half;
  return e;
}

long required_samples(double mean, double sd, double relative_error, double z)
{
  if (mean == 0)
    return std::numeric_limits<long>::max();
  double n = std::pow(z * sd / (relative_error * std::fabs(mean)), 2);
  if (!(n < 1e15))
    return std::numeric_limits<long>::max();
  return std::max(1L, static_cast<long>(std::ceil(n - 1e-9)));
}

bool enough_samples(const std::vector<double>& samples, const StoppingRule& rule)
{
  long n = static_cast<long>(samples.size());
  if (n >= rule.max_samples)
    return true;
  if (n < rule.min_samples || n < 2)
    return false;
  Estimate e = summarize(samples);
  return n >= required_samples(e.mean, e.sd, rule.relative_error);
}

Estimate measure_until_tight(const StoppingRule& rule, const std::function<double()>& sample,
                             const std::function<void(const Estimate&)>& progress)
{
  std::vector<double> samples;
  do {
    samples.push_back(sample());
    if (progress)
      progress(summarize(samples));
  } while (!enough_samples(samples, rule));
  Estimate e = summarize(samples);
  e.converged = e.n >= 2 && e.n >= required_samples(e.mean, e.sd, rule.relative_error);
  return e;
}

} // namespace perfcast::probe
