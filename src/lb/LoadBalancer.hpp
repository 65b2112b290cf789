#pragma once
// Charm++'s central load balancers as plain functions: a load database in,
// the new PE of every object out. Nothing here reads files, prints or keeps
// state between calls, so an over-decomposed replay can call decide() at each
// migration point. The algorithms follow Charm++'s source (see docs/lb.md and
// the comment at the top of each strategy's .cpp for the files and commits).
//
// Load rules (both Charm++ generations agree on them):
// - a PE's base load is its background load plus the load of its
//   non-migratable objects, which never move;
// - when use_pe_speed is set, an object's load was measured on its current PE
//   and becomes work = load_s * speed(current PE); placing it on PE q costs
//   work / speed(q); background loads are never scaled. When it is not set
//   (Charm++'s default, no +LBTestPESpeed) speeds are ignored.
#include "lb/BalancerSpec.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perfcast::lb {

/// A processing element as the balancer sees it; its id is its index.
struct PeState {
  double speed = 1.0;        ///< relative speed (only used with use_pe_speed)
  double background_s = 0.0; ///< load not caused by objects, seconds
  bool available = true;     ///< false: objects must leave it
};

/// A migratable unit of work (an AMPI rank, a chare); its id is its index.
struct ObjectState {
  int pe = 0;            ///< PE it runs on now
  double load_s = 0.0;   ///< wall time it ran since the last balancing step
  bool migratable = true; ///< false: it stays and counts as its PE's load
  std::uint64_t bytes = 0; ///< size moved when it migrates
};

/// Everything a balancing step looks at.
struct LbProblem {
  std::vector<PeState> pes;
  std::vector<ObjectState> objects;
  bool use_pe_speed = false; ///< scale loads by PE speed (Charm++'s +LBTestPESpeed)
};

/// What a balancing step decided.
struct LbDecision {
  std::vector<int> new_pe;    ///< new PE of every object, by object index
  std::size_t migrations = 0; ///< objects whose PE changed
};

/// Throws perfcast::Error when a problem cannot be balanced (no available PE,
/// an object on a missing PE, a negative or non-finite load or speed, a
/// non-migratable object on an unavailable PE).
void check_problem(const LbProblem& problem);

/// Runs the configured balancer on a problem (checked first).
LbDecision decide(const BalancerConfig& config, const LbProblem& problem);

/// Each PE's load under a mapping (base load plus placed objects, by the rules above).
std::vector<double> pe_loads(const LbProblem& problem, const std::vector<int>& object_pe);

} // namespace perfcast::lb
