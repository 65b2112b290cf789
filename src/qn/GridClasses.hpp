#pragma once
// Point-to-point traffic classed on the process grid:
// each pair of ranks is put in a class by its signed offset on the grid
// (faces, edges, corners; a wrap on a periodic axis), or in the all-to-all
// class when it is no neighbour. Each class keeps its messages per pair and
// its bytes per message, either c A^k (A the crossed face's share of the
// domain's cross-section, prod over the axes not crossed of 1/p_j; k = 1 a
// fixed domain cut finer, k = 0 a fixed subdomain) or c n^-k, whichever fits
// the training runs. At an untried count the classes are laid on that count's
// grid: every rank's messages, bytes and received bytes follow, where a curve
// through 2, 4 and 8 processes cannot know the grid (minisweep's faces grow
// as p_x + p_y - 2). Setup traffic (TrafficStructure's setup_messages_limit)
// is no class; far pairs that are neither all present nor setup make the
// traffic irregular (HPL's rows and columns), and the grid is refused.
#include "fit/Curve.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/ProcessGrid.hpp"
#include "qn/TrafficStructure.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perfcast {

struct GridClass {
  std::vector<int> offset; ///< signed offset per axis (-1, 0, 1); empty: the all-to-all class (every non-neighbour)
  double messages_per_pair = 0; ///< per ordered pair (the largest training run's)
  bool cut = true;              ///< bytes per message c A^k (else c n^-k)
  double bytes = 0, exponent = 0;
  std::vector<int> seen_at; ///< training counts where it carried messages
  /// its messages' sizes relative to its mean size (from the run its messages per pair come from, when that run
  /// gave each pair's sizes: PENNANT's faces send messages of one and two units); empty: all at the mean
  std::vector<SizeShare> mix;
  std::string name() const; ///< "(+1,0)", "all-to-all"
};

/// The class table of a fit.
struct GridClasses {
  GridRule rule;
  std::vector<GridClass> classes;
  /// offsets the training grids had that carried nothing (a pipeline's backward face): silent at any count
  std::vector<std::vector<int>> silent;
  /// the busiest receiver's share of the traffic beside the grid (collectives); unset: spread evenly
  std::optional<Curve> rest_hot_receive;
  /// on a periodic side of 2, where a rank's +1 and -1 neighbours are one rank, the code sends that rank one
  /// offset's traffic, not both (CoSP2's ring at 2 processes: 31 messages, as to each of its two partners at 4
  /// and 8); found when every class's messages per pair there are half its own elsewhere
  bool side_two_once = false;
  /// "2-D grid, 4 classes" or "1-D periodic grid, 2 classes + all-to-all"
  std::string describe() const;
};

/// One run's traffic classed on a grid.
struct ClassedRun {
  int procs = 0;
  ProcessGrid grid;
  struct Observation {
    std::vector<int> offset; ///< empty: all-to-all
    double messages = 0, bytes = 0; ///< summed over the class's pairs
    double pairs = 0;               ///< pairs the grid has in the class
    double least = 0, most = 0;     ///< fewest and most messages of a pair
    double smallest = 0, largest = 0; ///< smallest and largest bytes per message of a pair with messages
    double area = 1;                  ///< A of the offset on this grid
    std::map<double, GridTraffic> sizes; ///< messages and bytes per size class (its smallest size)
    bool sized = true;                   ///< every pair with messages gave its sizes
    bool to_itself = true;               ///< every pair of the class is a rank and itself (a periodic side of 1)
    bool shared = false;                 ///< some pair of the class is reached by other offsets too (a side of 2)
  };
  std::vector<Observation> classes;
  /// the pairs several offsets reach (a periodic side of 2): those offsets and the pair's messages
  std::vector<std::pair<std::vector<std::vector<int>>, double>> shared_pairs;
  double far_pairs = 0, far_present = 0; ///< non-neighbour pairs, and those carrying messages beyond setup traffic
  double self_unexplained = 0;           ///< messages ranks sent themselves that no periodic side of 1 explains
  bool irregular() const { return far_present > 0 && far_present < far_pairs; }
  GridTraffic classed;           ///< the messages and bytes in the classes (those to the ranks themselves included)
  std::vector<double> received;  ///< per rank, the bytes it received in them
};

/// The classes one run's partner lists show on `grid`. Setup pairs (setup_messages_limit) are no class, nor are
/// pairs off the grid of at most 5% of the run's largest pair's bytes (both stay beside the grid, in the curves),
/// except that when every pair that is no grid neighbour carries messages, all of them are the all-to-all class
/// (CoSP2's one message a pair, a tenth of its ring's at 4 processes).
/// `once`: a pair that several offsets reach (a periodic side of 2) counts whole in each of their classes, as one
/// offset's traffic (GridClasses::side_two_once), rather than shared among them.
ClassedRun classify_partners(const MeasuredRun& run, const ProcessGrid& grid, bool once = false);

/// What fit_grid_classes found.
struct GridFit {
  std::optional<GridClasses> table;
  bool irregular = false; ///< point-to-point traffic follows none of the rules
  std::string why;        ///< when irregular: the far pairs that broke it
};

/// The class table of the runs (with 2 or more processes, listing their partners) under the first rule that
/// fits: no far pair but setup traffic unless all are present, nothing sent to itself but along a periodic side
/// of 1, and, when `strict` (detection without a user's grid), every class's pairs as many messages (within
/// 10%) and bytes per message (within 1.5x), present in every run whose grid has it once present in one, and
/// runs at two or more counts. Nothing (not irregular) when the runs list no point-to-point partners. A class's
/// messages per pair are those of the largest run whose grid has it.
/// With `local_copies`, a class whose pairs are all a rank and itself (a periodic side of 1) may be silent in some
/// runs and carry messages in others: the code copies its own faces without a message there.
GridFit fit_grid_classes(const std::vector<MeasuredRun>& runs, const std::vector<GridRule>& rules, bool strict,
                         bool local_copies = false);

/// When the runs' grids cannot tell a periodic grid from a non-periodic one: `table` was detected on a
/// non-periodic MPI_Dims_create rule and the same rule with every axis wrapping (its sides of 1 copied locally or
/// sent to itself) classes the runs as well. Then the warning that says so, with both readings' messages and bytes
/// a rank at 8 times the largest training count, and the periodic reading's table; empty otherwise.
struct PeriodicAmbiguity {
  std::string warning;
  std::optional<GridClasses> wrapped; ///< the periodic reading's table
};
PeriodicAmbiguity periodic_ambiguity(const std::vector<MeasuredRun>& runs, const GridClasses& table);

/// The messages and bytes of a training run that the table's classes carry (the rest is fitted beside them).
GridTraffic classed_traffic(const GridClasses& table, const MeasuredRun& run);

/// The same by size: each class's messages and bytes per size class when the run gave each pair's sizes, else
/// the class's messages and bytes together.
std::vector<GridTraffic> classed_traffic_by_size(const GridClasses& table, const MeasuredRun& run);

/// A run's point-to-point traffic at n processes from the table. An offset the training grids never had (a
/// 1 x n strip grown to 2 x 16) is unseen: when it crosses no more axes than some class that carried messages,
/// it takes the median messages per pair and the median bytes per message at this grid of the carried classes
/// crossing as many axes (or the fewest), as if the grid kept subdomains about as wide one way as the other (a
/// code chooses its grid so); else it is silent. unseen_messages and unseen_bytes are the guessed offsets'
/// traffic, and what the silent ones would carry if guessed alike.
struct ClassTrafficAt : GridTraffic {
  std::vector<double> received; ///< per rank, bytes received (from others and itself)
  std::vector<SizeAt> sizes;        ///< the messages by their size in bytes, smallest first (SMPI's factors per size)
  std::vector<std::string> unseen; ///< offsets the training grids never had
  double unseen_messages = 0, unseen_bytes = 0;
  ProcessGrid grid;
};
ClassTrafficAt grid_class_traffic(const GridClasses& table, int procs);

/// The busiest receiver's share of all bytes at n: the grid's per-rank received bytes plus `rest_bytes`
/// beside the grid (rank 0 its rest_hot_receive share, the others evenly), over all bytes.
double grid_hot_receive_share(const GridClasses& table, const ClassTrafficAt& at, double rest_bytes);

void to_json(nlohmann::json& j, const GridClasses& t);
void from_json(const nlohmann::json& j, GridClasses& t);

} // namespace perfcast
