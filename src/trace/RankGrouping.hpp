#pragma once
// Which coarse rank each fine rank of a trace becomes when the trace is
// aggregated (Tesser et al. 2016, section 4.2: a trace recorded at the finest
// decomposition stands for coarser ones). Grids are row-major with the last
// dimension varying fastest, as MPI_Cart_create numbers ranks.
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

/// A partition of V fine ranks into V' groups, each group one coarse rank.
struct RankGrouping {
  int fine_ranks = 0;
  int coarse_ranks = 0;
  std::vector<int> group_of; ///< coarse rank of each fine rank
};

/// Parses a grid such as "64", "8x8" or "4x4x4" (1 to 3 positive dimensions); `what` names it in errors.
std::vector<int> parse_grid(std::string_view text, std::string_view what);

/// The grid of a trace's ranks: `text` parsed as parse_grid does (empty: one
/// dimension of all of them), checked to hold exactly `ranks` ranks; errors
/// name `what` and the trace.
std::vector<int> trace_grid(std::string_view text, std::string_view what, int ranks, std::string_view trace);

/// The coarse grid for `coarse_ranks` blocks of a fine grid: each dimension
/// divides the fine one, and the blocks are as close to cubes as possible
/// (smallest sum of block sides; ties to the earlier dimensions getting more
/// blocks). Throws Error when no such grid exists.
std::vector<int> coarse_grid_for(const std::vector<int>& fine_dims, int coarse_ranks);

/// Groups the ranks of a fine grid into blocks, one per cell of the coarse
/// grid (same number of dimensions, each dividing the fine one).
RankGrouping block_grouping(const std::vector<int>& fine_dims, const std::vector<int>& coarse_dims);

/// Reads a mapping file: one "FINE COARSE" pair per line ('#' starts a
/// comment); every fine rank 0..fine_ranks-1 appears once and the coarse ranks
/// are 0..V'-1 with none left empty. Errors name the file and line.
RankGrouping read_grouping_map(const std::string& path, int fine_ranks);

} // namespace perfcast
