#pragma once
// The application model learned from a program's traces at a few process
// counts (docs/extrapolation.md): one action template that every rank at every
// count follows, loops folded (appmodel/LoopFold) with their iterations as
// laws of n; each action's partners as references that hold at any count (the
// rank itself, a signed offset on the process grid, a fixed rank, the last
// rank); a guard saying which ranks do it (all, those whose grid partners
// exist, one rank, from some count on); and its flops and bytes as laws of n
// (appmodel/Law). Written as JSON (`perfcast model build`), printed for a person
// to check (`perfcast model show`), and instantiated at any count by
// appmodel/Extrapolate.
#include "appmodel/Law.hpp"
#include "qn/ProcessGrid.hpp"
#include "trace/Action.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perfcast {

/// A rank-valued field of an action (a partner, a root, a request's source or destination) relative to the rank.
struct RankRef {
  enum class Kind : std::uint8_t {
    Self,       ///< the rank itself
    Offset,     ///< the rank at a signed offset on the process grid (wrapping on periodic axes)
    Fixed,      ///< rank `value`
    FromLast,   ///< rank n - 1 - `value`
    AnySource,  ///< MPI_ANY_SOURCE
    LastSource, ///< "@": the source of the rank's latest wildcard receive
    Flip,       ///< the rank with bit k flipped, k the dimension of the enclosing loop over the hypercube's dimensions
  };
  Kind kind = Kind::Self;
  int value = 0;
  std::vector<int> offset; ///< Offset: per grid axis, x first
  bool operator==(const RankRef&) const = default;
  /// "self", "(+1,0)", "rank 0", "rank n-1", "any source", "rank ^ 2^k".
  std::string describe() const;
};

/// Which ranks at which counts do an action or enter a loop.
struct Guard {
  bool neighbours = false; ///< only where every grid partner of the action exists (a non-periodic grid's edges)
  int min_procs = 0;       ///< only at this many processes or more (0: at any count)
  enum class RankRule : std::uint8_t { Any, Only, Except };
  RankRule rank_rule = RankRule::Any;
  RankRef rank; ///< Fixed or FromLast, when rank_rule is not Any
  /// a compute slot done where the action after it (or before it) is done, by that action's guard
  enum class Sibling : std::uint8_t { None, Next, Previous };
  Sibling as = Sibling::None;
  /// only on ranks with at least this many neighbours on the grid among `offsets` (the k-th of a run of like
  /// actions, one per neighbour: a receive from any source for each)
  int min_neighbours = 0;
  std::vector<std::vector<int>> offsets;
  /// in a loop over the hypercube's dimensions, which ranks act at dimension k: those whose k + 1 lowest bits are
  /// 0 (a binomial tree's parents), whose lowest set bit is bit k (its children), or by bit k alone
  enum class Bits : std::uint8_t { Any, LowZero, LowestIsK, BitZero, BitOne };
  Bits bits = Bits::Any;
  bool always() const
  {
    return !neighbours && min_procs == 0 && rank_rule == RankRule::Any && as == Sibling::None && min_neighbours == 0 &&
           bits == Bits::Any;
  }
  /// "where its partners exist, from 4 processes", "" when always.
  std::string describe() const;
};

/// One rank whose numbers differ from every other rank's at each count (a root that reads the input): its laws.
struct RankLaws {
  RankRef rank; ///< Fixed or FromLast
  Law value, bytes, recv_bytes, peer_bytes;
};

struct ModelNode {
  bool loop = false;
  /// a loop over the hypercube's dimensions, k = 0 .. ceil(log2 n) - 1 (+1) or down from there (-1), its
  /// iterations those of n rather than a law; 0: an ordinary loop
  int dimensions = 0;
  Guard guard;
  // a loop
  Law iterations;
  std::vector<ModelNode> body;
  // an action
  ActionType type = ActionType::Compute;
  bool nonblocking = false;
  int tag = 0;
  int comm = 0;
  bool has_partner = false, has_partner2 = false;
  RankRef partner, partner2;
  Law value;      ///< flops (compute, a reduction's work) or seconds (sleep)
  Law bytes;      ///< bytes sent or contributed; waitall/testall: its request count
  Law recv_bytes; ///< bytes received (sendrecv, gather, scatter, all-to-all, allgather)
  Law peer_bytes; ///< v-collectives: bytes per peer, every peer alike
  bool waits_all_pending = false; ///< waitall/testall over every request pending (its count follows the requests)
  std::optional<RankLaws> one_rank; ///< that rank's own laws (the laws above are the other ranks')
  std::string origin; ///< TRACE:LINE of its first instance in the largest training trace, for messages
};

struct AppModel {
  std::vector<int> training_procs;
  std::vector<std::string> training_traces;
  GridRule grid;
  bool grid_given = false;        ///< the user named the grid; else detected from the partners
  std::vector<std::string> notes; ///< assumptions the traces could not settle, printed with every use
  std::vector<ModelNode> body;
};

/// Whether an action type carries a field as a parameter.
bool has_value(ActionType type);
bool has_bytes(ActionType type);
bool has_recv_bytes(ActionType type);
bool has_peer_counts(ActionType type);
/// Which fields of an action are ranks: partner (peer, root, request source), partner2 (request destination,
/// sendrecv source).
bool has_rank_partner(ActionType type);
bool has_rank_partner2(ActionType type);

/// The rank a reference names for `rank` at `procs` processes on `grid` (kAnySource, kLastSource for those),
/// or -3 when it lies off the grid (an offset beyond a non-periodic edge, a fixed rank beyond the count, a flipped
/// bit beyond the count); `dimension` is the enclosing hypercube loop's k (-1 outside one).
int resolve_rank(const RankRef& ref, int rank, int procs, const ProcessGrid& grid, int dimension = -1);
inline constexpr int kOffGrid = -3;
/// Whether a rank does a node at `procs` processes on `grid` (at dimension k of a hypercube loop).
bool guard_admits(const Guard& guard, const ModelNode& node, int rank, int procs, const ProcessGrid& grid,
                  int dimension = -1);
/// Whether rank r acts at dimension k under a bit rule.
bool bits_admit(Guard::Bits bits, int rank, int dimension);
/// The dimensions of n processes' hypercube: ceil(log2 n) (0 for one process).
int hypercube_dimensions(int procs);
/// The share of the domain's cross-section that an offset crosses on a grid: the product of 1/p_j over the axes
/// it does not cross (1 for a corner, or any offset of a 1-D grid).
double offset_area(const std::vector<int>& offset, const ProcessGrid& grid);

nlohmann::json app_model_to_json(const AppModel& model);
/// Reads a model file's JSON; throws Error naming `path` and what was expected.
AppModel app_model_from_json(const nlohmann::json& j, const std::string& path);
/// Reads a model file.
AppModel load_app_model(const std::string& path);
/// The model for a person to check: its training runs, grid, notes and the template with every law.
std::string describe_app_model(const AppModel& model);

} // namespace perfcast
