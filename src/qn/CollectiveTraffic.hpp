#pragma once
// The collectives' traffic from the traces' calls : per
// collective type, the calls a rank makes (the largest training run's), which
// ranks are roots of the rooted ones, and the payload of a call, c n^-k. At a
// count n the calls are expanded into point-to-point messages by the replay's
// own default algorithms (src/sim/Collectives.cpp's expand_collective), whose
// counts change form with n (alltoall's algorithm switches; allreduce sends
// 2(n-1) messages with n-1 into the root; a linear allgather n(n-1)), where
// curves through 2, 4 and 8 processes cannot follow them.
#include "fit/Curve.hpp"
#include "qn/MeasuredRun.hpp"
#include "qn/TrafficStructure.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfcast {

struct CollectiveType {
  std::string type;          ///< trace keyword of the blocking form ("allreduce")
  double calls_per_rank = 0; ///< the largest training run's mean
  /// rooted types: each root's share of the calls (the largest run's), by rank
  std::vector<std::pair<int, double>> roots;
  double payload_bytes = 0; ///< c of the payload per call c n^-k (collective_payload_bytes)
  double exponent = 0;      ///< k, within [0, 2]
  std::vector<int> seen_at; ///< training counts that called it
  /// The payload of one call at n processes.
  double payload_at(double procs) const;
};

struct CollectiveTraffic {
  std::vector<CollectiveType> types;
  /// the busiest receiver's share of the traffic beside the grid and the collectives; unset: spread evenly
  std::optional<Curve> rest_hot_receive;
  /// "allreduce 304, alltoallv 2 calls a rank"
  std::string describe() const;
};

/// The collectives' point-to-point messages in a run of n processes.
struct CollectiveTrafficAt : GridTraffic {
  std::vector<double> received;          ///< per rank, bytes received
  std::map<double, double> sizes;        ///< bytes per message -> messages
};

/// The calls of every type that every training run of 2 or more processes lists (`collectives_listed`), fitted:
/// calls per rank from the largest run (a warning in `warnings` names the types whose calls differ by more than
/// 10% between runs), the payload c n^-k in logs through the runs (constant when one run). None when a run of 2
/// or more lists no calls (older run files, CSV files) or none calls a collective.
std::optional<CollectiveTraffic> fit_collective_traffic(const std::vector<MeasuredRun>& runs,
                                                        std::vector<std::string>& warnings);

/// The types' calls expanded at n by the replay's default algorithms; nothing below 2 processes.
CollectiveTrafficAt collective_traffic_at(const std::vector<CollectiveType>& types, int procs);

/// A run's own calls (its calls per rank, roots and mean payloads) expanded at its count: the traffic its
/// collectives sent, which the curves beside the grid then leave out.
CollectiveTrafficAt recorded_collective_traffic(const MeasuredRun& run);

void to_json(nlohmann::json& j, const CollectiveTraffic& t);
void from_json(const nlohmann::json& j, CollectiveTraffic& t);

} // namespace perfcast
