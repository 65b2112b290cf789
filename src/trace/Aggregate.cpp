#include "trace/Aggregate.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "trace/TraceReader.hpp"
#include "trace/TraceWriter.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>

namespace perfcast {

namespace {

// One segment of one iteration of a group: what its coarse rank does there.
struct Segment {
  double pre = 0, mid = 0, post = 0;          // flops before, between and after the messages to other groups
  std::map<int, std::uint64_t> send_to;        // other group -> bytes
  std::map<int, std::uint64_t> recv_from;      // other group -> bytes
  bool has_collective = false;
  Action collective;                           // merged over the members
};

struct Iteration {
  std::vector<Segment> segments;
  bool migrate = false;
  std::uint64_t migrate_bytes = 0;
};

struct Group {
  std::vector<Iteration> iterations;
  int first_member = -1;
};

std::vector<std::uint64_t> fold(const std::vector<std::uint64_t>& counts, const RankGrouping& g, const Action& a,
                                const std::string& path)
{
  if (counts.size() != static_cast<std::size_t>(g.fine_ranks))
    fail_at(path, a.line, fmt::format("'{}': expected {} counts (one per rank), got {}", action_keyword(a),
                                      g.fine_ranks, counts.size()));
  std::vector<std::uint64_t> out(static_cast<std::size_t>(g.coarse_ranks), 0);
  for (std::size_t i = 0; i < counts.size(); ++i)
    out[static_cast<std::size_t>(g.group_of[i])] += counts[i];
  return out;
}

void add_into(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& v, bool take_max)
{
  if (into.empty())
    into.assign(v.size(), 0);
  for (std::size_t i = 0; i < v.size(); ++i)
    into[i] = take_max ? std::max(into[i], v[i]) : into[i] + v[i];
}

// Merges a member's collective into its group's: reductions and broadcasts
// keep their size (the largest member's), data every rank contributes adds up.
void merge_collective(Action& into, bool first, const Action& a, const RankGrouping& g, const std::string& path)
{
  using T = ActionType;
  if (first) {
    into = a;
    into.bytes = into.recv_bytes = 0;
    into.value = 0;
    into.send_counts.clear();
    into.recv_counts.clear();
    if (a.type == T::Bcast || a.type == T::Reduce || a.type == T::Gather || a.type == T::Gatherv ||
        a.type == T::Scatter || a.type == T::Scatterv) {
      if (a.partner < 0 || a.partner >= g.fine_ranks)
        fail_at(path, a.line, fmt::format("'{}': root {} is not a rank of the trace", action_keyword(a), a.partner));
      into.partner = g.group_of[static_cast<std::size_t>(a.partner)];
    }
  }
  switch (a.type) {
  case T::Bcast:
  case T::Reduce:
  case T::Allreduce:
  case T::Scan:
  case T::Exscan:
    into.bytes = std::max(into.bytes, a.bytes);
    into.value = std::max(into.value, a.value);
    break;
  case T::Allgather:
  case T::Gather:
  case T::Scatter:
    into.bytes += a.bytes;
    into.recv_bytes += a.recv_bytes;
    break;
  case T::Alltoall: {
    // per pair of groups, members x members messages of the per-peer size
    std::uint64_t per_group = static_cast<std::uint64_t>(g.fine_ranks / g.coarse_ranks);
    into.bytes += a.bytes * per_group;
    into.recv_bytes += a.recv_bytes * per_group;
    break;
  }
  case T::Gatherv:
    into.bytes += a.bytes;
    add_into(into.recv_counts, fold(a.recv_counts, g, a, path), false);
    break;
  case T::Scatterv:
    into.recv_bytes += a.recv_bytes;
    add_into(into.send_counts, fold(a.send_counts, g, a, path), false);
    break;
  case T::Alltoallv:
    add_into(into.send_counts, fold(a.send_counts, g, a, path), false);
    add_into(into.recv_counts, fold(a.recv_counts, g, a, path), false);
    break;
  case T::Allgatherv:
    into.bytes += a.bytes;
    add_into(into.recv_counts, fold(a.recv_counts, g, a, path), true);
    break;
  case T::ReduceScatter:
    into.value = std::max(into.value, a.value);
    add_into(into.recv_counts, fold(a.recv_counts, g, a, path), true);
    break;
  default: // barrier
    break;
  }
}

// Reads one fine rank's actions into its group.
class MemberReader {
public:
  MemberReader(Group& group, int rank, const RankGrouping& g, AggregateSummary& s)
      : group_(group), rank_(rank), g_(g), s_(s), mine_(g.group_of[static_cast<std::size_t>(rank)])
  {
    first_ = group_.first_member < 0;
    if (first_)
      group_.first_member = rank;
  }

  void read(RankReader& reader)
  {
    path_ = reader.path();
    Action a;
    while (reader.next(a))
      take(a);
    end_segment(nullptr, reader.line());
    if (it_ + 1 != group_.iterations.size())
      fail_in(path_, fmt::format("rank {} has {} migrate lines, rank {} of its group has {} (expected the same "
                                 "iterations in every rank)",
                                 rank_, it_, group_.first_member, group_.iterations.size() - 1));
  }

private:
  Segment& segment(std::size_t line)
  {
    if (group_.iterations.size() <= it_) {
      if (!first_)
        fail_at(path_, line, fmt::format("rank {} has more iterations than rank {} of the same group (expected the "
                                         "same migrate lines in every rank)",
                                         rank_, group_.first_member));
      group_.iterations.resize(it_ + 1);
    }
    auto& segs = group_.iterations[it_].segments;
    if (segs.size() <= seg_) {
      if (!first_)
        fail_at(path_, line, fmt::format("rank {} has more collectives in iteration {} than rank {} of the same "
                                         "group (expected every rank in the same collectives)",
                                         rank_, it_, group_.first_member));
      segs.resize(seg_ + 1);
    }
    return segs[seg_];
  }

  int group_of_peer(const Action& a, int peer)
  {
    if (peer < 0 || peer >= g_.fine_ranks)
      fail_at(path_, a.line,
              fmt::format("'{}': peer {} cannot be given to a group (expected a rank 0..{}; receives from any source "
                          "are not aggregated)",
                          action_keyword(a), peer, g_.fine_ranks - 1));
    return g_.group_of[static_cast<std::size_t>(peer)];
  }

  // a message to or from another group: the computation before it is placed
  void event(Segment& s)
  {
    (any_event_ ? s.mid : s.pre) += tail_;
    tail_ = 0;
    any_event_ = true;
  }

  void end_segment(const Action* collective, std::size_t line)
  {
    Segment& s = segment(line);
    (any_event_ ? s.post : s.pre) += tail_;
    tail_ = 0;
    any_event_ = false;
    if (collective) {
      if (!first_ && (!s.has_collective || s.collective.type != collective->type))
        fail_at(path_, collective->line,
                fmt::format("'{}': rank {} of the same group has {} here (expected every rank in the same collectives)",
                            action_keyword(*collective), group_.first_member,
                            s.has_collective ? action_keyword(s.collective) : std::string("no collective")));
      merge_collective(s.collective, first_, *collective, g_, path_);
      s.collective.rank = mine_;
      s.has_collective = true;
      ++seg_;
    } else if (!first_ && s.has_collective) {
      fail_at(path_, line, fmt::format("rank {} has fewer collectives in iteration {} than rank {} of the same group",
                                       rank_, it_, group_.first_member));
    }
  }

  void take(const Action& a)
  {
    using T = ActionType;
    if (a.comm != 0 || a.type == T::CommSplit || a.type == T::CommDup)
      fail_at(path_, a.line, fmt::format("'{}': only MPI_COMM_WORLD can be aggregated (expected no sub-communicator)",
                                         action_keyword(a)));
    switch (a.type) {
    case T::Init:
    case T::Finalize:
    case T::CommSize:
      return;
    case T::Compute:
      tail_ += a.value;
      return;
    case T::Send:
    case T::Isend:
    case T::Ssend:
    case T::Issend:
      send(a, a.partner, a.bytes);
      return;
    case T::Recv:
    case T::Irecv:
      receive(a, a.partner, a.bytes);
      return;
    case T::SendRecv:
      send(a, a.partner, a.bytes);
      receive(a, a.partner2, a.recv_bytes);
      return;
    case T::Wait:
    case T::Test: {
      if (a.tag == kCollectiveRequestTag)
        break;
      int peer = a.partner == rank_ ? a.partner2 : a.partner;
      if (peer >= 0 && peer < g_.fine_ranks && g_.group_of[static_cast<std::size_t>(peer)] != mine_) {
        Segment& s = segment(a.line);
        event(s);
      }
      return;
    }
    case T::Waitall:
    case T::Testall:
    case T::Waitany:
    case T::Waitsome:
      if (any_event_)
        event(segment(a.line));
      return;
    case T::Migrate: {
      end_segment(nullptr, a.line);
      Iteration& i = group_.iterations[it_];
      i.migrate = true;
      i.migrate_bytes += a.bytes;
      ++it_;
      seg_ = 0;
      segment(a.line);
      return;
    }
    default:
      if (is_collective(a.type) && !a.nonblocking) {
        end_segment(&a, a.line);
        segment(a.line);
        return;
      }
      break;
    }
    fail_at(path_, a.line, fmt::format("'{}': cannot be aggregated (expected computation, point-to-point messages, "
                                       "blocking collectives and migrate)",
                                       action_keyword(a)));
  }

  void send(const Action& a, int peer, std::uint64_t bytes)
  {
    int to = group_of_peer(a, peer);
    ++s_.messages_in;
    if (to == mine_) {
      ++s_.messages_inside;
      return;
    }
    Segment& s = segment(a.line);
    event(s);
    s.send_to[to] += bytes;
  }

  void receive(const Action& a, int peer, std::uint64_t bytes)
  {
    int from = group_of_peer(a, peer);
    if (from == mine_)
      return;
    Segment& s = segment(a.line);
    event(s);
    s.recv_from[from] += bytes;
  }

  Group& group_;
  int rank_;
  const RankGrouping& g_;
  AggregateSummary& s_;
  int mine_;
  bool first_ = false;
  std::string path_;
  std::size_t it_ = 0, seg_ = 0;
  double tail_ = 0;
  bool any_event_ = false;
};

Action make(ActionType type, int rank)
{
  Action a;
  a.type = type;
  a.rank = rank;
  return a;
}

void emit_compute(std::vector<Action>& out, int rank, double flops)
{
  if (flops <= 0)
    return;
  Action a = make(ActionType::Compute, rank);
  a.value = flops;
  out.push_back(a);
}

std::vector<Action> emit_group(int me, const Group& group, AggregateSummary& s)
{
  std::vector<Action> out;
  out.push_back(make(ActionType::Init, me));
  for (const Iteration& it : group.iterations) {
    for (const Segment& seg : it.segments) {
      emit_compute(out, me, seg.pre);
      for (auto [from, bytes] : seg.recv_from) {
        Action a = make(ActionType::Irecv, me);
        a.partner = from;
        a.bytes = bytes;
        out.push_back(a);
      }
      for (auto [to, bytes] : seg.send_to) {
        Action a = make(ActionType::Isend, me);
        a.partner = to;
        a.bytes = bytes;
        out.push_back(a);
        ++s.messages_out;
      }
      emit_compute(out, me, seg.mid);
      for (auto [from, bytes] : seg.recv_from) {
        Action a = make(ActionType::Wait, me);
        a.partner = from;
        a.partner2 = me;
        out.push_back(a);
      }
      for (auto [to, bytes] : seg.send_to) {
        Action a = make(ActionType::Wait, me);
        a.partner = me;
        a.partner2 = to;
        out.push_back(a);
      }
      emit_compute(out, me, seg.post);
      if (seg.has_collective)
        out.push_back(seg.collective);
    }
    if (it.migrate) {
      Action a = make(ActionType::Migrate, me);
      a.bytes = it.migrate_bytes;
      out.push_back(a);
    }
  }
  out.push_back(make(ActionType::Finalize, me));
  return out;
}

// every merged message is received as it was sent: same iteration, same segment, same bytes
void check_pairs(const std::vector<Group>& groups, const TraceIndex& fine)
{
  for (std::size_t a = 0; a < groups.size(); ++a)
    for (std::size_t i = 0; i < groups[a].iterations.size(); ++i)
      for (std::size_t k = 0; k < groups[a].iterations[i].segments.size(); ++k)
        for (auto [to, bytes] : groups[a].iterations[i].segments[k].send_to) {
          const auto& other = groups[static_cast<std::size_t>(to)].iterations;
          std::uint64_t got = 0;
          if (i < other.size() && k < other[i].segments.size()) {
            auto f = other[i].segments[k].recv_from.find(static_cast<int>(a));
            got = f == other[i].segments[k].recv_from.end() ? 0 : f->second;
          }
          if (got != bytes)
            fail_in(fine.index_path,
                    fmt::format("iteration {}: group {} sends {} bytes to group {}, which receives {} bytes from it "
                                "there (expected every message received in the iteration and between the "
                                "collectives it was sent in)",
                                i, a, bytes, to, got));
        }
}

} // namespace

std::vector<std::vector<Action>> aggregate_trace(const TraceIndex& fine, const RankGrouping& grouping,
                                                 AggregateSummary* summary)
{
  if (grouping.fine_ranks != fine.ranks())
    fail_in(fine.index_path, fmt::format("the trace has {} ranks, the grouping is for {} (expected the same)",
                                         fine.ranks(), grouping.fine_ranks));
  if (grouping.coarse_ranks <= 0 || grouping.coarse_ranks > grouping.fine_ranks)
    throw Error(fmt::format("aggregate: {} coarse ranks for {} fine ones (expected 1..{})", grouping.coarse_ranks,
                            grouping.fine_ranks, grouping.fine_ranks));
  AggregateSummary s;
  s.fine_ranks = grouping.fine_ranks;
  s.coarse_ranks = grouping.coarse_ranks;
  std::vector<Group> groups(static_cast<std::size_t>(grouping.coarse_ranks));
  TraceSource source(fine);
  for (int r = 0; r < fine.ranks(); ++r) {
    auto reader = source.open_rank(r);
    MemberReader member(groups[static_cast<std::size_t>(grouping.group_of[static_cast<std::size_t>(r)])], r,
                        grouping, s);
    member.read(*reader);
  }
  for (std::size_t g = 1; g < groups.size(); ++g)
    if (groups[g].iterations.size() != groups[0].iterations.size())
      fail_in(fine.index_path, fmt::format("rank {} has {} migrate lines, rank {} has {} (expected the same in every "
                                           "rank)",
                                           groups[g].first_member, groups[g].iterations.size() - 1,
                                           groups[0].first_member, groups[0].iterations.size() - 1));
  check_pairs(groups, fine);
  s.iterations = static_cast<int>(groups[0].iterations.size()) - 1;
  std::vector<std::vector<Action>> out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    out.push_back(emit_group(static_cast<int>(g), groups[g], s));
  if (summary)
    *summary = s;
  return out;
}

AggregateSummary aggregate_trace_to(const std::string& index_path, const RankGrouping& grouping,
                                    const std::string& out_dir, bool force)
{
  namespace fs = std::filesystem;
  TraceIndex fine = read_trace_index(index_path);
  // the output rule: perfcast's files (trace.txt, rank-*.txt) are replaced,
  // anything else needs force; the parent must exist, and a directory made
  // here goes again if the aggregation fails
  OutputDirectory directory(out_dir, "aggregated trace", force, [](const fs::directory_entry& entry) {
    const std::string name = entry.path().filename().string();
    return entry.is_regular_file() && (name.rfind("rank-", 0) == 0 || name == "trace.txt") &&
           written_by_perfcast(entry.path().string());
  });
  AggregateSummary s;
  auto ranks = aggregate_trace(fine, grouping, &s);
  std::error_code ec;
  for (const fs::path& p : directory.earlier_files())
    fs::remove(p, ec);
  std::string mark = fmt::format("# {}: {} ranks aggregated from {} ({} ranks)\n", kGeneratorMark, s.coarse_ranks,
                                 index_path, s.fine_ranks);
  std::string index = mark;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    std::string text = mark;
    for (const Action& a : ranks[r]) {
      text += format_action(a);
      text += '\n';
    }
    std::string name = fmt::format("rank-{}.txt", r);
    write_output_file(out_dir + "/" + name, "aggregated trace", true, text);
    index += name + "\n";
  }
  write_output_file(out_dir + "/trace.txt", "trace index", true, index);
  directory.keep();
  return s;
}

} // namespace perfcast
