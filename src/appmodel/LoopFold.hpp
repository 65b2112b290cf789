#pragma once
// One rank's actions folded into loops while they are read (the intra-process
// compression of ScalaTrace, Noeth et al., 2009): after each action, the last
// L nodes either repeat the body of the loop just before them (one iteration
// more) or repeat the L nodes before them (a new loop of two iterations),
// found with rolling hashes so a rank of millions of actions folds in one
// pass. Nodes compare by structure: an action's type, partners, tag,
// communicator and the binary order of magnitude of its sizes; their flops
// and bytes are summed over the instances folded together. Computation is a
// slot before every other action (consecutive computes merge, an empty slot
// holds none), so a compute too small to be traced at one count does not
// change the structure. When the rank ends, a loop whose first iteration's
// leading slot stands apart from the others' while the slot after the loop
// matches them (a body that computes last: "exchange, compute") is turned to
// end with that slot, and loops of a few iterations are unrolled again (they
// may be a coincidence: two neighbours that are one rank on a small grid).
#include "trace/Action.hpp"

#include <cstdint>
#include <vector>

namespace perfcast {

/// The numbers of one folded action, summed over its instances.
struct FoldSums {
  double instances = 0;
  double value = 0;      ///< flops (compute, a reduction's work) or seconds (sleep)
  double bytes = 0;
  double recv_bytes = 0;
  double peer_bytes = 0; ///< v-collectives: bytes per peer (send and receive counts' mean)
  double first = 0;      ///< value summed over the instances that were their loop's first iteration
  double entries = 0;    ///< how many of the instances were
  bool waits_all_pending = true; ///< waitall/testall: its count was every request pending at it
  void add(const FoldSums& o);
};

struct FoldNode {
  bool loop = false;
  std::uint64_t hash = 0;
  Action action;   ///< leaf: the first instance (its line is the first line)
  FoldSums sums;   ///< leaf
  std::uint64_t iterations = 0; ///< loop
  std::uint64_t body_hash = 0;  ///< loop: its body's sequence hash
  std::vector<FoldNode> body;   ///< loop
};

class LoopFolder {
public:
  /// Longest loop body found, in nodes.
  static constexpr std::size_t kMaxBody = 512;
  /// Loops of at most this many iterations whose body has point-to-point traffic or waits are unrolled when the rank
  /// ends (so few repetitions may be a coincidence, two neighbours that are one rank on a small grid; unrolled,
  /// they align with the counts where they are distinct actions), unless that makes more than kUnrollNodes nodes.
  static constexpr std::uint64_t kUnrollIterations = 8;
  static constexpr std::uint64_t kUnrollNodes = 4096;
  /// Appends the rank's next action.
  void add(const Action& action);
  /// The folded sequence (the final compute slot closed); the folder is left empty.
  std::vector<FoldNode> finish();

private:
  void push(FoldNode node);
  void fold();
  std::uint64_t range_hash(std::size_t from, std::size_t to) const;
  static FoldNode empty_slot(const Action& before);
  std::vector<FoldNode> seq_;
  std::vector<std::uint64_t> prefix_{0}; // prefix_[i]: hash of seq_[0..i)
  std::vector<std::uint64_t> powers_{1};
  FoldNode slot_; // the compute slot being filled, pushed before the next action
  bool started_ = false;
  std::uint64_t pending_ = 0; // requests posted and not yet waited for (for waitall's count)
};

/// The requests a rank has pending after an action, given those pending before it: a non-blocking send, receive or
/// collective posts one, a wait or waitany completes one, a waitall, waitsome or testall completes them all (the
/// count a waitall over every pending request carries).
std::uint64_t pending_after(const Action& action, std::uint64_t pending);

/// The hash of a sequence of nodes, as LoopFolder computes a loop's body hash.
std::uint64_t sequence_hash(const std::vector<FoldNode>& nodes);

} // namespace perfcast
