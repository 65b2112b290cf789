#include "appmodel/ModelBuild.hpp"

#include "appmodel/Extrapolate.hpp"
#include "appmodel/TraceCompare.hpp"
#include "trace/TraceReader.hpp"

#include "appmodel/LoopFold.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "trace/TraceDirectory.hpp"
#include "trace/TraceIndex.hpp"
#include "trace/TraceReader.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace perfcast {

namespace {

constexpr int kReach = 3; // largest |offset| per axis a partner reference may have
constexpr std::size_t kMaxAlignCells = 40'000'000;

struct TrainingRank {
  std::vector<FoldNode> folded;
  std::string path;
};

struct Training {
  int procs = 0;
  std::string trace;
  std::string index;
  std::vector<TrainingRank> ranks;
  std::set<std::pair<int, int>> pairs; // point-to-point (rank, partner), partner != rank
  bool self_messages = false;          // some rank sent to or received from itself
  ProcessGrid grid;
};

struct Obs {
  int t = 0;    // training index
  int rank = 0;
  FoldSums sums;
  std::uint64_t iterations = 0;
  std::uint32_t line = 0;
};

struct ANode {
  bool loop = false;
  ActionType type = ActionType::Compute;
  bool nonblocking = false;
  int tag = 0, comm = 0;
  bool has_partner = false, has_partner2 = false;
  bool has_counts = false;
  int collective = -1; ///< a collective: how many collectives on its communicator its sequence has before it
  std::vector<RankRef> cands, cands2;
  std::vector<Obs> obs;
  std::vector<ANode> body;
  int peer = -1, peer2 = -1; ///< a point-to-point action's partners as traced (for the hypercube reading)
  /// a loop over the hypercube's dimensions (+1 ascending, -1 descending, 2 either: one step at k = 0); its actions
  /// are `kinds`, and `events` say which rank did which kind at which dimension
  int dims = 0;
  struct Kind {
    ActionType type = ActionType::Send;
    bool nonblocking = false;
    int tag = 0, comm = 0;
    bool operator==(const Kind&) const = default;
  };
  struct Event {
    int t = 0, rank = 0, k = 0;
    std::size_t kind = 0;
    double bytes = 0, recv_bytes = 0;
  };
  std::vector<Kind> kinds;
  std::vector<Event> events;
};

using Presence = std::vector<std::vector<char>>; // [training][rank]

/// No guard explains which ranks do an action; `smallest_only` when only the smallest count has it.
class StructureError : public Error {
public:
  StructureError(const std::string& what, bool smallest_only) : Error(what), smallest_only(smallest_only) {}
  bool smallest_only;
};

// ---- reading

bool p2p_peer(const Action& a, std::vector<int>& peers)
{
  peers.clear();
  switch (a.type) {
  case ActionType::Send:
  case ActionType::Isend:
  case ActionType::Ssend:
  case ActionType::Issend:
  case ActionType::Recv:
  case ActionType::Irecv: peers.push_back(a.partner); break;
  case ActionType::SendRecv:
    peers.push_back(a.partner);
    peers.push_back(a.partner2);
    break;
  default: return false;
  }
  return true;
}

void read_training(Training& t, const ModelBuildOptions& options)
{
  TraceIndex index = read_trace_index(t.index);
  t.procs = index.ranks();
  if (auto scale = options.compute_scale.find(t.trace); scale != options.compute_scale.end())
    index.compute_scale = scale->second;
  TraceSource source(index);
  t.ranks.resize(static_cast<std::size_t>(t.procs));
  std::vector<int> peers;
  // a split that every rank makes with one color, keys in rank order, is a duplicate of its parent: read as one,
  // once every rank's splits are known to be
  struct Split {
    int rank;
    std::size_t ordinal;
    int color, key;
    std::string path;
    std::uint32_t line;
  };
  std::vector<Split> splits;
  for (int r = 0; r < t.procs; ++r) {
    throw_if_interrupted();
    auto reader = source.open_rank(r);
    LoopFolder folder;
    Action a;
    std::size_t ordinal = 0;
    while (reader->next(a)) {
      if (a.type == ActionType::CommSplit && a.tag > 0) {
        splits.push_back({r, ordinal++, a.color, a.key, reader->path(), a.line});
        a.type = ActionType::CommDup;
      }
      if (a.type == ActionType::LoopBegin || a.type == ActionType::LoopEnd)
        fail_at(reader->path(), a.line, "loop blocks of a synthetic trace cannot be learned from (give traces of "
                                        "runs)");
      if (p2p_peer(a, peers))
        for (int p : peers)
          if (p >= 0 && p != r)
            t.pairs.insert({r, p});
          else if (p == r)
            t.self_messages = true;
      folder.add(a);
    }
    t.ranks[static_cast<std::size_t>(r)].folded = folder.finish();
    t.ranks[static_cast<std::size_t>(r)].path = reader->path();
  }
  std::stable_sort(splits.begin(), splits.end(),
                   [](const Split& x, const Split& y) { return x.ordinal != y.ordinal ? x.ordinal < y.ordinal : x.rank < y.rank; });
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const Split& x = splits[i];
    const Split& first = splits[i - (i % static_cast<std::size_t>(t.procs))];
    bool every_rank = splits.size() % static_cast<std::size_t>(t.procs) == 0 && x.rank == static_cast<int>(i % static_cast<std::size_t>(t.procs)) &&
                      x.ordinal == first.ordinal;
    bool duplicate = every_rank && x.color >= 0 && x.color == first.color && (x.rank == 0 || x.key >= splits[i - 1].key);
    if (!duplicate)
      fail_at(x.path, x.line,
              "comm_split: communicators split by color are not modelled yet (the application model takes "
              "MPI_COMM_WORLD and its duplicates; a split is one when every rank makes it with one color and keys "
              "in rank order, and this one is not)");
  }
  if (options.progress)
    options.progress(fmt::format("read {} ({} processes)", t.trace, t.procs));
}

// ---- the process grid

struct GridScore {
  std::size_t offsets = 0;
  long long distance = 0;
  auto key() const { return std::make_pair(offsets, distance); }
};

std::vector<int> pair_offset(int r, int v, const ProcessGrid& g)
{
  // a periodic axis reads a difference the other way round only where that is shorter: a side of 2 (or any
  // difference within half the side) reads as on a grid without wraps, so wraps are only assumed where seen
  std::vector<int> cr = g.coordinates(r), cv = g.coordinates(v), o(g.dims.size());
  for (std::size_t i = 0; i < o.size(); ++i) {
    int d = cv[i] - cr[i];
    int side = g.dims[i];
    if (g.periodic[i] && 2 * std::abs(d) > side)
      d += d > 0 ? -side : side;
    o[i] = d;
  }
  return o;
}

GridScore score_grid(const GridRule& rule, const std::vector<Training>& ts)
{
  std::set<std::vector<int>> offsets;
  for (const Training& t : ts) {
    ProcessGrid g = rule.at(t.procs);
    if (g.procs() != t.procs)
      return {~std::size_t{0}, 0};
    for (const auto& [r, v] : t.pairs)
      offsets.insert(pair_offset(r, v, g));
    // a rank's messages to itself are a wrap around a side of 1 on a periodic grid; any other reading needs them
    // explained apart (one more kind of partner)
    bool wraps_onto_itself = false;
    for (std::size_t i = 0; i < g.dims.size(); ++i)
      wraps_onto_itself = wraps_onto_itself || (g.periodic[i] && g.dims[i] == 1);
    if (t.self_messages && !wraps_onto_itself)
      offsets.insert(std::vector<int>{});
  }
  GridScore s;
  s.offsets = offsets.size();
  for (const auto& o : offsets)
    for (int d : o)
      s.distance += std::abs(d);
  return s;
}

std::vector<GridRule> default_grid_rules()
{
  std::vector<GridRule> rules;
  for (int d = 1; d <= 3; ++d)
    for (int periodic = 0; periodic < 2; ++periodic)
      for (int transposed = 0; transposed < (d > 1 ? 2 : 1); ++transposed) {
        GridRule r;
        r.dimensions = d;
        r.periodic = periodic;
        r.transposed = transposed;
        rules.push_back(r);
      }
  // a line of ranks (2 processes, a prime count) on each other axis: a code's own decomposition may lay it where
  // its other counts' grids would not; these come last, so that a tie goes to the rule's own order
  std::size_t base = rules.size();
  for (std::size_t i = 0; i < base; ++i) {
    int own = rules[i].transposed ? rules[i].dimensions - 1 : 0;
    for (int axis = 0; axis < rules[i].dimensions; ++axis)
      if (axis != own) {
        GridRule r = rules[i];
        r.line_axis = axis;
        rules.push_back(r);
      }
  }
  return rules;
}

bool same_grids(const GridRule& a, const GridRule& b, const std::vector<Training>& ts)
{
  for (const Training& t : ts) {
    ProcessGrid x = a.at(t.procs), y = b.at(t.procs);
    if (x.dims != y.dims || x.periodic != y.periodic)
      return false;
  }
  return true;
}

/// The grid rules ranked by their score; `tied` holds those sharing the best score, the best first: readings the
/// partners cannot tell apart.
struct GridRanking {
  std::vector<GridRule> rules;
  std::vector<GridScore> scores;
  std::vector<std::size_t> tied;
};

GridRanking rank_grids(const std::vector<Training>& ts, const ModelBuildOptions& options)
{
  GridRanking g;
  g.rules = options.grids.empty() ? default_grid_rules() : options.grids;
  std::size_t best = 0;
  for (std::size_t i = 0; i < g.rules.size(); ++i) {
    g.scores.push_back(score_grid(g.rules[i], ts));
    if (g.scores[i].key() < g.scores[best].key())
      best = i;
  }
  if (g.scores[best].offsets == ~std::size_t{0})
    throw Error(fmt::format("the grid {} does not hold the training counts' processes", g.rules[best].describe()));
  g.tied.push_back(best);
  for (std::size_t i = 0; i < g.rules.size(); ++i)
    if (i != best && g.scores[i].key() == g.scores[best].key() &&
        std::none_of(g.tied.begin(), g.tied.end(), [&](std::size_t j) { return same_grids(g.rules[j], g.rules[i], ts); }))
      g.tied.push_back(i); // a rule giving every training count the grid of one tied before it reads them alike
  return g;
}

/// Gives every training count the grid of rule `pick` and says what the partners could not settle about it.
GridRule apply_grid(std::vector<Training>& ts, const GridRanking& g, std::size_t pick, const ModelBuildOptions& options,
                    std::vector<std::string>& notes)
{
  bool any_pairs = false;
  for (const Training& t : ts)
    any_pairs = any_pairs || !t.pairs.empty();
  const GridRule& chosen = g.rules[pick];
  if (options.grids.empty() && any_pairs) {
    // another reading the runs cannot tell apart
    for (std::size_t i : g.tied)
      if (i != pick) {
        const GridRule& other = g.rules[i];
        if (other.dimensions == chosen.dimensions && other.periodic != chosen.periodic &&
            other.transposed == chosen.transposed) {
          notes.push_back(fmt::format(
              "the training grids cannot tell whether the process grid wraps around (no side longer than 2 "
              "carries a wrap): assumed {}; give --grid dims_create:{}{}{} if it does",
              chosen.periodic ? "periodic" : "not periodic", chosen.dimensions, chosen.periodic ? "" : ":periodic",
              chosen.transposed ? ":transposed" : ""));
          break;
        }
        if (other.dimensions != chosen.dimensions) {
          notes.push_back(fmt::format("the partners fit a {}-D grid as well as the {}-D grid assumed; give --grid "
                                      "dims_create:D to choose",
                                      other.dimensions, chosen.dimensions));
          break;
        }
      }
  }
  for (Training& t : ts)
    t.grid = chosen.at(t.procs);
  return chosen;
}

// ---- references

std::vector<RankRef> candidates(int v, int r, int n, const ProcessGrid& g)
{
  std::vector<RankRef> out;
  if (v == kAnySource) {
    out.push_back({RankRef::Kind::AnySource, 0, {}});
    return out;
  }
  if (v == kLastSource) {
    out.push_back({RankRef::Kind::LastSource, 0, {}});
    return out;
  }
  if (v == r)
    out.push_back({RankRef::Kind::Self, 0, {}});
  // offsets on the grid that reach v from r
  std::vector<int> cr = g.coordinates(r), cv = g.coordinates(v);
  std::vector<std::vector<int>> axis(g.dims.size());
  bool reachable = true;
  for (std::size_t i = 0; i < g.dims.size(); ++i) {
    for (int o = -kReach; o <= kReach; ++o) {
      int c = cr[i] + o;
      if (g.periodic[i])
        c = ((c % g.dims[i]) + g.dims[i]) % g.dims[i];
      if (c == cv[i])
        axis[i].push_back(o);
    }
    reachable = reachable && !axis[i].empty();
  }
  if (reachable) {
    std::vector<std::vector<int>> offsets{{}};
    for (const auto& values : axis) {
      std::vector<std::vector<int>> next;
      for (const auto& prefix : offsets)
        for (int o : values) {
          auto p = prefix;
          p.push_back(o);
          next.push_back(std::move(p));
        }
      offsets = std::move(next);
    }
    auto l1 = [](const std::vector<int>& o) {
      int s = 0;
      for (int d : o)
        s += std::abs(d);
      return s;
    };
    std::stable_sort(offsets.begin(), offsets.end(), [&](const auto& a, const auto& b) {
      return l1(a) != l1(b) ? l1(a) < l1(b) : a < b;
    });
    for (const auto& o : offsets)
      if (l1(o) > 0)
        out.push_back({RankRef::Kind::Offset, 0, o});
  }
  out.push_back({RankRef::Kind::Fixed, v, {}});
  out.push_back({RankRef::Kind::FromLast, n - 1 - v, {}});
  return out;
}

std::vector<RankRef> intersect(const std::vector<RankRef>& a, const std::vector<RankRef>& b)
{
  std::vector<RankRef> out;
  for (const RankRef& x : a)
    if (std::find(b.begin(), b.end(), x) != b.end())
      out.push_back(x);
  return out;
}

bool is_slot(const FoldNode& f) { return !f.loop && f.action.type == ActionType::Compute; }

void abstract(const FoldNode& f, int t, int r, const Training& tr, std::vector<ANode>& out);

// A sequence's collectives are numbered per communicator: every rank calls them in one order (MPI's rule), so
// the k-th collective of one rank's sequence can only be the k-th of another's.
void abstract_sequence(const std::vector<FoldNode>& nodes, int t, int r, const Training& tr, std::vector<ANode>& out)
{
  std::map<int, int> ordinal;
  for (const FoldNode& f : nodes) {
    std::size_t before = out.size();
    abstract(f, t, r, tr, out);
    for (std::size_t k = before; k < out.size(); ++k)
      if (!out[k].loop && is_collective(out[k].type))
        out[k].collective = ordinal[out[k].comm]++;
  }
}

void abstract(const FoldNode& f, int t, int r, const Training& tr, std::vector<ANode>& out)
{
  ANode a;
  if (f.loop) {
    a.loop = true;
    a.obs.push_back({t, r, {}, f.iterations, 0});
    abstract_sequence(f.body, t, r, tr, a.body);
    out.push_back(std::move(a));
    return;
  }
  const Action& x = f.action;
  a.type = x.type;
  a.obs.push_back({t, r, f.sums, 0, x.line});
  if (is_slot(f)) {
    out.push_back(std::move(a));
    return;
  }
  a.nonblocking = x.nonblocking;
  a.tag = x.tag;
  a.comm = x.comm;
  a.has_counts = !x.send_counts.empty() || !x.recv_counts.empty();
  a.has_partner = has_rank_partner(x.type);
  a.has_partner2 = has_rank_partner2(x.type);
  std::vector<int> peers;
  if (p2p_peer(x, peers)) {
    a.peer = peers[0];
    a.peer2 = peers.size() > 1 ? peers[1] : peers[0];
  }
  if (a.has_partner)
    a.cands = candidates(x.partner, r, tr.procs, tr.grid);
  if (a.has_partner2)
    a.cands2 = candidates(x.partner2, r, tr.procs, tr.grid);
  out.push_back(std::move(a));
}

// ---- the hypercube reading

// the dimension k of a point-to-point action whose partner is the rank with bit k flipped, or -1
int flip_dimension(const ANode& a, int r)
{
  if (a.loop || !is_point_to_point(a.type) || a.peer < 0 || a.peer2 != a.peer || a.peer == r || a.has_counts)
    return -1;
  unsigned x = static_cast<unsigned>(a.peer ^ r);
  if ((x & (x - 1)) != 0)
    return -1;
  int k = 0;
  while ((1u << k) != x)
    ++k;
  return k;
}

bool empty_slot(const ANode& a) { return !a.loop && a.type == ActionType::Compute && a.obs.front().sums.value == 0; }

// Runs of point-to-point actions (empty compute slots between them) whose partners flip one bit of the rank, the
// bit rising from 0 a step at a time (a binomial tree's reduction, a butterfly) or falling to 0 (a tree's
// broadcast), become one loop over the hypercube's dimensions: such a run's length grows with log2 n, which no
// grid offset follows.
void fold_hypercube(std::vector<ANode>& seq, int t, int r)
{
  for (ANode& a : seq)
    if (a.loop && a.dims == 0)
      fold_hypercube(a.body, t, r);
  std::vector<ANode> out;
  for (std::size_t i = 0; i < seq.size();) {
    int k0 = flip_dimension(seq[i], r);
    if (k0 < 0) {
      out.push_back(std::move(seq[i++]));
      continue;
    }
    int cur = k0, dir = 0;
    std::size_t j = i, end = i;
    std::vector<std::pair<std::size_t, int>> steps; // node index, k
    while (j < seq.size()) {
      int k = flip_dimension(seq[j], r);
      if (k < 0)
        break;
      if (k == cur + 1 && dir >= 0)
        dir = 1;
      else if (k == cur - 1 && dir <= 0)
        dir = -1;
      else if (k != cur)
        break;
      cur = k;
      steps.push_back({j, k});
      end = ++j;
      if (j < seq.size() && empty_slot(seq[j]) && j + 1 < seq.size() && flip_dimension(seq[j + 1], r) >= 0)
        ++j; // an empty slot between two steps
    }
    bool ascending = dir > 0 && k0 == 0, descending = dir < 0 && cur == 0, either = dir == 0 && k0 == 0;
    if (!ascending && !descending && !either) {
      out.push_back(std::move(seq[i++]));
      continue;
    }
    ANode d;
    d.loop = true;
    d.dims = ascending ? 1 : descending ? -1 : 2;
    d.obs.push_back({t, r, {}, 0, seq[i].obs.front().line});
    for (auto [at, k] : steps) {
      const ANode& a = seq[at];
      ANode::Kind kind{a.type, a.nonblocking, a.tag, a.comm};
      auto it = std::find(d.kinds.begin(), d.kinds.end(), kind);
      std::size_t q = static_cast<std::size_t>(it - d.kinds.begin());
      if (it == d.kinds.end())
        d.kinds.push_back(kind);
      const FoldSums& x = a.obs.front().sums;
      double n = x.instances > 0 ? x.instances : 1;
      d.events.push_back({t, r, k, q, x.bytes / n, x.recv_bytes / n});
    }
    out.push_back(std::move(d));
    i = end;
  }
  seq = std::move(out);
}

// ---- alignment

bool compatible(const ANode& x, const ANode& y)
{
  if (x.loop || y.loop || x.type != y.type || x.nonblocking != y.nonblocking || x.tag != y.tag ||
      x.comm != y.comm || x.has_counts != y.has_counts || x.collective != y.collective)
    return false;
  if (x.has_partner && intersect(x.cands, y.cands).empty())
    return false;
  if (x.has_partner2 && intersect(x.cands2, y.cands2).empty())
    return false;
  return true;
}

int align(const std::vector<ANode>& a, const std::vector<ANode>& b, std::vector<std::pair<std::size_t, std::size_t>>* pairs);

bool is_slot(const ANode& a) { return !a.loop && a.type == ActionType::Compute; }

// whether two candidate lists share a reference relative to the rank (itself, a grid offset)
bool share_relative(const std::vector<RankRef>& a, const std::vector<RankRef>& b)
{
  for (const RankRef& r : intersect(a, b))
    if (r.kind == RankRef::Kind::Self || r.kind == RankRef::Kind::Offset)
      return true;
  return false;
}

// Actions and loops align; a compute slot goes with the action after it (merge() pairs them), so slots never
// anchor an alignment of their own. Two actions whose partners agree only as a fixed rank (three neighbours of
// rank 0, each in its own direction) weigh less than two whose partners keep one grid offset.
int pair_score(const ANode& x, const ANode& y)
{
  if (x.loop != y.loop)
    return 0;
  if (x.dims != 0 || y.dims != 0) // hypercube loops align with each other, in one order or where either holds
    return x.dims != 0 && y.dims != 0 && (x.dims == y.dims || x.dims == 2 || y.dims == 2) ? 8 : 0;
  if (!x.loop) {
    if (is_slot(x) || !compatible(x, y))
      return 0;
    bool relative = (!x.has_partner || share_relative(x.cands, y.cands) ||
                     x.cands.front().kind == RankRef::Kind::AnySource) &&
                    (!x.has_partner2 || share_relative(x.cands2, y.cands2));
    return relative ? 4 : 1;
  }
  int s = align(x.body, y.body, nullptr);
  return s > 0 ? 4 + s : 0;
}

// weighted longest common subsequence; fills pairs (in order) when given
int align(const std::vector<ANode>& a, const std::vector<ANode>& b, std::vector<std::pair<std::size_t, std::size_t>>* pairs)
{
  std::size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0)
    return 0;
  if (n * m > kMaxAlignCells)
    throw Error(fmt::format("a rank's actions do not fold into loops enough to be aligned ({} and {} steps); the "
                            "application model needs a program whose ranks repeat a pattern",
                            n, m));
  std::vector<int> w(n * m), dp((n + 1) * (m + 1), 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      w[i * m + j] = pair_score(a[i], b[j]);
  auto D = [&](std::size_t i, std::size_t j) -> int& { return dp[i * (m + 1) + j]; };
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      int best = std::max(D(i - 1, j), D(i, j - 1));
      int s = w[(i - 1) * m + (j - 1)];
      if (s > 0)
        best = std::max(best, D(i - 1, j - 1) + s);
      D(i, j) = best;
    }
  if (pairs) {
    pairs->clear();
    std::size_t i = n, j = m;
    while (i > 0 && j > 0) {
      int s = w[(i - 1) * m + (j - 1)];
      if (s > 0 && D(i, j) == D(i - 1, j - 1) + s) {
        pairs->push_back({i - 1, j - 1});
        --i, --j;
      } else if (D(i - 1, j) >= D(i, j - 1))
        --i;
      else
        --j;
    }
    std::reverse(pairs->begin(), pairs->end());
  }
  return D(n, m);
}

std::vector<ANode> merge(std::vector<ANode> t, std::vector<ANode> s);

void merge_node(ANode& into, ANode&& from)
{
  if (into.dims != 0) {
    if (into.dims == 2)
      into.dims = from.dims;
    for (ANode::Event e : from.events) {
      const ANode::Kind& kind = from.kinds[e.kind];
      auto it = std::find(into.kinds.begin(), into.kinds.end(), kind);
      e.kind = static_cast<std::size_t>(it - into.kinds.begin());
      if (it == into.kinds.end())
        into.kinds.push_back(kind);
      into.events.push_back(e);
    }
    for (Obs& o : from.obs)
      into.obs.push_back(o);
    return;
  }
  if (into.has_partner)
    into.cands = intersect(into.cands, from.cands);
  if (into.has_partner2)
    into.cands2 = intersect(into.cands2, from.cands2);
  for (Obs& o : from.obs)
    into.obs.push_back(o);
  if (into.loop)
    into.body = merge(std::move(into.body), std::move(from.body));
}

// the direction of an action to a grid neighbour, to order actions no rank showed together
const std::vector<int>* direction(const ANode& a)
{
  if (a.loop || !a.has_partner || a.cands.empty() || a.cands.front().kind != RankRef::Kind::Offset)
    return nullptr;
  return &a.cands.front().offset;
}

thread_local bool unordered_gaps = false; // set when a merge met such a gap (reset per build)

// Appends the items between two matches. Items of the template and of the new rank there were never seen on one
// rank, so their order is unknown; it is taken by direction, the negative one first along an axis (MPI_Cart_shift
// names the source -1 and the destination +1, and codes loop over them in that order), else the template's first.
void append_gap(std::vector<ANode>& out, std::vector<ANode>& t, std::size_t i, std::size_t ti, std::vector<ANode>& s,
                std::size_t j, std::size_t sj)
{
  auto actions = [](const std::vector<ANode>& v, std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b; ++k)
      if (v[k].loop || v[k].type != ActionType::Compute)
        return true;
    return false;
  };
  bool both = actions(t, i, ti) && actions(s, j, sj);
  if (both)
    unordered_gaps = true;
  // each side's items stay together (a rank's own run of actions), the side of the lesser direction first
  auto first_direction = [](const std::vector<ANode>& v, std::size_t a, std::size_t b) -> const std::vector<int>* {
    for (std::size_t k = a; k < b; ++k)
      if (const std::vector<int>* d = direction(v[k]))
        return d;
    return nullptr;
  };
  const std::vector<int>* dt = both ? first_direction(t, i, ti) : nullptr;
  const std::vector<int>* ds = both ? first_direction(s, j, sj) : nullptr;
  bool s_first = dt && ds && dt->size() == ds->size() && *ds < *dt;
  for (int side = 0; side < 2; ++side)
    if ((side == 0) != s_first)
      while (i < ti)
        out.push_back(std::move(t[i++]));
    else
      while (j < sj)
        out.push_back(std::move(s[j++]));
}

void scale_obs(ANode& a, double factor)
{
  for (Obs& o : a.obs) {
    FoldSums& x = o.sums;
    x.instances *= factor, x.value *= factor, x.bytes *= factor, x.recv_bytes *= factor, x.peer_bytes *= factor;
  }
  for (ANode& c : a.body)
    scale_obs(c, factor);
}

// A loop whose body repeats itself (three identical waits per iteration at one process, where nothing tells them
// apart) folds at a shorter period than at the other counts: 300 iterations of one wait, not 100 of three. A loop of
// the new rank whose iterations are a multiple k of a template loop's is read at the template's period: its body
// k times, its iterations divided by k.
void match_periods(const std::vector<ANode>& t, std::vector<ANode>& s)
{
  std::vector<std::uint64_t> periods;
  for (const ANode& a : t)
    if (a.loop && !a.obs.empty() && a.obs.front().iterations > 0)
      periods.push_back(a.obs.front().iterations);
  for (ANode& a : s) {
    if (!a.loop || a.obs.size() != 1)
      continue;
    std::uint64_t it = a.obs.front().iterations;
    bool same = std::find(periods.begin(), periods.end(), it) != periods.end();
    for (std::uint64_t p : periods) {
      if (same || p == 0 || it <= p || it % p != 0 || a.body.size() * (it / p) > LoopFolder::kUnrollNodes)
        continue;
      std::uint64_t k = it / p;
      std::vector<ANode> body;
      for (std::uint64_t c = 0; c < k; ++c)
        for (const ANode& b : a.body) {
          ANode copy = b;
          scale_obs(copy, 1.0 / static_cast<double>(k));
          body.push_back(std::move(copy));
        }
      a.body = std::move(body);
      a.obs.front().iterations = p;
      break;
    }
  }
}

std::vector<ANode> merge(std::vector<ANode> t, std::vector<ANode> s)
{
  match_periods(t, s);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  align(t, s, &pairs);
  std::vector<ANode> out;
  std::size_t i = 0, j = 0;
  // the slots before two matched nodes (or at both ends) are one slot
  auto slot_pair = [&](std::size_t ti, std::size_t sj) {
    bool tb = ti > i && is_slot(t[ti - 1]), sb = sj > j && is_slot(s[sj - 1]);
    append_gap(out, t, i, tb ? ti - 1 : ti, s, j, sb ? sj - 1 : sj);
    if (tb && sb) {
      merge_node(t[ti - 1], std::move(s[sj - 1]));
      out.push_back(std::move(t[ti - 1]));
    } else if (tb)
      out.push_back(std::move(t[ti - 1]));
    else if (sb)
      out.push_back(std::move(s[sj - 1]));
  };
  for (auto [pi, pj] : pairs) {
    slot_pair(pi, pj);
    merge_node(t[pi], std::move(s[pj]));
    out.push_back(std::move(t[pi]));
    i = pi + 1, j = pj + 1;
  }
  // the slots that end both sequences
  bool te = t.size() > i && is_slot(t.back()), se = s.size() > j && is_slot(s.back());
  if (te && se) {
    append_gap(out, t, i, t.size() - 1, s, j, s.size() - 1);
    merge_node(t.back(), std::move(s.back()));
    out.push_back(std::move(t.back()));
  } else
    append_gap(out, t, i, t.size(), s, j, s.size());
  return out;
}

// ---- computation of ranks without some actions

using RankKey = std::pair<int, int>; // (training, rank)

std::vector<std::set<RankKey>> presence_sets(const std::vector<ANode>& body)
{
  std::vector<std::set<RankKey>> p(body.size());
  for (std::size_t i = 0; i < body.size(); ++i)
    for (const Obs& o : body[i].obs)
      p[i].insert({o.t, o.rank});
  return p;
}

// the action (or loop) before node i in its body, or npos
std::size_t previous_action(const std::vector<ANode>& body, std::size_t i)
{
  while (i-- > 0)
    if (!is_slot(body[i]))
      return i;
  return std::string::npos;
}

double per_instance(const Obs& o) { return o.sums.instances > 0 ? o.sums.value / o.sums.instances : 0; }

// whether a slot's instance at a rank measures one gap: the rank also did the action before the slot
bool clean(const std::vector<std::set<RankKey>>& p, std::size_t prev, const Obs& o)
{
  return prev == std::string::npos || p[prev].count({o.t, o.rank}) > 0;
}

// A rank that lacks an action (an edge rank's missing neighbour, a pipeline's last stage) runs the computation of
// the gaps around it together into the slot before its next action. Within a body, that computation moves to the
// slot of the gaps it spans where the ranks that measure one gap there compute most: where the code computes.
void relocate_computation(std::vector<ANode>& body)
{
  for (ANode& n : body)
    if (n.loop)
      relocate_computation(n.body);
  std::vector<std::set<RankKey>> p = presence_sets(body);
  std::vector<double> mean(body.size(), 0);
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (!is_slot(body[i]))
      continue;
    std::size_t prev = previous_action(body, i);
    double sum = 0;
    int k = 0;
    for (const Obs& o : body[i].obs)
      if (clean(p, prev, o))
        sum += per_instance(o), ++k;
    mean[i] = k > 0 ? sum / k : 0;
  }
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (!is_slot(body[i]))
      continue;
    std::size_t prev = previous_action(body, i);
    std::vector<Obs> keep;
    for (const Obs& o : body[i].obs) {
      if (clean(p, prev, o)) {
        keep.push_back(o);
        continue;
      }
      // the slots back to the rank's previous action in this body
      std::size_t best = i;
      for (std::size_t j = i; j-- > 0;) {
        if (!is_slot(body[j])) {
          if (p[j].count({o.t, o.rank}))
            break;
          continue;
        }
        if (mean[j] > mean[best])
          best = j;
      }
      if (best == i)
        keep.push_back(o);
      else
        body[best].obs.push_back(o);
    }
    body[i].obs = std::move(keep);
  }
}

// A loop turned at one count and not at the others (its computation last in the 1-process run's body, first in
// the rest) leaves one computation in two slots, its body's first and last, each seen at counts the other never
// is. Computation is conserved per iteration, so the two are one: the slot seen at fewer counts joins the other.
void join_rotated_slots(std::vector<ANode>& body, bool in_loop)
{
  for (ANode& n : body)
    if (n.loop)
      join_rotated_slots(n.body, true);
  if (!in_loop || body.size() < 3 || !is_slot(body.front()) || !is_slot(body.back()))
    return;
  auto counts = [](const ANode& a) {
    std::set<int> ts;
    for (const Obs& o : a.obs)
      ts.insert(o.t);
    return ts;
  };
  std::set<int> first = counts(body.front()), last = counts(body.back());
  if (first.empty() || last.empty() ||
      std::any_of(first.begin(), first.end(), [&](int t) { return last.count(t) > 0; }))
    return;
  ANode& keep = first.size() >= last.size() ? body.front() : body.back();
  ANode& join = first.size() >= last.size() ? body.back() : body.front();
  for (Obs& o : join.obs)
    keep.obs.push_back(o);
  join.obs.clear();
  if (&join == &body.back())
    body.pop_back();
  else
    body.erase(body.begin());
}

std::size_t leaves(const std::vector<FoldNode>& nodes)
{
  std::size_t n = 0;
  for (const FoldNode& f : nodes)
    n += f.loop ? leaves(f.body) : (f.action.type == ActionType::Compute ? 0 : 1);
  return n;
}

// ---- guards and laws

struct Resolver {
  const std::vector<Training>& ts;
  std::vector<std::string>& notes;
  double worst_compute_spread = 0;
  std::vector<int> held_out; ///< ModelBuildOptions::law_held_out

  Presence empty() const
  {
    Presence p(ts.size());
    for (std::size_t t = 0; t < ts.size(); ++t)
      p[t].assign(static_cast<std::size_t>(ts[t].procs), 0);
    return p;
  }
  Presence presence(const ANode& a) const
  {
    Presence p = empty();
    for (const Obs& o : a.obs)
      p[static_cast<std::size_t>(o.t)][static_cast<std::size_t>(o.rank)] = 1;
    return p;
  }
  std::string where(const ANode& a) const
  {
    // the first instance in the largest training trace
    const Obs* best = nullptr;
    for (const Obs& o : a.obs)
      if (!best || o.t > best->t || (o.t == best->t && o.rank < best->rank))
        best = &o;
    if (!best)
      return "";
    const std::string& path = ts[static_cast<std::size_t>(best->t)].ranks[static_cast<std::size_t>(best->rank)].path;
    return best->line > 0 ? fmt::format("{}:{}", path, best->line) : path;
  }

  bool explains(const Guard& g, const ModelNode& m, const Presence& domain, const Presence& present) const
  {
    for (std::size_t t = 0; t < ts.size(); ++t)
      for (std::size_t r = 0; r < domain[t].size(); ++r)
        if (domain[t][r] && guard_admits(g, m, static_cast<int>(r), ts[t].procs, ts[t].grid) != bool(present[t][r]))
          return false;
    return true;
  }

  std::vector<Guard> guard_candidates(const ModelNode& m, const Presence& domain, const Presence& present,
                                      const std::vector<std::vector<int>>& body_offsets) const
  {
    std::vector<Guard> out;
    bool offsets = (m.has_partner && m.partner.kind == RankRef::Kind::Offset) ||
                   (m.has_partner2 && m.partner2.kind == RankRef::Kind::Offset);
    int first = 0, smallest_domain = 0;
    std::vector<int> only, except_; // per training count: the one rank doing it, or the one not doing it (-1: none)
    bool one_only = true, one_except = true;
    for (std::size_t t = 0; t < ts.size(); ++t) {
      int in = 0, out_ = 0, in_rank = -1, out_rank = -1, dom = 0;
      for (std::size_t r = 0; r < domain[t].size(); ++r) {
        if (!domain[t][r])
          continue;
        ++dom;
        if (present[t][r])
          ++in, in_rank = static_cast<int>(r);
        else
          ++out_, out_rank = static_cast<int>(r);
      }
      if (dom == 0)
        continue;
      if (smallest_domain == 0)
        smallest_domain = ts[t].procs;
      if (in > 0 && first == 0)
        first = ts[t].procs;
      if (in > 0) {
        one_only = one_only && in == 1;
        only.push_back(in == 1 ? in_rank : -1);
        one_except = one_except && out_ <= 1;
        except_.push_back(out_ == 1 ? out_rank : -1);
      }
    }
    std::vector<int> mins{0};
    if (first > smallest_domain)
      mins.push_back(first);
    std::vector<std::pair<Guard::RankRule, RankRef>> rules{{Guard::RankRule::Any, {}}};
    // a rank rule holds at every count where the node is done, as one fixed rank or one counted from the last
    auto rank_rules = [&](Guard::RankRule rule, const std::vector<int>& ranks) {
      std::vector<std::size_t> ts_in;
      for (std::size_t t = 0; t < ts.size(); ++t)
        ts_in.push_back(t);
      std::set<int> fixed, from_last;
      std::size_t k = 0;
      for (std::size_t t = 0; t < ts.size() && k < ranks.size(); ++t) {
        bool any = false;
        for (std::size_t r = 0; r < present[t].size(); ++r)
          any = any || present[t][r];
        if (!any)
          continue;
        int rank = ranks[k++];
        if (rank < 0)
          return;
        fixed.insert(rank);
        from_last.insert(ts[t].procs - 1 - rank);
      }
      if (fixed.size() == 1)
        rules.push_back({rule, {RankRef::Kind::Fixed, *fixed.begin(), {}}});
      if (from_last.size() == 1)
        rules.push_back({rule, {RankRef::Kind::FromLast, *from_last.begin(), {}}});
    };
    if (one_only)
      rank_rules(Guard::RankRule::Only, only);
    if (one_except)
      rank_rules(Guard::RankRule::Except, except_);
    for (const auto& [rule, ref] : rules)
      for (int neighbours = 0; neighbours < (offsets ? 2 : 1); ++neighbours)
        for (int mp : mins) {
          Guard g;
          g.rank_rule = rule;
          g.rank = ref;
          g.neighbours = neighbours;
          g.min_procs = mp;
          out.push_back(g);
        }
    // the k-th of a run of like actions, one per neighbour the rank has among its body's grid offsets
    for (std::size_t k = 1; k <= body_offsets.size(); ++k) {
      Guard g;
      g.min_neighbours = static_cast<int>(k);
      g.offsets = body_offsets;
      out.push_back(g);
    }
    return out;
  }

  [[noreturn]] void unexplained(const ANode& a, const Presence& domain, const Presence& present) const
  {
    std::string by;
    for (std::size_t t = 0; t < ts.size(); ++t) {
      std::string ranks;
      int in = 0, dom = 0;
      for (std::size_t r = 0; r < domain[t].size(); ++r) {
        dom += domain[t][r];
        if (domain[t][r] && present[t][r]) {
          if (in < 6)
            ranks += (ranks.empty() ? "" : " ") + std::to_string(r);
          ++in;
        }
      }
      if (dom == 0)
        continue;
      by += fmt::format("; at {} processes {}", ts[t].procs,
                        in == 0 ? std::string("none") : in == dom ? std::string("all") : ranks + (in > 6 ? " ..." : ""));
    }
    Action x;
    x.type = a.type;
    x.nonblocking = a.nonblocking;
    bool smallest_only = true;
    for (std::size_t t = 0; t < ts.size(); ++t)
      for (std::size_t r = 0; r < present[t].size(); ++r)
        smallest_only = smallest_only && (t == 0 || !present[t][r]);
    throw StructureError(fmt::format("{}: '{}'{} is done by ranks that no rule of the model explains (every rank; those "
                            "whose grid partners exist; one rank; from a count on){}: the traces disagree in "
                            "structure (another program or input at some count?)",
                            where(a), action_keyword(x), a.loop ? " loop" : "", by),
                         smallest_only);
  }

  Law finish_law(std::vector<LawPoint> points, bool integer, double spread, const ANode& a) const
  {
    bool with_area = false;
    for (const RankRef* ref : {a.has_partner ? &a.cands.front() : nullptr, a.has_partner2 ? &a.cands2.front() : nullptr})
      if (ref && ref->kind == RankRef::Kind::Offset && ref->offset.size() > 1) {
        with_area = true;
        for (LawPoint& p : points)
          for (const Training& t : ts)
            if (t.procs == p.procs)
              p.area = offset_area(ref->offset, t.grid);
      }
    if (!held_out.empty()) {
      // the held-out counts' observations leave every law, unless they are all it has
      std::vector<LawPoint> kept;
      for (const LawPoint& p : points)
        if (std::find(held_out.begin(), held_out.end(), p.procs) == held_out.end())
          kept.push_back(p);
      if (!kept.empty())
        points = std::move(kept);
    }
    Law law = choose_law(points, integer, with_area);
    law.spread = spread;
    return law;
  }

  void choose_guard(ANode& a, ModelNode& m, const Presence& domain, const Presence& present,
                    const std::vector<std::vector<int>>& body_offsets)
  {
    std::size_t limit = 8;
    std::vector<RankRef> c1 = a.has_partner ? a.cands : std::vector<RankRef>{RankRef{}};
    std::vector<RankRef> c2 = a.has_partner2 ? a.cands2 : std::vector<RankRef>{RankRef{}};
    for (std::size_t x = 0; x < c1.size() && x < limit; ++x)
      for (std::size_t y = 0; y < c2.size() && y < limit; ++y) {
        m.partner = c1[x];
        m.partner2 = c2[y];
        for (const Guard& g : guard_candidates(m, domain, present, body_offsets))
          if (explains(g, m, domain, present)) {
            m.guard = g;
            // the chosen references first, for the laws' areas
            if (a.has_partner)
              std::swap(a.cands[0], a.cands[x]);
            if (a.has_partner2)
              std::swap(a.cands2[0], a.cands2[y]);
            return;
          }
      }
    unexplained(a, domain, present);
  }

  // A hypercube loop's actions, each to the rank with bit k flipped, done where a rule of the rank's bits says
  // (checked at every rank, count and dimension), its sizes laws of n.
  std::vector<ModelNode> resolve_dims(const ANode& a, const Presence& domain) const
  {
    std::vector<ModelNode> out;
    for (std::size_t q = 0; q < a.kinds.size(); ++q) {
      const ANode::Kind& kind = a.kinds[q];
      ModelNode m;
      m.type = kind.type;
      m.nonblocking = kind.nonblocking;
      m.tag = kind.tag;
      m.comm = kind.comm;
      m.has_partner = has_rank_partner(kind.type);
      m.has_partner2 = has_rank_partner2(kind.type);
      m.partner = m.partner2 = RankRef{RankRef::Kind::Flip, 0, {}};
      m.origin = where(a);
      std::set<std::tuple<int, int, int>> did;
      for (const ANode::Event& e : a.events)
        if (e.kind == q)
          did.insert({e.t, e.rank, e.k});
      bool found = false;
      for (Guard::Bits bits : {Guard::Bits::Any, Guard::Bits::LowZero, Guard::Bits::LowestIsK, Guard::Bits::BitZero,
                               Guard::Bits::BitOne}) {
        bool holds = true;
        for (std::size_t t = 0; t < ts.size() && holds; ++t) {
          int n = ts[t].procs, d = hypercube_dimensions(n);
          for (int r = 0; r < n && holds; ++r) {
            if (!domain[t][static_cast<std::size_t>(r)])
              continue;
            for (int k = 0; k < d && holds; ++k) {
              bool done = did.count({static_cast<int>(t), r, k}) > 0;
              bool partner = (r ^ (1 << k)) < n;
              holds = done == (partner && bits_admit(bits, r, k));
            }
          }
        }
        for (const ANode::Event& e : a.events)
          if (e.kind == q && e.k >= hypercube_dimensions(ts[static_cast<std::size_t>(e.t)].procs))
            holds = false;
        if (holds) {
          m.guard.bits = bits;
          found = true;
          break;
        }
      }
      Action x;
      x.type = kind.type;
      x.nonblocking = kind.nonblocking;
      if (!found)
        throw StructureError(fmt::format("{}: '{}' to the rank with bit k flipped is done by ranks that no rule of "
                                         "their bits explains (all; k + 1 lowest bits 0; lowest set bit k; bit k 0; "
                                         "bit k 1)",
                                         where(a), action_keyword(x)),
                             false);
      std::vector<LawPoint> bytes, recv;
      for (std::size_t t = 0; t < ts.size(); ++t) {
        double b = 0, rb = 0, count = 0;
        for (const ANode::Event& e : a.events)
          if (e.kind == q && static_cast<std::size_t>(e.t) == t)
            b += e.bytes, rb += e.recv_bytes, ++count;
        if (count > 0) {
          bytes.push_back({ts[t].procs, 1, b / count});
          recv.push_back({ts[t].procs, 1, rb / count});
        }
      }
      if (has_bytes(kind.type))
        m.bytes = finish_law(bytes, true, 0, a);
      if (has_recv_bytes(kind.type))
        m.recv_bytes = finish_law(recv, true, 0, a);
      out.push_back(std::move(m));
    }
    return out;
  }

  std::vector<ModelNode> resolve(std::vector<ANode>& nodes, const Presence& domain)
  {
    std::vector<ModelNode> out(nodes.size());
    std::vector<Presence> presences;
    auto is_slot = [&](std::size_t i) { return !nodes[i].loop && nodes[i].type == ActionType::Compute; };
    // actions of one kind whose partners no training grid told apart (+1 and -1 on a side of 2) take distinct
    // references, in the order of their candidates (the negative direction first)
    std::map<std::vector<std::string>, std::size_t> seen;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      ANode& a = nodes[i];
      if (a.loop || !a.has_partner || a.cands.size() < 2 || a.cands[1].kind != RankRef::Kind::Offset)
        continue;
      std::vector<std::string> key{std::to_string(static_cast<int>(a.type)), std::to_string(a.tag),
                                   std::to_string(a.comm)};
      for (const RankRef& c : a.cands)
        key.push_back(c.describe());
      // the nearest offsets are the ones no grid told apart; the k-th such action takes the (k mod their number)-th
      std::size_t nearest = 0;
      auto l1 = [](const RankRef& r) {
        int d = 0;
        for (int o : r.offset)
          d += std::abs(o);
        return d;
      };
      while (nearest < a.cands.size() && a.cands[nearest].kind == RankRef::Kind::Offset &&
             l1(a.cands[nearest]) == l1(a.cands[0]))
        ++nearest;
      if (nearest < 2)
        continue;
      std::size_t k = seen[key]++ % nearest;
      if (k > 0)
        std::rotate(a.cands.begin(), a.cands.begin() + static_cast<std::ptrdiff_t>(k),
                    a.cands.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    }
    // a sendrecv that shifts along an axis receives from the opposite neighbour (MPI_Cart_shift's source and
    // destination): where the grid could not tell the two apart, its source is the negated offset of its destination
    for (ANode& a : nodes) {
      if (a.loop || a.type != ActionType::SendRecv || a.cands.empty() || a.cands.front().kind != RankRef::Kind::Offset)
        continue;
      RankRef opposite = a.cands.front();
      for (int& d : opposite.offset)
        d = -d;
      auto it = std::find(a.cands2.begin(), a.cands2.end(), opposite);
      if (it != a.cands2.end())
        std::rotate(a.cands2.begin(), it, it + 1);
    }
    // the grid offsets the body's actions reach, for guards that count a rank's neighbours
    std::vector<std::vector<int>> body_offsets;
    for (const ANode& a : nodes)
      if (!a.loop && a.has_partner && !a.cands.empty() && a.cands.front().kind == RankRef::Kind::Offset &&
          std::find(body_offsets.begin(), body_offsets.end(), a.cands.front().offset) == body_offsets.end())
        body_offsets.push_back(a.cands.front().offset);
    std::sort(body_offsets.begin(), body_offsets.end());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      throw_if_interrupted();
      ANode& a = nodes[i];
      presences.push_back(presence(a));
      if (a.dims != 0) // a hypercube of one process has no dimension: its loop is entered and does nothing
        for (std::size_t t = 0; t < ts.size(); ++t)
          if (hypercube_dimensions(ts[t].procs) == 0)
            std::fill(presences.back()[t].begin(), presences.back()[t].end(), 1);
      ModelNode& m = out[i];
      m.loop = a.loop;
      m.type = a.type;
      m.nonblocking = a.nonblocking;
      m.tag = a.tag;
      m.comm = a.comm;
      m.has_partner = a.has_partner;
      m.has_partner2 = a.has_partner2;
      m.origin = where(a);
      if (!is_slot(i))
        choose_guard(a, m, domain, presences[i], body_offsets);
    }
    std::vector<std::set<RankKey>> sets = presence_sets(nodes); // once per body, for the slots' clean instances
    std::vector<std::uint8_t> zeros_at(nodes.size(), 0);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      ANode& a = nodes[i];
      ModelNode& m = out[i];
      const Presence& present = presences[i];
      bool slot = is_slot(i);
      bool zeros = false;
      // a compute slot goes with the action after it (or, at a body's end, the one before); where neither explains
      // which ranks compute there, every rank computes the mean
      if (slot && present != domain) {
        if (i + 1 < nodes.size() && !is_slot(i + 1) && presences[i + 1] == present)
          m.guard.as = Guard::Sibling::Next;
        else if (i > 0 && !is_slot(i - 1) && presences[i - 1] == present)
          m.guard.as = Guard::Sibling::Previous;
        else
          zeros = true;
      }
      zeros_at[i] = zeros;
      if (a.dims != 0) {
        m.dimensions = a.dims == -1 ? -1 : 1;
        m.body = resolve_dims(a, present);
      } else if (a.loop) {
        std::vector<LawPoint> pts = points_of(a, domain, nullptr, [](const Obs& o) { return double(o.iterations); });
        m.iterations = finish_law(pts, true, spread_, a);
        bool outer = fixed_passes_;
        fixed_passes_ = m.iterations.curve.form == CurveForm::Constant;
        m.body = resolve(a.body, present);
        fixed_passes_ = outer;
      } else {
        using Field = double (*)(const Obs&);
        Field value = [](const Obs& o) { return o.sums.instances > 0 ? o.sums.value / o.sums.instances : 0; };
        Field bytes = [](const Obs& o) { return o.sums.instances > 0 ? o.sums.bytes / o.sums.instances : 0; };
        Field recv = [](const Obs& o) { return o.sums.instances > 0 ? o.sums.recv_bytes / o.sums.instances : 0; };
        Field peer = [](const Obs& o) { return o.sums.instances > 0 ? o.sums.peer_bytes / o.sums.instances : 0; };
        struct Param {
          bool has;
          Field field;
          bool integer;
          Law* law;
          Law RankLaws::*own;
        };
        std::vector<Param> params = {{has_value(a.type), value, false, &m.value, &RankLaws::value},
                                     {has_bytes(a.type), bytes, true, &m.bytes, &RankLaws::bytes},
                                     {has_recv_bytes(a.type), recv, true, &m.recv_bytes, &RankLaws::recv_bytes},
                                     {has_peer_counts(a.type), peer, true, &m.peer_bytes, &RankLaws::peer_bytes}};
        // a slot's computation counts where it measures one gap: the rank did the action before it (relocate_
        // computation moved the rest where it belongs); a count without communication runs every gap together
        ANode context;
        const ANode* from = &a;
        if (slot) {
          std::size_t prev = previous_action(nodes, i);
          context.type = a.type;
          for (const Obs& o : a.obs)
            if (clean(sets, prev, o))
              context.obs.push_back(o);
          if (!context.obs.empty())
            from = &context;
        }
        std::optional<RankRef> one;
        for (const Param& p : params)
          if (p.has && !one)
            one = one_rank(*from, p.field);
        if (one)
          m.one_rank = RankLaws{*one, {}, {}, {}, {}};
        for (const Param& p : params) {
          if (!p.has)
            continue;
          const Presence* present_at = zeros ? &present : nullptr;
          *p.law = finish_law(points_of(*from, domain, present_at, p.field, one, false), p.integer, spread_, a);
          if (one)
            (*m.one_rank).*p.own =
                finish_law(points_of(*from, domain, present_at, p.field, one, true), p.integer, spread_, a);
          if (slot)
            worst_compute_spread = std::max(worst_compute_spread, spread_);
        }
        if (slot && fixed_passes_)
          bound_share(m.value);
        if (a.type == ActionType::Waitall || a.type == ActionType::Testall) {
          m.waits_all_pending = true;
          for (const Obs& o : a.obs)
            m.waits_all_pending = m.waits_all_pending && o.sums.waits_all_pending;
        }
      }
    }
    fit_body_sum(nodes, out, presences, domain, zeros_at);
    borrow_forms(out);
    return out;
  }

  // A computation in a body run as many times at every count is a rank's share of the program's work: beyond the
  // training counts it falls at most as 1/n. Falling faster, the work of all ranks together would shrink as ranks
  // are added; measured, it does so only while a rank's data comes into cache, which ends.
  static void bound_share(Law& law)
  {
    if (law.variable != LawVariable::Procs || law.points.size() < 2)
      return;
    int from = law.points.back().procs;
    double at = law.curve(from);
    for (int k = 1; k <= 20; ++k)
      if (law.curve(from * std::pow(2.0, k)) < at / std::pow(2.0, k) * (1 - 1e-9)) {
        law.shared_from = from; // the bound holds somewhere beyond
        return;
      }
  }

  // A body's computation is the same work per pass whatever the grid, but how it falls among the body's slots
  // depends on which of its actions ran together at each count (a rank's messages to itself folded into one run at
  // one process, a neighbour a rank lacks), so a slot's points can jump between counts where their sum does not.
  // Where the law of the sum forecasts each training count from the smaller ones better than the slots' own laws
  // summed, every slot takes the sum's law times its share of the sum at the largest training count, the one
  // nearest the targets.
  void fit_body_sum(const std::vector<ANode>& nodes, std::vector<ModelNode>& out, const std::vector<Presence>& presences,
                    const Presence& domain, const std::vector<std::uint8_t>& zeros_at) const
  {
    auto fraction = [&](const Presence& p, std::size_t t) {
      std::size_t have = 0, all = 0;
      for (std::size_t r = 0; r < domain[t].size(); ++r)
        all += domain[t][r] != 0, have += domain[t][r] && p[t][r];
      return all > 0 ? static_cast<double>(have) / static_cast<double>(all) : 0.0;
    };
    auto index_of = [&](int procs) {
      for (std::size_t t = 0; t < ts.size(); ++t)
        if (ts[t].procs == procs)
          return t;
      return ts.size();
    };
    // the slots measured at the largest count the laws kept; each slot's share of a rank's pass is its mean
    // times the fraction of the body's ranks that compute there
    int largest = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!nodes[i].loop && nodes[i].type == ActionType::Compute && !out[i].value.points.empty())
        largest = std::max(largest, out[i].value.points.back().procs);
    std::vector<std::size_t> slots;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!nodes[i].loop && nodes[i].type == ActionType::Compute && !out[i].value.points.empty() &&
          out[i].value.points.back().procs == largest)
        slots.push_back(i);
    if (slots.size() < 2)
      return;
    // a count is in the sum where every slot was measured or no rank of it computes there
    std::map<int, double> sum; // procs -> a pass's computation, per rank of the body
    std::map<int, std::size_t> measured;
    std::map<std::pair<std::size_t, int>, double> weight;
    for (std::size_t i : slots)
      for (const LawPoint& p : out[i].value.points) {
        std::size_t t = index_of(p.procs);
        if (t == ts.size())
          return;
        double w = zeros_at[i] ? 1.0 : fraction(presences[i], t);
        weight[{i, p.procs}] = w;
        sum[p.procs] += w * p.value;
        ++measured[p.procs];
      }
    std::vector<LawPoint> points;
    for (const auto& [procs, value] : sum) {
      std::size_t t = index_of(procs), expected = 0;
      for (std::size_t i : slots)
        expected += zeros_at[i] || fraction(presences[i], t) > 0;
      if (measured[procs] == expected)
        points.push_back({procs, 1, value});
    }
    if (points.size() < 3 || !(points.back().value > 0))
      return;
    // forward forecasts of the sum from the smaller counts: by its own law, and by the slots' laws summed
    double error_sum = 0, error_slots = 0;
    int forecasts = 0;
    for (std::size_t j = 2; j < points.size(); ++j) {
      std::vector<LawPoint> before(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(j));
      double actual = points[j].value;
      if (!(actual > 0))
        continue;
      double by_sum = choose_law(before, false, false).at(points[j].procs, 1);
      double by_slots = 0;
      for (std::size_t i : slots) {
        std::vector<LawPoint> own;
        for (const LawPoint& p : out[i].value.points)
          if (p.procs < points[j].procs)
            own.push_back({p.procs, 1, p.value});
        auto w = weight.find({i, points[j].procs});
        if (!own.empty() && w != weight.end())
          by_slots += w->second * choose_law(own, false, false).at(points[j].procs, 1);
      }
      error_sum += std::fabs(by_sum - actual) / actual;
      error_slots += std::fabs(by_slots - actual) / actual;
      ++forecasts;
    }
    if (forecasts == 0 || !(error_sum < error_slots))
      return;
    Law total = choose_law(points, false, false);
    if (!total.validated)
      return;
    if (fixed_passes_)
      bound_share(total);
    double at_largest = points.back().value;
    for (std::size_t i : slots) {
      Law& law = out[i].value;
      Law shared = scaled_law(total, law.points.back().value / at_largest);
      shared.points = law.points;
      shared.spread = law.spread;
      shared.body_share = true;
      law = std::move(shared);
    }
  }

  // An action to a grid neighbour seen at one count only (a face that exists from 8 processes on), or whose counts
  // all cut its face alike (the y faces of 2x2 and 2x4 grids), cannot tell its law's form: it takes the form of a
  // sibling action of its kind whose law was validated over faces of several sizes, its coefficient from its own
  // points: the faces of one decomposition shrink alike. A power keeps the sibling's exponent; a + b A keeps the
  // sibling's fixed part a (a halo's corners) and takes b from its own face.
  static void borrow_forms(std::vector<ModelNode>& body)
  {
    auto one_area = [](const Law& law) {
      return !law.points.empty() && std::all_of(law.points.begin(), law.points.end(), [&](const LawPoint& p) {
        return p.area == law.points.front().area;
      });
    };
    for (ModelNode& m : body) {
      if (m.loop || !m.has_partner || m.partner.kind != RankRef::Kind::Offset || !has_bytes(m.type))
        continue;
      Law& law = m.bytes;
      bool unseen_form = law.points.size() == 1 ? !law.validated
                                                : law.variable == LawVariable::Procs &&
                                                      law.curve.form == CurveForm::Constant && one_area(law);
      if (!unseen_form)
        continue;
      const LawPoint& p = law.points.back();
      for (const ModelNode& o : body) {
        const Law& model = o.bytes;
        if (&o == &m || o.loop || o.type != m.type || !o.has_partner || o.partner.kind != RankRef::Kind::Offset ||
            !model.validated || model.points.size() < 2 || one_area(model))
          continue;
        if (model.curve.form == CurveForm::Power) {
          double x = model.variable == LawVariable::Procs ? p.procs : p.area;
          law.variable = model.variable;
          law.curve.form = CurveForm::Power;
          law.curve.b = model.curve.b;
          law.curve.a = p.value / std::pow(x, model.curve.b);
        } else if (model.curve.form == CurveForm::Linear && model.variable == LawVariable::Area &&
                   p.value > model.curve.a) {
          law.variable = LawVariable::Area;
          law.curve.form = CurveForm::Linear;
          law.curve.a = model.curve.a;
          law.curve.b = (p.value - model.curve.a) / p.area;
        } else {
          continue;
        }
        law.validated = false;
        law.error = 0;
        law.borrowed = true;
        break;
      }
    }
  }

  double spread_ = 0;         // of the last points_of
  bool fixed_passes_ = true;  // the body being resolved runs as many times at every count

  // whether rank `rank` at count t is `one` (the special rank)
  bool is_one(const std::optional<RankRef>& one, std::size_t t, int rank) const
  {
    return one && resolve_rank(*one, rank, ts[t].procs, ts[t].grid) == rank;
  }

  // per training count, the mean of a field over the ranks that have the node (with `one`: over that rank alone
  // when `only`, else over the others), and with `present_at`, a zero for each rank of the domain it does not mark; points
  // carry no area (finish_law adds it)
  template <class F>
  std::vector<LawPoint> points_of(const ANode& a, const Presence& domain, const Presence* present_at, F field,
                                  const std::optional<RankRef>& one = std::nullopt, bool only = false)
  {
    bool zeros_where_absent = present_at != nullptr;
    std::vector<LawPoint> points;
    spread_ = 0;
    for (std::size_t t = 0; t < ts.size(); ++t) {
      std::vector<double> vals;
      std::size_t others = 0;
      for (const Obs& o : a.obs)
        if (static_cast<std::size_t>(o.t) == t && (!one || is_one(one, t, o.rank) == only))
          vals.push_back(field(o));
      if (vals.empty())
        continue;
      if (zeros_where_absent && !only) {
        for (std::size_t r = 0; r < domain[t].size(); ++r)
          others += domain[t][r] && !(*present_at)[t][r] && !is_one(one, t, static_cast<int>(r));
        vals.resize(vals.size() + others, 0);
      }
      if (vals.empty())
        continue;
      double sum = 0, lo = vals[0], hi = vals[0];
      for (double v : vals) {
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      double mean = sum / static_cast<double>(vals.size());
      if (mean > 0)
        spread_ = std::max(spread_, (hi - lo) / mean);
      points.push_back({ts[t].procs, 1, mean});
    }
    return points;
  }

  // The rank whose value stands apart at every count with three or more ranks: without it, the others' spread is
  // under a quarter of the spread with it; the same rank (fixed or counted from the last) at each such count.
  template <class F>
  std::optional<RankRef> one_rank(const ANode& a, F field) const
  {
    std::vector<RankRef> refs;
    bool checked = false;
    for (std::size_t t = 0; t < ts.size(); ++t) {
      std::vector<std::pair<double, int>> vals;
      for (const Obs& o : a.obs)
        if (static_cast<std::size_t>(o.t) == t)
          vals.push_back({field(o), o.rank});
      if (vals.size() < 3)
        continue;
      std::sort(vals.begin(), vals.end());
      auto spread = [](const std::vector<std::pair<double, int>>& v, std::size_t from, std::size_t to) {
        double sum = 0;
        for (std::size_t i = from; i < to; ++i)
          sum += v[i].first;
        double mean = sum / static_cast<double>(to - from);
        return mean > 0 ? (v[to - 1].first - v[from].first) / mean : 0.0;
      };
      double all = spread(vals, 0, vals.size());
      if (!(all > 1e-9))
        return std::nullopt;
      double median = vals[vals.size() / 2].first;
      bool low = median - vals.front().first > vals.back().first - median;
      double rest = low ? spread(vals, 1, vals.size()) : spread(vals, 0, vals.size() - 1);
      if (!(4 * rest < all))
        return std::nullopt;
      int k = low ? vals.front().second : vals.back().second;
      std::vector<RankRef> here{{RankRef::Kind::Fixed, k, {}}, {RankRef::Kind::FromLast, ts[t].procs - 1 - k, {}}};
      refs = checked ? intersect(refs, here) : here;
      checked = true;
      if (refs.empty())
        return std::nullopt;
    }
    if (!checked || refs.empty())
      return std::nullopt;
    return refs.front();
  }
};

AppModel learn(std::vector<Training>& ts, const ModelBuildOptions& options, const GridRanking& grids, std::size_t pick,
               bool hypercube)
{
  AppModel model;
  model.grid = apply_grid(ts, grids, pick, options, model.notes);
  model.grid_given = options.grid_given;
  for (const Training& t : ts) {
    model.training_procs.push_back(t.procs);
    model.training_traces.push_back(t.trace);
  }

  // every rank of every count into one template, the richest first
  struct Order {
    std::size_t leaves;
    int t, r;
  };
  std::vector<Order> order;
  for (std::size_t t = 0; t < ts.size(); ++t)
    for (int r = 0; r < ts[t].procs; ++r)
      order.push_back({leaves(ts[t].ranks[static_cast<std::size_t>(r)].folded), static_cast<int>(t), r});
  std::stable_sort(order.begin(), order.end(), [](const Order& a, const Order& b) {
    if (a.leaves != b.leaves)
      return a.leaves > b.leaves;
    if (a.t != b.t)
      return a.t > b.t;
    return a.r < b.r;
  });
  std::vector<ANode> tmpl;
  unordered_gaps = false;
  for (std::size_t k = 0; k < order.size(); ++k) {
    throw_if_interrupted();
    const Order& o = order[k];
    Training& t = ts[static_cast<std::size_t>(o.t)];
    std::vector<ANode> seq;
    const std::vector<FoldNode>& folded = t.ranks[static_cast<std::size_t>(o.r)].folded;
    abstract_sequence(folded, o.t, o.r, t, seq);
    if (hypercube)
      fold_hypercube(seq, o.t, o.r);
    tmpl = k == 0 ? std::move(seq) : merge(std::move(tmpl), std::move(seq));
    if (options.progress && (k + 1) % 64 == 0)
      options.progress(fmt::format("aligned {} of {} ranks", k + 1, order.size()));
  }

  if (unordered_gaps)
    model.notes.push_back("some actions were never seen together on one rank at the training counts (a rank with "
                          "neighbours on both sides of an axis, say): their order is assumed, the negative direction "
                          "first along an axis");
  join_rotated_slots(tmpl, false);
  relocate_computation(tmpl);
  Resolver resolver{ts, model.notes, 0, options.law_held_out};
  Presence all = resolver.empty();
  for (auto& row : all)
    std::fill(row.begin(), row.end(), 1);
  model.body = resolver.resolve(tmpl, all);
  if (resolver.worst_compute_spread > 0.1)
    model.notes.push_back(fmt::format("the ranks' computation between two actions differs by up to {:.0f}% of its "
                                      "mean at one count; the model gives every rank the mean",
                                      100 * resolver.worst_compute_spread));
  return model;
}

// Whether the model's trace at every training count has the real trace's structure, rank for rank (types,
// partners, tags, communicators; sizes and computation apart).
bool regenerates(const AppModel& model, const std::vector<Training>& ts)
{
  for (const Training& t : ts) {
    if (std::find(model.training_procs.begin(), model.training_procs.end(), t.procs) == model.training_procs.end())
      continue;
    try {
      TraceIndex index = read_trace_index(t.index);
      TraceSource real(index);
      ExtrapolationPlan plan(model, t.procs);
      TraceComparison c = compare_ranks(
          t.procs, [&](int r) -> std::unique_ptr<ActionStream> { return real.open_rank(r); },
          [&](int r) -> std::unique_ptr<ActionStream> { return std::make_unique<RankGenerator>(plan, r); }, true);
      if (c.first_difference_rank >= 0)
        return false;
    } catch (const Error&) {
      return false;
    }
  }
  return true;
}

// A model's nodes, loops and their bodies counted.
std::size_t model_size(const std::vector<ModelNode>& body)
{
  std::size_t n = 0;
  for (const ModelNode& m : body)
    n += 1 + model_size(m.body);
  return n;
}

// The forward-validation errors of the byte laws of a model's messages to grid neighbours, summed: how far the
// faces' sizes are from following its laws (sizes are exact in a trace, unlike computation).
double bytes_error(const std::vector<ModelNode>& body)
{
  double e = 0;
  for (const ModelNode& m : body) {
    if (!m.loop && m.has_partner && m.partner.kind == RankRef::Kind::Offset && has_bytes(m.type))
      e += m.bytes.error + m.recv_bytes.error;
    e += bytes_error(m.body);
  }
  return e;
}

// The model under the grid's readings (the hypercube reading's too, when asked), leaving out a smallest count whose
// structure is its own.
AppModel learn_readings(std::vector<Training> ts, const ModelBuildOptions& options, bool hypercube)
{
  std::vector<std::string> dropped;
  for (;;) {
    // readings of the grid the partners cannot tell apart (which axis the ranks of a 2-process run lie on, say)
    // can still differ in the order of the ranks' actions: the first under which every count aligns and which
    // gives back every training trace's structure is the program's. Readings of one rule that differ only in where
    // a line of ranks lies (2 processes, a prime count) are told apart by the actions they need, then by how well
    // their messages' sizes follow laws: one program runs the same actions at every count, and a misread count
    // needs actions of its own or gives a face's bytes to another axis. When none gives the traces
    // back, the best-scored reading stands if it aligns (the same rule's readings compared as above), else its
    // error does.
    GridRanking grids = rank_grids(ts, options);
    auto same_rule = [&](std::size_t a, std::size_t b) {
      const GridRule &x = grids.rules[a], &y = grids.rules[b];
      return x.kind == y.kind && x.dimensions == y.dimensions && x.transposed == y.transposed &&
             x.periodic == y.periodic;
    };
    struct Reading {
      std::size_t rule;
      bool regenerates;
      std::pair<std::size_t, double> size; ///< nodes, then the byte laws' error
      AppModel model;
    };
    std::optional<StructureError> failure;
    std::vector<Reading> readings;
    for (std::size_t k = 0; k < grids.tied.size(); ++k) {
      try {
        AppModel model = learn(ts, options, grids, grids.tied[k], hypercube);
        if (grids.tied.size() == 1) {
          model.notes.insert(model.notes.begin(), dropped.begin(), dropped.end());
          return model;
        }
        bool again = regenerates(model, ts);
        std::pair<std::size_t, double> size{model_size(model.body), bytes_error(model.body)};
        readings.push_back({grids.tied[k], again, size, std::move(model)});
      } catch (const StructureError& e) {
        if (!failure)
          failure = e;
      }
    }
    auto first_regenerating = std::find_if(readings.begin(), readings.end(), [](const Reading& r) { return r.regenerates; });
    std::optional<std::size_t> rule;
    if (first_regenerating != readings.end())
      rule = first_regenerating->rule;
    else if (!readings.empty() && readings.front().rule == grids.tied.front())
      rule = readings.front().rule;
    if (rule) {
      bool need_regenerating = first_regenerating != readings.end();
      Reading* best = nullptr;
      for (Reading& r : readings)
        if (same_rule(r.rule, *rule) && (r.regenerates || !need_regenerating) && (!best || r.size < best->size))
          best = &r;
      best->model.notes.insert(best->model.notes.begin(), dropped.begin(), dropped.end());
      return std::move(best->model);
    }
    {
      const StructureError& e = *failure;
      // a count whose structure is its own (one process, no neighbours: a code that skips its communication
      // there) is left out when the others remain enough
      if (!e.smallest_only || ts.size() <= 2)
        throw e;
      dropped.push_back(fmt::format("the run at {} processes ({}) has a structure of its own and is left out of the "
                                    "model ({})",
                                    ts[0].procs, ts[0].trace, e.what()));
      ts.erase(ts.begin());
    }
  }
}

// How many of a model's nodes are done only from some count on: structure that grows with n where the model has
// no law for it.
int from_a_count(const std::vector<ModelNode>& body)
{
  int n = 0;
  for (const ModelNode& m : body)
    n += (m.guard.min_procs > 0 ? 1 : 0) + from_a_count(m.body);
  return n;
}

bool has_hypercube_loop(const std::vector<ModelNode>& body)
{
  for (const ModelNode& m : body)
    if (m.dimensions != 0 || has_hypercube_loop(m.body))
      return true;
  return false;
}

} // namespace

AppModel build_app_model(const std::vector<std::string>& traces, const ModelBuildOptions& options)
{
  if (traces.empty())
    throw Error("model build: give the traces of one program at two or more process counts");
  std::vector<Training> ts;
  for (const std::string& path : traces) {
    Training t;
    t.trace = path;
    t.index = trace_index_for(path);
    TraceIndex index = read_trace_index(t.index);
    t.procs = index.ranks();
    ts.push_back(std::move(t));
  }
  std::stable_sort(ts.begin(), ts.end(), [](const Training& a, const Training& b) { return a.procs < b.procs; });
  for (std::size_t i = 1; i < ts.size(); ++i)
    if (ts[i].procs == ts[i - 1].procs)
      throw Error(fmt::format("{} and {} are both traces at {} processes: give one trace per process count",
                              ts[i - 1].trace, ts[i].trace, ts[i].procs));
  if (ts.size() < 2)
    throw Error(fmt::format("{}: one process count only ({}): the application model needs traces of the program at "
                            "two or more counts (1, 2, 4 and 8, say) to learn how it changes with n",
                            ts[0].trace, ts[0].procs));
  for (Training& t : ts)
    read_training(t, options);

  // the grid's reading, then the hypercube's where the grid's leaves actions that appear from a count on (a
  // binomial tree's partners at 2^k reach further with every doubling): the hypercube's is kept when it has fewer
  // such actions and gives back every training trace's structure
  std::optional<AppModel> grid_model;
  std::optional<StructureError> grid_error;
  try {
    grid_model = learn_readings(ts, options, false);
  } catch (const StructureError& e) {
    grid_error = e;
  }
  int grid_growth = grid_model ? from_a_count(grid_model->body) : std::numeric_limits<int>::max();
  if (grid_growth > 0) {
    // as under the grid's reading, a smallest count whose structure is its own (one process: its computation runs
    // together where the others communicate) may be left out
    std::vector<Training> cube_ts = ts;
    std::string dropped;
    for (;;) {
      try {
        AppModel cube = learn_readings(cube_ts, options, true);
        if (has_hypercube_loop(cube.body) && from_a_count(cube.body) < grid_growth && regenerates(cube, cube_ts)) {
          if (!dropped.empty())
            cube.notes.insert(cube.notes.begin(), dropped);
          return cube;
        }
      } catch (const StructureError&) {
      }
      if (cube_ts.size() <= 2 || !dropped.empty())
        break;
      dropped = fmt::format("the run at {} processes ({}) has a structure of its own and is left out of the model",
                            cube_ts[0].procs, cube_ts[0].trace);
      cube_ts.erase(cube_ts.begin());
    }
  }
  if (grid_model)
    return *grid_model;
  throw *grid_error;
}

} // namespace perfcast
