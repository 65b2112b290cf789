#pragma once
// Repeating a measurement until its mean is known well enough: the stopping
// rule of de Mello and Senger's benchmark suite (../shared/papers/
// unimpp-schedsim-mello-senger.txt, section 3), the central-limit sample size
//   n = (z s / (e mean))^2
// for a 95% interval of half-width e times the mean (z = 1.96), bounded below
// and above by a minimum and a maximum count.
#include <functional>
#include <string>
#include <vector>

namespace perfcast::probe {

/// z of a two-sided 95% normal interval.
inline constexpr double kZ95 = 1.959963984540054;

/// Mean, standard deviation, count and 95% interval of a set of samples.
struct Estimate {
  double mean = 0;
  double sd = 0;      ///< sample standard deviation (n - 1)
  long n = 0;
  double ci_low = 0;  ///< mean - z sd / sqrt(n)
  double ci_high = 0;
  bool converged = false; ///< n reached the central-limit size before the maximum count
  std::vector<double> samples; ///< the samples in the order taken (a drift within the run shows there)
  /// Half-width of the interval relative to the mean.
  double relative_half_width() const;
};

/// When to stop repeating.
struct StoppingRule {
  double relative_error = 0.02; ///< e: wanted half-width of the 95% interval over the mean
  long min_samples = 5;
  long max_samples = 200;
};

/// Mean, deviation and interval of samples (converged is left false).
Estimate summarize(const std::vector<double>& samples);

/// The central-limit sample size ceil((z sd / (e mean))^2), at least 1.
long required_samples(double mean, double sd, double relative_error, double z = kZ95);

/// True when the samples taken so far satisfy the rule (or reached its maximum).
bool enough_samples(const std::vector<double>& samples, const StoppingRule& rule);

/// Calls `sample` until the rule is satisfied; `progress` (may be empty) is told
/// the count and the estimate so far after each sample.
Estimate measure_until_tight(const StoppingRule& rule, const std::function<double()>& sample,
                             const std::function<void(const Estimate&)>& progress = {});

/// Figures measured together: one call of `sample` returns one sample of each, in `names`' order.
struct SampleGroup {
  std::vector<std::string> names;
  std::vector<bool> ruled; ///< whether the stopping rule waits for each figure (the others are only reported)
  std::function<std::vector<double>()> sample;
};

/// When to stop the interleaved rounds, besides the rule.
struct RoundLimits {
  double min_seconds = 0;           ///< keep sampling at least this long (by `clock`)
  std::function<double()> clock;    ///< seconds; empty means the steady clock
};

/// Told the round and the ruled figure whose interval is widest relative to its mean.
using RoundProgress = std::function<void(long round, const std::string& widest, const Estimate& so_far)>;

/// Samples every group in turn, one sample of each figure per round, until
/// every ruled figure meets the rule and `limits.min_seconds` have passed, or
/// the rule's maximum count of rounds: every figure's samples spread over the
/// whole run, so its interval covers what the machine did during the run, not
/// during a fraction of a second. Returns the estimates group by group.
std::vector<std::vector<Estimate>> measure_interleaved(const StoppingRule& rule, const std::vector<SampleGroup>& groups,
                                                       const RoundLimits& limits = {},
                                                       const RoundProgress& progress = {});

} // namespace perfcast::probe
