#pragma once
// The small runs of the phase method (Escobar and Boppana, section III-B2):
// sizes from a start and a step, the user's command with `{size}` filled in,
// the profiles of one run merged over its ranks, and the convergence size C
// at which the phases' shares stop moving.
#include "phase/PhaseFinder.hpp"
#include "profile/FunctionProfile.hpp"

#include <map>
#include <string>
#include <vector>

namespace perfcast::phase {

/// Sizes start, start + step, ... ("40:+8") or start, start * factor, ... ("40:*2").
struct SizeLadder {
  double start = 0;
  double step = 0;       ///< added each time (when factor is 0)
  double factor = 0;     ///< multiplied each time (when > 0)
  /// A geometric ladder rounded to the nearest integers, each at least one
  /// above the one before (a program that reads its size with atoi would
  /// run 47 where the series recorded 47.57).
  bool round = false;
  /// The i-th size (i = 0 is start).
  double at(int i) const;
};

/// Parses "START:+STEP", "START:*FACTOR" or "START:*FACTOR:round"; throws Error saying what was expected.
SizeLadder parse_size_ladder(const std::string& text);

/// The command with every "{size}" replaced by the size (as an integer when
/// it is one); throws Error when no argument contains "{size}".
std::vector<std::string> command_for_size(const std::vector<std::string>& command, double size);

/// One run's profile merged over its ranks: stacks of all ranks with one
/// name table, samples inside MPI initialisation or finalisation left out,
/// weights averaged over ranks (so seconds are per rank).
struct MergedProfile {
  double size = 0;
  int ranks = 0;
  double hz = 0;
  std::vector<std::string> names;
  std::vector<StackSample> stacks;
  /// Seconds per rank the samples stand for.
  double seconds() const;
  /// A function's inclusive seconds per rank (0 when absent).
  double inclusive_seconds(const std::string& function) const;
};

/// Merges the ranks of one run; throws Error when there is no rank or the
/// ranks were sampled at different rates.
MergedProfile merge_ranks(double size, const std::vector<profile::FunctionProfile>& ranks);

/// Whether the phases have converged between two consecutive sizes: the
/// same phases (by name) and every share within `tolerance` (absolute).
bool phases_converged(const PhaseSet& smaller, const PhaseSet& larger, double tolerance);

/// The functions of `chosen` (in its order) with the inclusive shares they
/// hold in another profile, 0 for one it does not hold; `coverage` is their
/// sum. The series judges convergence on the set chosen at one size and its
/// shares at the next (docs/phases.md): the set found anew at every size
/// flips between nested near-ties (hpcc's HPL_main > HPL_pdgesv > HPL_dgemm)
/// on a point of sampling noise while every function's share holds still.
PhaseSet same_phases_in(const PhaseSet& chosen, const std::vector<std::string>& names,
                        const std::vector<StackSample>& samples);

} // namespace perfcast::phase
