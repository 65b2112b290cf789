#include "core/Distribution.hpp"

#include "core/Error.hpp"
#include "core/NamedSpec.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace perfcast {
namespace {

struct KindInfo {
  DistributionKind kind;
  std::vector<std::string> keys;
  const char* meaning;
};

const std::map<std::string, KindInfo>& kinds()
{
  static const std::map<std::string, KindInfo> table{
      {"exp", {DistributionKind::Exponential, {"mean"}, "exponential with the given mean (> 0)"}},
      {"hyperexp",
       {DistributionKind::Hyperexponential, {"p", "mean1", "mean2"},
        "exponential of mean1 with probability p (0..1), else of mean2"}},
      {"weibull", {DistributionKind::Weibull, {"shape", "scale"}, "Weibull, shape k > 0 and scale lambda > 0"}},
      {"lognormal", {DistributionKind::Lognormal, {"mu", "sigma"}, "exp of a normal of mean mu, deviation sigma >= 0"}},
      {"uniform", {DistributionKind::Uniform, {"min", "max"}, "uniform on [min, max], min <= max"}},
      {"fixed", {DistributionKind::Fixed, {"value"}, "always value"}}};
  return table;
}

std::string keys_of(const KindInfo& info)
{
  std::string s;
  for (const auto& k : info.keys)
    s += (s.empty() ? "" : ",") + k + "=...";
  return s;
}

} // namespace

double Rng::uniform01()
{
  // 53 random bits, shifted by half a step so that 0 and 1 never come out
  return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53;
}

double Rng::normal01()
{
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double r = std::sqrt(-2 * std::log(uniform01())), a = 2 * M_PI * uniform01();
  spare_ = r * std::sin(a);
  has_spare_ = true;
  return r * std::cos(a);
}

Distribution Distribution::parse(const std::string& spec)
{
  NamedSpec parsed = parse_named_spec(spec, "distribution");
  const std::string& name = parsed.name;
  auto it = kinds().find(name);
  if (it == kinds().end()) {
    std::vector<std::string> names;
    for (const auto& entry : kinds())
      names.push_back(entry.first);
    throw Error(fmt::format("distribution '{}': unknown kind '{}' (expected one of: {})", spec, name,
                            join_names(names)));
  }
  const KindInfo& info = it->second;
  Distribution d;
  d.kind_ = info.kind;
  d.spec_ = spec;
  d.p_.assign(info.keys.size(), std::nan(""));
  for (const auto& [key, value] : parsed.values) {
    auto k = std::find(info.keys.begin(), info.keys.end(), key);
    if (k == info.keys.end())
      throw Error(fmt::format("distribution '{}': '{}' is not a parameter of {} (expected {}:{})", spec, key, name,
                              name, keys_of(info)));
    d.p_[static_cast<std::size_t>(k - info.keys.begin())] = value;
  }
  for (std::size_t k = 0; k < info.keys.size(); ++k)
    if (std::isnan(d.p_[k]))
      throw Error(fmt::format("distribution '{}': missing {} (expected {}:{})", spec, info.keys[k], name,
                              keys_of(info)));
  const auto& p = d.p_;
  bool valid = true;
  switch (d.kind_) {
  case DistributionKind::Exponential: valid = p[0] > 0; break;
  case DistributionKind::Hyperexponential: valid = p[0] >= 0 && p[0] <= 1 && p[1] > 0 && p[2] > 0; break;
  case DistributionKind::Weibull: valid = p[0] > 0 && p[1] > 0; break;
  case DistributionKind::Lognormal: valid = p[1] >= 0; break;
  case DistributionKind::Uniform: valid = p[0] <= p[1]; break;
  case DistributionKind::Fixed: break;
  }
  if (!valid)
    throw Error(fmt::format("distribution '{}': invalid parameters (expected {})", spec, info.meaning));
  return d;
}

double Distribution::sample(Rng& rng) const
{
  const auto& p = p_;
  switch (kind_) {
  case DistributionKind::Exponential: return -p[0] * std::log(rng.uniform01());
  case DistributionKind::Hyperexponential: {
    double mean = rng.uniform01() < p[0] ? p[1] : p[2];
    return -mean * std::log(rng.uniform01());
  }
  case DistributionKind::Weibull: return p[1] * std::pow(-std::log(rng.uniform01()), 1 / p[0]);
  case DistributionKind::Lognormal: return std::exp(p[0] + p[1] * rng.normal01());
  case DistributionKind::Uniform: return p[0] + (p[1] - p[0]) * rng.uniform01();
  case DistributionKind::Fixed: return p[0];
  }
  return p[0];
}

double Distribution::mean() const
{
  const auto& p = p_;
  switch (kind_) {
  case DistributionKind::Exponential: return p[0];
  case DistributionKind::Hyperexponential: return p[0] * p[1] + (1 - p[0]) * p[2];
  case DistributionKind::Weibull: return p[1] * std::tgamma(1 + 1 / p[0]);
  case DistributionKind::Lognormal: return std::exp(p[0] + p[1] * p[1] / 2);
  case DistributionKind::Uniform: return (p[0] + p[1]) / 2;
  case DistributionKind::Fixed: return p[0];
  }
  return p[0];
}

std::vector<std::string> describe_distributions()
{
  std::vector<std::string> rows;
  for (const auto& [name, info] : kinds())
    rows.push_back(fmt::format("{}:{}  {}", name, keys_of(info), info.meaning));
  return rows;
}

} // namespace perfcast
