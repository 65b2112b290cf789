#include "lb/BalancerSpec.hpp"

#include "core/Error.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace perfcast::lb {

namespace {

const char* const kOld = "6.x (commit 57ea1f2, before 7.0 removed it)";

std::string names_list()
{
  std::string out;
  for (const BalancerInfo& b : balancer_registry())
    out += (out.empty() ? "" : ", ") + b.name;
  return out;
}

std::string keys_list(const BalancerInfo& b)
{
  if (b.params.empty())
    return "none";
  std::string out;
  for (const BalancerParam& p : b.params)
    out += (out.empty() ? "" : ", ") + p.key;
  return out;
}

double parse_tolerance(std::string_view spec, std::string_view value)
{
  double v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(v) || v < 1.0)
    throw Error(fmt::format("balancer '{}': tolerance '{}' is not a number >= 1", spec, value));
  return v;
}

std::uint64_t parse_seed(std::string_view spec, std::string_view value)
{
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc{} || end != value.data() + value.size())
    throw Error(fmt::format("balancer '{}': seed '{}' is not an unsigned integer", spec, value));
  return v;
}

} // namespace

const std::vector<BalancerInfo>& balancer_registry()
{
  static const std::vector<BalancerInfo> registry = {
      {"greedy", BalancerKind::Greedy, "7.x Greedy (src/ck-ldb/greedy.h); 6.x GreedyLB.C is the same in double",
       "heaviest object first onto the least-loaded PE", {}},
      {"refine", BalancerKind::Refine, "7.x RefineA (src/ck-ldb/refine.h), what RefineLB means since 7.0",
       "binary search on a max-load threshold from greedy's max load, moves from PEs above it", {}},
      {"refine-classic", BalancerKind::RefineClassic, fmt::format("{} RefineLB.C + Refiner.C", kOld),
       "moves from PEs above f x average, f = 1.05 + 0.01 k searched by multirefine", {}},
      {"greedy-refine", BalancerKind::GreedyRefine, "7.x GreedyRefine (src/ck-ldb/greedy.h)",
       "greedy, but an object stays home while its PE stays within tolerance x greedy's max load",
       {{"tolerance", "1.0", "factor over greedy's max load (>= 1)"}}},
      {"rotate", BalancerKind::Rotate, fmt::format("{} RotateLB.C; 7.x Rotate", kOld),
       "every migratable object to the next available PE", {}},
      {"random", BalancerKind::Random, fmt::format("{} RandCentLB.C; 7.x Random, but seeded", kOld),
       "every migratable object to a uniformly drawn available PE",
       {{"seed", "20160101", "seed of the 64-bit Mersenne Twister"}}},
      {"none", BalancerKind::None, "7.x Dummy", "keeps every object where it is", {}},
  };
  return registry;
}

std::string balancer_name(BalancerKind kind)
{
  for (const BalancerInfo& b : balancer_registry())
    if (b.kind == kind)
      return b.name;
  return "?";
}

BalancerConfig parse_balancer_spec(std::string_view spec)
{
  std::string_view name = spec.substr(0, spec.find(':'));
  const BalancerInfo* info = nullptr;
  for (const BalancerInfo& b : balancer_registry())
    if (b.name == name)
      info = &b;
  if (!info)
    throw Error(fmt::format("unknown balancer '{}' (expected one of: {})", name, names_list()));
  BalancerConfig config;
  config.kind = info->kind;
  if (name.size() == spec.size())
    return config;
  std::string_view rest = spec.substr(name.size() + 1);
  std::set<std::string, std::less<>> seen;
  while (true) {
    std::string_view item = rest.substr(0, rest.find(','));
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw Error(fmt::format("balancer '{}': expected key=value, got '{}' (keys of {}: {})", spec, item, info->name,
                              keys_list(*info)));
    std::string_view key = item.substr(0, eq);
    std::string_view value = item.substr(eq + 1);
    bool known = false;
    for (const BalancerParam& p : info->params)
      known = known || p.key == key;
    if (!known)
      throw Error(fmt::format("balancer '{}': unknown key '{}' (keys of {}: {})", spec, key, info->name,
                              keys_list(*info)));
    if (!seen.insert(std::string(key)).second)
      throw Error(fmt::format("balancer '{}': key '{}' given twice", spec, key));
    if (key == "tolerance")
      config.tolerance = parse_tolerance(spec, value);
    else if (key == "seed")
      config.seed = parse_seed(spec, value);
    if (item.size() == rest.size())
      break;
    rest = rest.substr(item.size() + 1);
  }
  return config;
}

std::vector<std::vector<std::string>> balancer_rows()
{
  std::vector<std::vector<std::string>> rows;
  for (const BalancerInfo& b : balancer_registry()) {
    std::string params;
    for (const BalancerParam& p : b.params)
      params += fmt::format("{}{}={} ({})", params.empty() ? "" : ", ", p.key, p.default_value, p.meaning);
    rows.push_back({b.name, params.empty() ? "-" : params, b.follows, b.summary});
  }
  return rows;
}

} // namespace perfcast::lb
