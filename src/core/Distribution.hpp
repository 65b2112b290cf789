#pragma once
// Named, seeded probability distributions for generated workloads (arrivals,
// demands): exponential, hyperexponential, Weibull, lognormal, uniform and
// fixed. Samples come from perfcast's own inverse transforms over
// std::mt19937_64 (whose output the C++ standard fixes), so a seed gives the
// same numbers with any compiler or standard library.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace perfcast {

/// The random stream of a simulation; pass it explicitly, seed it once.
class Rng {
public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in the open interval (0, 1).
  double uniform01();
  /// Standard normal (Box-Muller, both values used).
  double normal01();

private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

enum class DistributionKind { Exponential, Hyperexponential, Weibull, Lognormal, Uniform, Fixed };

/// A distribution and its parameters, written NAME:key=value,... such as
/// "exp:mean=2", "hyperexp:p=0.2,mean1=1,mean2=20", "weibull:shape=1.5,scale=3",
/// "lognormal:mu=0,sigma=0.5", "uniform:min=1,max=3" or "fixed:value=4".
class Distribution {
public:
  /// Parses a spec; throws Error naming the spec and what was expected.
  static Distribution parse(const std::string& spec);
  double sample(Rng& rng) const;
  double mean() const;
  DistributionKind kind() const { return kind_; }
  const std::string& spec() const { return spec_; }

private:
  DistributionKind kind_ = DistributionKind::Fixed;
  std::vector<double> p_; // parameters in the order of the kind's keys
  std::string spec_;
};

/// One line per distribution: its spec form and what it means (for perfcast list).
std::vector<std::string> describe_distributions();

} // namespace perfcast
