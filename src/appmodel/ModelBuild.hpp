#pragma once
// Learns the application model from traces of one program and input at
// several process counts (docs/extrapolation.md). Each rank's actions are
// folded into loops (appmodel/LoopFold); the process grid is the one of
// MPI_Dims_create's 1-3-D grids on which the partners are fewest and nearest
// (or the one the user names); every partner becomes the references that hold
// for it on that grid; the ranks of every count are aligned into one template
// (a longest common subsequence, loops matched by their bodies) whose actions
// keep the references all their instances share; a guard is found for each
// action from the ranks that do it; and its numbers become laws of n
// (appmodel/Law). What the traces cannot settle is a note of the model; what
// no guard explains (a count whose structure differs) is an error naming the
// trace, rank and line.
#include "appmodel/AppModel.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace perfcast {

struct ModelBuildOptions {
  /// grids to choose among (`--grid`); empty: MPI_Dims_create's of 1, 2 and 3 axes, either orientation, periodic
  /// or not
  std::vector<GridRule> grids;
  bool grid_given = false;
  /// process counts whose observations every law leaves out (the structure still learns from them): the model then
  /// predicts those counts from the laws of the others, a forward validation of its laws
  std::vector<int> law_held_out;
  /// per trace (as given), the factor of each rank's compute amounts (TraceIndex::compute_scale); absent: none
  std::map<std::string, std::vector<double>> compute_scale;
  /// called with a line of progress now and then; may be empty
  std::function<void(const std::string&)> progress;
};

/// Learns the model; throws Error for traces it cannot take (one count, two traces at one count, structures
/// that disagree), naming the trace, rank and line.
AppModel build_app_model(const std::vector<std::string>& traces, const ModelBuildOptions& options);

} // namespace perfcast
