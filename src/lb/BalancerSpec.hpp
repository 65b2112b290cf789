#pragma once
// Choosing a load balancer by a spec string, `NAME` or `NAME:key=value,...`
// (e.g. `greedy-refine:tolerance=1.05`), and the registry that lists every
// balancer with its parameters, defaults and the Charm++ code it follows.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast::lb {

/// The balancers perfcast implements.
enum class BalancerKind { Greedy, Refine, RefineClassic, GreedyRefine, Rotate, Random, None };

/// A parsed, validated balancer spec.
struct BalancerConfig {
  BalancerKind kind = BalancerKind::Greedy;
  double tolerance = 1.0;            ///< greedy-refine: allowed factor over greedy's max load
  std::uint64_t seed = 20160101;     ///< random: seed of the generator
};

/// One parameter of a balancer.
struct BalancerParam {
  std::string key;
  std::string default_value;
  std::string meaning;
};

/// One registry entry.
struct BalancerInfo {
  std::string name;
  BalancerKind kind;
  std::string follows; ///< the Charm++ version and code it reproduces
  std::string summary;
  std::vector<BalancerParam> params;
};

/// Every balancer, in the order `perfcast list` shows them.
const std::vector<BalancerInfo>& balancer_registry();

/// Parses and validates a spec; throws perfcast::Error listing what exists.
BalancerConfig parse_balancer_spec(std::string_view spec);

/// The registry as text rows: name, parameters with defaults, Charm++ source, summary.
std::vector<std::vector<std::string>> balancer_rows();

/// The registry name of a kind.
std::string balancer_name(BalancerKind kind);

} // namespace perfcast::lb
