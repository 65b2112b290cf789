#pragma once
// The process grid of a run: how many ranks along each axis, which axes wrap
// around, and the rank order (x fastest: rank = x + p_x (y + p_y z)). A
// grid rule gives the grid of every process count: MPI_Dims_create's of one
// dimensionality (either orientation), or a file naming each count's grid
// (`perfcast fit qn --grid`, `--grid-file`; docs/models.md).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfcast {

struct ProcessGrid {
  std::vector<int> dims;      ///< ranks along each axis, x first (the fastest in rank order)
  std::vector<bool> periodic; ///< per axis: its ends meet
  int procs() const;
  /// Each axis's coordinate of a rank.
  std::vector<int> coordinates(int rank) const;
  /// The rank at coordinates (each within its axis).
  int rank_at(const std::vector<int>& coordinates) const;
  /// "4x2", "4x4x4 periodic".
  std::string describe() const;
};

/// How the grid of each process count is found.
struct GridRule {
  /// "dims_create": MPI_Dims_create's grid of `dimensions` axes, largest first unless `transposed`;
  /// "file": `grids`, one per count
  std::string kind = "dims_create";
  int dimensions = 2;
  bool transposed = false; ///< the smallest side first (x the smallest): a row-major MPI_Cart's rank order
  bool periodic = false;   ///< every axis wraps (dims_create)
  std::map<int, ProcessGrid> grids;
  std::string source; ///< the grid file's name (file), for messages
  /// dims_create: where a count's grid has one side longer than 1 (2 processes, a prime count), the axis that side
  /// lies on; -1: where the rule's order puts it (x, or the last axis when transposed). A code may lay such a line of
  /// ranks along an axis its other counts' grids do not suggest.
  int line_axis = -1;
  /// The grid of n processes; throws Error when a file names none for n > 1 (one process: all sides 1, periodic
  /// as the file's first grid, unless the file names it).
  ProcessGrid at(int procs) const;
  std::string describe() const;
};

/// The rules `--grid SPEC` stands for, in the order tried: SPEC is dims_create (1, 2 and 3 axes), dims_create:D,
/// optionally followed by :periodic or :transposed (else both orientations, non-periodic first); "" is the
/// default detection (dims_create). Throws Error naming the spec and what was expected.
std::vector<GridRule> grid_rules_from_spec(const std::string& spec);

/// A grid file: lines `N AxB[xC] [periodic]` (`#` comments and blank lines skipped). Throws Error naming file,
/// line and what was expected.
GridRule load_grid_file(const std::string& path);
GridRule parse_grid_file(const std::string& text, const std::string& path);

void to_json(nlohmann::json& j, const GridRule& rule);
void from_json(const nlohmann::json& j, GridRule& rule);

} // namespace perfcast
