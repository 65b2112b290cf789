#pragma once
// A balancer as a callable, for the over-decomposed replay (src/sim does not
// link the strategies itself, so that builds without src/lb keep the replay).
#include "lb/LoadBalancer.hpp"

#include <functional>

namespace perfcast::lb {

/// The decision function of a parsed spec.
inline std::function<LbDecision(const LbProblem&)> balancer_function(const BalancerConfig& config)
{
  return [config](const LbProblem& problem) { return decide(config, problem); };
}

} // namespace perfcast::lb
