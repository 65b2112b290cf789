#pragma once
// What the queueing model learns from the structure of the training runs'
// traffic rather than from curves through their totals: a 2-D nearest-
// neighbour exchange (a halo exchange on a process grid), whose bytes at an
// untried process count follow the grid's cut lines, and the mix of message
// sizes, so that size-dependent network factors apply per size, not at the
// mean size.
#include "qn/MeasuredRun.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace perfcast {

/// A halo exchange on a px x py process grid (rank = x + px y): every rank
/// sends to each of its up to four grid neighbours and to nobody else.
struct GridExchange {
  /// ranks r and r+1 are neighbours along the grid's shorter side (MPI_Dims_create with a row-major grid)
  bool unit_stride_on_smaller = true;
  double messages_x = 0; ///< messages per ordered pair of neighbours along x (the unit stride)
  double messages_y = 0; ///< likewise along y
  double bytes_x = 0;    ///< size of an x message: bytes_x py^-exponent_x (the face it sends is py-dependent)
  double exponent_x = 0;
  double bytes_y = 0;    ///< size of a y message: bytes_y px^-exponent_y
  double exponent_y = 0;
};

/// The grid of n processes: the most nearly square px x py (px py = n), with
/// px the smaller side when unit_stride_on_smaller.
std::pair<int, int> grid_dims(int n, bool unit_stride_on_smaller);

/// Messages and bytes a whole run of n processes sends in the exchange.
struct GridTraffic {
  double messages = 0, bytes = 0;
  double self_messages = 0, self_bytes = 0; ///< of those, what ranks send themselves (a periodic side of 1)
};
GridTraffic grid_traffic(const GridExchange& grid, int n);

/// The exchange the runs' partner lists show, when every run with two or more
/// processes lists its partners, each rank sends only to its grid neighbours
/// (setup traffic aside) and to all of them, and some run has a grid of two
/// or more on both sides; nothing otherwise.
std::optional<GridExchange> find_grid_exchange(const std::vector<MeasuredRun>& runs);

/// Setup traffic of one run: the largest message count a pair (a rank and
/// another rank) may carry and still be a one-off, not part of an exchange
/// the code repeats. A repeated exchange sends once per iteration, as the
/// run's median pair does (the unweighted median over the ordered pairs
/// with messages, those to the rank itself aside); a pair with at most a
/// tenth of the median's messages is setup (minisweep's 8-process run: one
/// 16-byte message from rank 0 beside pairs of 33). So a pair with as many
/// messages as the exchange's is never setup, and when one-off pairs are
/// the majority the median is theirs and nothing is setup (the detectors
/// then see every pair, as before). 0 when the run lists no partners.
double setup_messages_limit(const MeasuredRun& run);

/// Whether a pair of `messages` is setup traffic under that limit.
inline bool is_setup_pair(double messages, double limit) { return messages > 0 && messages <= limit; }

/// The traffic of one run that the exchange carried (its partners on the
/// grid): every listed pair except setup traffic, which stays with the rest
/// of the run's traffic (the s(n) and B(n) curves beside the grid).
GridTraffic measured_grid_traffic(const MeasuredRun& run);

/// One class of the size mix: its size relative to the run's mean message, and its share of the messages.
struct SizeShare {
  double relative_size = 0, message_share = 0;
};

/// The size mix of the largest run that reports sizes; empty when none does.
std::vector<SizeShare> size_mix(const std::vector<MeasuredRun>& runs);

/// Mean latency factor and mean per-byte time factor (1 / bandwidth factor,
/// weighted by bytes) of SMPI for messages of mean size `mean_bytes` mixed as
/// `mix` (one size when mix is empty); `envelope` bytes are added to each.
std::pair<double, double> smpi_mixed_factors(const std::vector<SizeShare>& mix, double mean_bytes, double envelope);

// to_json/from_json by member name; from_json throws nlohmann::json exceptions on missing fields
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GridExchange, unit_stride_on_smaller, messages_x, messages_y, bytes_x, exponent_x,
                                   bytes_y, exponent_y)

} // namespace perfcast
