#pragma once
// A rank's point-to-point messages to itself : codes
// whose redistribution sends every rank its own block too (SWFFT's pencil
// transposes: at one process the whole 32 MB field, a rank to itself). They
// never leave the rank's node: SMPI carries them over the host's own route
// (its link, up and down, on a cluster without loopback), and in a
// one-process run they are all the network time there is. As part of the
// curves s(n), B(n) they would be spread over the other nodes' NICs, and the
// one-process run, which the curves never see, would count them as
// computation. So the model keeps them apart: per rank, its messages to
// itself c n^k and its bytes to itself c n^k (each k within [-2, 0]: a rank's
// own share of a redistribution falls or stays as n grows), through every
// training run, the one-process run included, and their sizes relative to
// their mean. Traffic to itself is also the sign of a redistribution, whose
// partners at larger counts are no grid neighbours (SWFFT's pencils on 2 x 2 x
// 2 look like faces), so it keeps the process grid refused, as before: the
// class is used beside the curves, where no grid or halo holds.
#include "qn/MeasuredRun.hpp"
#include "qn/TrafficStructure.hpp"

#include <map>
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
  /// The messages of `t` (a run's traffic to itself, measured or at some n) by size: this class's mix at t's mean.
  std::vector<SizeAt> sizes_of(const GridTraffic& t) const;
  /// "0.9 n^0 messages of 4.2 MB n^-1.0 a rank"
  std::string describe() const;
};

/// What one run's ranks sent themselves: messages and bytes, by size class, and per rank.
struct SelfTrafficOfRun {
  GridTraffic total;                      ///< messages == self_messages
  std::map<double, GridTraffic> sizes;    ///< by size class (its smallest size)
  bool sized = true;                      ///< every rank sending itself gave its sizes
  std::vector<double> received;           ///< per rank, the bytes it sent itself
};
SelfTrafficOfRun self_traffic_of(const MeasuredRun& run);

/// The self traffic of runs in which every run that lists its partners has some (one-process runs included);
/// none when a run has none or none lists partners.
std::optional<SelfTraffic> fit_self_traffic(const std::vector<MeasuredRun>& runs);

void to_json(nlohmann::json& j, const SelfTraffic& t);
void from_json(const nlohmann::json& j, SelfTraffic& t);

} // namespace perfcast
