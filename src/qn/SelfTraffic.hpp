#pragma once
// A rank's point-to-point messages to itself (issue 13, session 17): codes
// whose redistribution sends every rank its own block too (SWFFT's pencil
// transposes: at one process the whole 32 MB field, a rank to itself). They
// never leave the rank's node: SMPI carries them over the host's own route
// (its links twice on a cluster without loopback), and in a one-process run
// they are all the network time there is. As a curve of "all messages" they
// would be spread over the other nodes' NICs, and the one-process run, which
// the curves never see, would count them as computation. So the model keeps
// them apart: per rank, its messages to itself c n^k and its bytes to itself
// c n^k (each k within [-2, 0]: a rank's own share of a redistribution falls or
// stays as n grows), through every training run, the one-process run
// included, and their sizes relative to their mean. Traffic to itself that a
// process grid's periodic side of 1 explains stays with the grid; the
// collectives' own copies are the collectives'.
#include "qn/GridClasses.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/TrafficStructure.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perfcast {

struct SelfTraffic {
  double messages = 0, messages_exponent = 0; ///< a rank's messages to itself: messages n^messages_exponent
  double bytes = 0, bytes_exponent = 0;       ///< a rank's bytes to itself: bytes n^bytes_exponent
  std::vector<SizeShare> mix;                 ///< sizes relative to their mean (the largest run's); empty: one size
  std::vector<int> seen_at;                   ///< the training counts
  /// A whole run's traffic to itself at n processes (messages == self_messages).
  GridTraffic at(double procs) const;
  /// Its messages by size at n.
  std::vector<SizeAt> sizes_at(double procs) const;
  /// "0.9 n^0 messages of 4.2 MB n^-1.0 a rank"
  std::string describe() const;
};

/// One run's traffic of ranks to themselves beside the grid's classes (all of it without a grid; by size when
/// every such pair gave its sizes, per rank received).
ClassedRun self_traffic_of(const MeasuredRun& run, const GridClasses* grid);

/// The self traffic of runs in which every run that lists its partners has some (one-process runs included),
/// beside `grid`'s periodic sides of 1; none when a run has none or none lists partners.
std::optional<SelfTraffic> fit_self_traffic(const std::vector<MeasuredRun>& runs, const GridClasses* grid);

void to_json(nlohmann::json& j, const SelfTraffic& t);
void from_json(const nlohmann::json& j, SelfTraffic& t);

} // namespace perfcast
