#pragma once
// What `perfcast lb decide` prints: a table of per-PE loads before and after
// a balancing decision, or the same as JSON.
#include "lb/LoadBalancer.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace perfcast::lb {

/// Load figures of one mapping.
struct MappingSummary {
  std::vector<double> pe_load_s; ///< by PE id
  std::vector<int> pe_objects;   ///< objects on each PE
  double max_load_s = 0;         ///< over all PEs
  double average_load_s = 0;     ///< total load over the number of available PEs
};

/// Summarizes a mapping of a problem's objects.
MappingSummary summarize(const LbProblem& problem, const std::vector<int>& object_pe);

/// Bytes of the objects a decision moves.
std::uint64_t bytes_moved(const LbProblem& problem, const LbDecision& decision);

/// The human table (fixed precision).
std::string format_decision(const std::string& spec, const LbProblem& problem, const LbDecision& decision);

/// The JSON object: balancer, assignment, migrations, bytes_moved, max/avg before and after, pes.
nlohmann::json decision_json(const std::string& spec, const LbProblem& problem, const LbDecision& decision);

} // namespace perfcast::lb
