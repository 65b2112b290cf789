#pragma once
// Collective operations as point-to-point schedules. The defaults reproduce
// SimGrid 3.32's default selector (smpi_default_selector.cpp): barrier = Open
// MPI basic linear, bcast = binomial tree, reduce = linear to the root,
// allreduce = reduce to 0 + binomial bcast, gather/scatter/allgather(v)/
// alltoallv = linear non-blocking, alltoall = Open MPI's decision rules.
// Alternatives are chosen by name per collective.
#include "sim/MicroOp.hpp"
#include "trace/Action.hpp"

#include <map>
#include <string>
#include <vector>

namespace perfcast {

/// Algorithm name per collective ("bcast" -> "binomial"); missing means default.
struct CollectiveChoice {
  std::map<std::string, std::string> algorithm;
  /// Chosen algorithm for a collective, or "default".
  std::string get(const std::string& collective) const;
  /// Records a choice written COLLECTIVE=ALGORITHM; throws Error naming the
  /// spec and the known names when either part is not in the registry.
  void set(const std::string& spec);
};

/// Available algorithms per collective (the one registry for `perfcast list`
/// and validation); "default" is accepted for every collective.
const std::map<std::string, std::vector<std::string>>& collective_algorithms();

/// Whether a collective has a root (bcast, reduce, gather, scatter and their v forms); its root is Action::partner.
bool is_rooted_collective(ActionType type);

/// The bytes one call of a collective carries per unit of its algorithm, as the trace gives them: the block a
/// rank contributes or receives (bcast, reduce, allreduce, scan, gather, allgather: count x datatype size; alltoall:
/// the block per peer; scatter: the block each rank gets), the mean block to the other ranks of an alltoallv
/// (`rank` its own), a reducescatter's mean block, 0 for a barrier.
double collective_payload_bytes(const Action& action, int rank);

/// A call of a collective of `type` among `size` ranks whose every block is `payload` bytes (the inverse of
/// collective_payload_bytes, with even counts), rooted at `root`.
Action uniform_collective(ActionType type, std::uint64_t payload, int root, int size);

/// Appends the steps of `action` (a collective) for `rank` among `size` ranks.
void expand_collective(const Action& action, int rank, int size, const CollectiveChoice& choice,
                       std::vector<MicroOp>& out);

} // namespace perfcast
