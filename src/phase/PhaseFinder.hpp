#pragma once
// Phases of a run from its sampled call stacks (Escobar and Boppana,
// section III-B1): the smallest set of functions, none nested in another,
// that holds at least a given share (70%) of the run time.
//
// Read literally, main alone is always that set, so perfcast's rule (docs/phases.md):
//  - candidates are the program's functions whose inclusive share is at
//    least `min_share`, except the run's spine: a function that is on
//    nearly every stack (`spine_share`) below its own frame, such as main or
//    a top-level driver, is the run, not a phase (a loop that does nearly
//    all the work itself is a phase); MPI and PMPI functions are
//    communication inside a phase, not phases;
//  - two functions are nested when they appear together in any sample, so
//    the shares of a set of non-nested functions add up exactly;
//  - the set with the fewest functions wins; among equally small sets the
//    tightest (smallest total share still above the threshold: the deepest
//    functions) wins, then the names in order.
// With these rules HPCG-like stacks give ComputeMG alone and SMG2000-like
// stacks give cyclic reduction and residual, as in the paper.
#include <string>
#include <vector>

namespace perfcast::phase {

/// One sampled call stack (function ids, outermost first) and its weight.
struct StackSample {
  std::vector<int> frames;
  double weight = 1;
};

/// Options of the phase search.
struct PhaseRule {
  double threshold = 0.7;    ///< share of the run the phases must hold together
  double spine_share = 0.95; ///< functions whose callees hold this share are the run itself
  double min_share = 0.02;   ///< functions below this share are not considered
  int max_phases = 4;        ///< the largest set tried
  int max_candidates = 24;   ///< the candidates with the largest shares searched
};

/// A function's share of the samples.
struct FunctionShare {
  std::string name;
  double inclusive = 0; ///< share of samples with the function anywhere on the stack
  double exclusive = 0; ///< share of samples with the function on top
};

/// The phases found.
struct PhaseSet {
  std::vector<std::string> phases; ///< by decreasing share
  std::vector<double> shares;      ///< inclusive share of each phase
  double coverage = 0;             ///< their sum
};

/// Inclusive and exclusive shares of every function named in `names`
/// (indexed by the ids the samples use), by decreasing inclusive share.
std::vector<FunctionShare> function_shares(const std::vector<std::string>& names,
                                           const std::vector<StackSample>& samples);

/// Finds the phases; throws perfcast::Error naming the best coverage found
/// when no set of at most `max_phases` functions reaches the threshold.
PhaseSet find_phases(const std::vector<std::string>& names, const std::vector<StackSample>& samples,
                     const PhaseRule& rule = {});

} // namespace perfcast::phase
