#pragma once
// What the queueing model learns from the structure of the training runs'
// traffic rather than from curves through their totals: which pairs are setup
// traffic (one-off pairs beside a repeated exchange; the exchange itself is
// classed on the process grid in GridClasses), and the mix of message sizes,
// so that size-dependent network factors apply per size, not at the mean size.
#include "fit/Curve.hpp"
#include "qn/MeasuredRun.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

namespace perfcast {

/// Messages and bytes a whole run of n processes sends in a structured exchange (grid classes, halo).
struct GridTraffic {
  double messages = 0, bytes = 0;
  double self_messages = 0, self_bytes = 0; ///< of those, what ranks send themselves (a periodic side of 1)
  /// Another structure's traffic added to this one, field by field.
  GridTraffic& operator+=(const GridTraffic& o)
  {
    messages += o.messages, bytes += o.bytes;
    self_messages += o.self_messages, self_bytes += o.self_bytes;
    return *this;
  }
};

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

/// The busiest receiver's share of a run's bytes: each rank's structured traffic `received` plus `rest_bytes`
/// beside it, of which rank 0 gets the share `rest_root` and the others the remainder evenly; within [1/n, 1].
double busiest_receive_share(const std::vector<double>& received, double rest_bytes, double rest_root);

/// The busiest receiver's share of the traffic beside a structure (a rooted collective's root, when the
/// collectives are not expanded), through the runs given as (n, each rank's bytes received beside it): a share
/// that cannot grow without bound past them (constant, a + b / n or a falling c n^-k); none when no run has any.
std::optional<Curve> rest_hot_receive_curve(const std::vector<std::pair<int, std::vector<double>>>& runs);

/// One class of the size mix: its size relative to the run's mean message, and its share of the messages.
struct SizeShare {
  double relative_size = 0, message_share = 0;
};

/// Messages of one size: bytes per message, and how many (or what share).
struct SizeAt {
  double bytes = 0, messages = 0;
};

/// Size classes given by their messages and bytes as shares of the messages and sizes relative to their mean;
/// empty when they carry no message or no byte.
std::vector<SizeShare> relative_mix(const std::vector<GridTraffic>& classes);

/// The largest training run that reports its message sizes; null when none does.
const MeasuredRun* largest_sized_run(const std::vector<MeasuredRun>& runs);

/// The size mix of the largest run that reports sizes; empty when none does.
std::vector<SizeShare> size_mix(const std::vector<MeasuredRun>& runs);

/// The size mix of what `run` sent beside `carried` (a process grid's classes:
/// per class its messages and bytes, all taken at the class's mean size), relative
/// to the mean of what is left: each carried class is taken out of the size
/// class (power-of-two bin) its mean size falls in. Empty when the run reports
/// no sizes or nothing is left.
std::vector<SizeShare> size_mix_beside(const MeasuredRun& run, const std::vector<GridTraffic>& carried);

/// A relative mix laid at a mean size (one size, the mean, when `mix` is empty); messages are the shares.
std::vector<SizeAt> sizes_at_mean(const std::vector<SizeShare>& mix, double mean_bytes);

/// Mean latency factor (weighted by messages) and mean per-byte time factor
/// (1 / bandwidth factor, weighted by bytes) of SMPI over messages of these
/// sizes; `envelope` bytes are added to each. One size, `envelope` alone, when
/// nothing is sent.
std::pair<double, double> smpi_mixed_factors(const std::vector<SizeAt>& sizes, double envelope);

} // namespace perfcast
