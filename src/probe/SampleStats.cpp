#include "probe/SampleStats.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace perfcast::probe {

double Estimate::relative_half_width() const
{
  return mean != 0 ? (ci_high - mean) / std::fabs(mean) : std::numeric_limits<double>::infinity();
}

Estimate summarize(const std::vector<double>& samples)
{
  Estimate e;
  e.n = static_cast<long>(samples.size());
  e.samples = samples;
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

std::vector<std::vector<Estimate>> measure_interleaved(const StoppingRule& rule, const std::vector<SampleGroup>& groups,
                                                       const RoundLimits& limits, const RoundProgress& progress)
{
  auto steady = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  auto clock = limits.clock ? limits.clock : std::function<double()>(steady);
  std::vector<std::vector<std::vector<double>>> samples(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].ruled.size() != groups[g].names.size())
      throw std::logic_error("measure_interleaved: a group's ruled flags do not match its names");
    samples[g].resize(groups[g].names.size());
  }
  double t0 = clock();
  for (long round = 1;; ++round) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::vector<double> values = groups[g].sample();
      if (values.size() != groups[g].names.size())
        throw std::logic_error("measure_interleaved: a group returned the wrong number of samples");
      for (std::size_t f = 0; f < values.size(); ++f)
        samples[g][f].push_back(values[f]);
    }
    bool tight = true;
    double widest = -1;
    std::string widest_name;
    Estimate widest_estimate;
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (std::size_t f = 0; f < samples[g].size(); ++f) {
        if (!groups[g].ruled[f])
          continue;
        tight = tight && enough_samples(samples[g][f], rule);
        Estimate e = summarize(samples[g][f]);
        double width = e.n > 1 ? e.relative_half_width() : std::numeric_limits<double>::infinity();
        if (width > widest) {
          widest = width;
          widest_name = groups[g].names[f];
          widest_estimate = e;
        }
      }
    if (progress)
      progress(round, widest_name, widest_estimate);
    if (round >= rule.max_samples || (tight && clock() - t0 >= limits.min_seconds))
      break;
  }
  std::vector<std::vector<Estimate>> out(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const std::vector<double>& figure : samples[g]) {
      Estimate e = summarize(figure);
      e.converged = e.n >= 2 && e.n >= required_samples(e.mean, e.sd, rule.relative_error);
      out[g].push_back(e);
    }
  return out;
}

} // namespace perfcast::probe
