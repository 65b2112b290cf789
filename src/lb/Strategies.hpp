#pragma once
// Internal to src/lb: the strategies behind decide(), on a checked problem.
// Each returns the new PE of every object (non-migratable objects keep theirs).
#include "lb/LoadBalancer.hpp"

#include <cstdint>
#include <vector>

namespace perfcast::lb::detail {

/// The problem as Charm++ 7.x's TreeLB strategies see it: single-precision
/// loads, available PEs only, migratable objects heaviest first.
struct TreeView {
  std::vector<int> pes;       ///< available PE ids, ascending (TreeLB's processor order)
  std::vector<float> base;    ///< by PE id: float(background + non-migratable loads)
  std::vector<float> speed;   ///< by PE id: speed, or 1 when speeds are not used
  std::vector<int> objects;   ///< migratable object ids, heaviest first, ties by lower id
  std::vector<float> work;    ///< by object id: float(load) * speed of its current PE
  std::vector<bool> on_available; ///< by object id: its current PE is available
};

/// Builds the 7.x view of a checked problem.
TreeView make_tree_view(const LbProblem& problem);

/// The starting mapping: every object where it is.
std::vector<int> current_mapping(const LbProblem& problem);

/// Lowest available PE id (a checked problem has one).
int first_available_pe(const LbProblem& problem);

/// Max load after 7.x Greedy, over the PEs that received an object (calcGreedyMaxload).
float greedy_max_load(const TreeView& view);

std::vector<int> greedy(const LbProblem& problem);
std::vector<int> greedy_refine(const LbProblem& problem, double tolerance);
std::vector<int> refine_a(const LbProblem& problem);
/// 6.x RefineLB; `exhaustive` forces Charm++'s quadratic pair search (the
/// default takes a linear shortcut with the same answer when speeds are off).
std::vector<int> refine_classic(const LbProblem& problem, bool exhaustive = false);
std::vector<int> rotate(const LbProblem& problem);
std::vector<int> random(const LbProblem& problem, std::uint64_t seed);

} // namespace perfcast::lb::detail
