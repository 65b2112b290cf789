// Trace actions expanded into micro-ops; communicators and their creation.
#include "sim/ReplayEngine.hpp"

#include "core/Error.hpp"
#include <algorithm>
#include <fmt/format.h>

namespace perfcast::replay {

int ReplayEngine::comm_index(Rank& rank, int handle)
{
  if (handle == 0)
    return 0; // MPI_COMM_WORLD, the common case
  auto it = rank.handles.find(handle);
  if (it == rank.handles.end())
    fail_action(rank, fmt::format("unknown communicator comm={} (expected 0 or a handle made by comm_split or "
                                  "comm_dup on this rank)",
                                  handle));
  if (it->second < 0)
    fail_action(rank, fmt::format("communicator comm={} is MPI_COMM_NULL on this rank (comm_split color was "
                                  "negative)",
                                  handle));
  return it->second;
}

int ReplayEngine::local_rank(const Rank& rank, int comm) const
{
  if (comm == 0)
    return rank.report.rank; // MPI_COMM_WORLD: local and world ranks are one
  return comm < static_cast<int>(rank.local_rank.size()) ? rank.local_rank[static_cast<std::size_t>(comm)] : -1;
}

// World rank of a communicator-local rank named by the trace.
int ReplayEngine::world_rank(const Rank& rank, int comm, int local) const
{
  const Communicator& c = comms_[static_cast<std::size_t>(comm)];
  if (comm == 0 && local >= 0 && local < static_cast<int>(ranks_.size()))
    return local; // MPI_COMM_WORLD's members are the ranks in order
  if (local < 0 || local >= static_cast<int>(c.members.size()))
    fail_action(rank, fmt::format("rank {} is outside communicator comm={} of size {}", local, rank.action.comm,
                                  c.members.size()));
  return c.members[static_cast<std::size_t>(local)];
}

// Maps a schedule written in communicator-local ranks and generic contexts
// onto world ranks and the communicator's contexts.
void ReplayEngine::map_ops(const Rank& rank, int comm, std::vector<MicroOp>& ops, std::size_t from, std::uint32_t seq)
{
  const Communicator& c = comms_[static_cast<std::size_t>(comm)];
  for (std::size_t i = from; i < ops.size(); ++i) {
    MicroOp& op = ops[i];
    bool collective = op.ctx == static_cast<std::uint16_t>(Context::Collective);
    if (op.code == OpCode::Send || op.code == OpCode::Isend || op.code == OpCode::Recv || op.code == OpCode::Irecv) {
      if (op.peer >= 0)
        op.peer = world_rank(rank, comm, op.peer);
      if (collective)
        op.tag += static_cast<std::int32_t>((seq & 0x3ffffff) << 4); // one tag space per collective call
    }
    op.ctx = collective ? c.coll_ctx : c.p2p_ctx;
  }
}

void ReplayEngine::expand(std::uint32_t e, const Action& a)
{
  Rank& rank = rank_of(exec(e));
  int comm = comm_index(rank, a.comm);
  int me = local_rank(rank, comm);
  std::vector<MicroOp>& ops = exec(e).ops;
  std::size_t first = ops.size();
  MicroOp op;
  switch (a.type) {
  case ActionType::Compute:
    op.code = OpCode::Compute;
    op.value = a.value;
    ops.push_back(op);
    rank.phase_flops += a.value;
    return;
  case ActionType::Sleep:
    op.code = OpCode::Sleep;
    op.value = a.value;
    ops.push_back(op);
    return;
  case ActionType::Send:
  case ActionType::Isend:
  case ActionType::Ssend:
  case ActionType::Issend:
    op.code = (a.type == ActionType::Send || a.type == ActionType::Ssend) ? OpCode::Send : OpCode::Isend;
    op.sync = a.type == ActionType::Ssend || a.type == ActionType::Issend;
    op.peer = a.partner;
    op.peer2 = a.partner; // the key the trace's wait will use
    op.tag = a.tag;
    op.bytes = a.bytes;
    ops.push_back(op);
    break;
  case ActionType::Recv:
  case ActionType::Irecv:
    op.code = a.type == ActionType::Recv ? OpCode::Recv : OpCode::Irecv;
    op.peer = a.partner;
    op.peer2 = a.partner;
    op.tag = a.tag;
    op.bytes = a.bytes;
    ops.push_back(op);
    break;
  case ActionType::Wait:
  case ActionType::Test:
  case ActionType::Cancel:
    op.code = a.type == ActionType::Test ? OpCode::TestKey : a.type == ActionType::Cancel ? OpCode::CancelKey
                                                                                            : OpCode::WaitKey;
    op.peer = a.partner;
    op.peer2 = a.partner2;
    op.tag = a.tag;
    op.comm = a.comm;
    ops.push_back(op);
    return;
  case ActionType::Waitall:
    op.code = OpCode::WaitAll;
    ops.push_back(op);
    return;
  case ActionType::Testall:
    op.code = OpCode::TestAll;
    ops.push_back(op);
    return;
  case ActionType::Waitany:
  case ActionType::Waitsome:
    // the request that completes first in the simulation is the one consumed
    op.code = OpCode::WaitAny;
    op.sync = a.type == ActionType::Waitsome;
    ops.push_back(op);
    return;
  case ActionType::SendRecv: {
    // SMPI: isend + irecv, both tag 0, then wait for both
    MicroOp s;
    s.code = OpCode::Isend;
    s.peer = a.partner;
    s.bytes = a.bytes;
    s.in_group = true;
    MicroOp rcv;
    rcv.code = OpCode::Irecv;
    rcv.peer = a.partner2;
    rcv.bytes = a.recv_bytes;
    rcv.in_group = true;
    MicroOp w;
    w.code = OpCode::WaitGroup;
    ops.push_back(s);
    ops.push_back(rcv);
    ops.push_back(w);
    break;
  }
  case ActionType::CommSplit:
  case ActionType::CommDup:
    if (a.tag > 0)
      expand_comm_create(e, a, comm, me);
    return;
  default:
    if (!is_collective(a.type))
      return;
    std::uint32_t seq = comm == 0 ? rank.world_coll_seq++ : rank.coll_seq[comm]++;
    int size = static_cast<int>(comms_[static_cast<std::size_t>(comm)].members.size());
    if (size == static_cast<int>(comms_.front().members.size())) {
      // what a model of the collectives needs: calls, roots and payload per type, on communicators of all ranks
      RankReport::CollectiveCalls& calls = rank.report.collective_calls[std::string(action_name(a.type))];
      ++calls.calls;
      calls.root_calls += is_rooted_collective(a.type) && a.partner == me ? 1 : 0;
      calls.payload_bytes += collective_payload_bytes(a, me);
      close_phase(rank);
    }
    if (a.nonblocking) {
      start_background_collective(e, a, comm, me, size, seq);
      return;
    }
    expand_collective(a, me, size, options_.collectives, ops);
    map_ops(rank, comm, ops, first, seq);
    return;
  }
  map_ops(rank, comm, ops, first, 0);
}

// comm_split NEW COLOR KEY / comm_dup NEW: every member of the parent
// exchanges (color, key) with an allgather, then the new communicators exist.
void ReplayEngine::expand_comm_create(std::uint32_t e, const Action& a, int parent, int me)
{
  Rank& rank = rank_of(exec(e));
  std::uint32_t seq = rank.split_seq[parent]++;
  auto key = std::make_pair(parent, seq);
  int split_id;
  auto it = split_ids_.find(key);
  if (it == split_ids_.end()) {
    split_id = static_cast<int>(splits_.size());
    splits_.emplace_back();
    split_ids_[key] = split_id;
  } else {
    split_id = it->second;
  }
  int color = a.type == ActionType::CommDup ? 0 : a.color;
  int order = a.type == ActionType::CommDup ? me : a.key;
  splits_[static_cast<std::size_t>(split_id)].entries.emplace_back(color, order, exec(e).rank);
  Action exchange;
  exchange.type = ActionType::Allgather;
  exchange.bytes = exchange.recv_bytes = 8;
  std::vector<MicroOp>& ops = exec(e).ops;
  std::size_t first = ops.size();
  int size = static_cast<int>(comms_[static_cast<std::size_t>(parent)].members.size());
  expand_collective(exchange, me, size, options_.collectives, ops);
  map_ops(rank, parent, ops, first, parent == 0 ? rank.world_coll_seq++ : rank.coll_seq[parent]++);
  MicroOp create;
  create.code = OpCode::CommCreate;
  create.peer = split_id;
  create.peer2 = a.tag; // the new handle
  ops.push_back(create);
}

void ReplayEngine::comm_create(std::uint32_t e, const MicroOp& op)
{
  Rank& rank = rank_of(exec(e));
  Split& split = splits_[static_cast<std::size_t>(op.peer)];
  if (!split.built) {
    // every member has registered: the exchange cannot finish before
    auto entries = split.entries;
    std::sort(entries.begin(), entries.end());
    for (const auto& [color, key, world] : entries) {
      if (color < 0)
        continue;
      auto [pos, added] = split.comm_of_color.emplace(color, static_cast<int>(comms_.size()));
      if (added) {
        Communicator c;
        c.p2p_ctx = static_cast<std::uint16_t>(2 * comms_.size());
        c.coll_ctx = static_cast<std::uint16_t>(2 * comms_.size() + 1);
        if (comms_.size() >= 32767)
          fail_action(rank, "too many communicators (at most 32767)");
        comms_.push_back(c);
      }
      Communicator& c = comms_[static_cast<std::size_t>(pos->second)];
      Rank& member = ranks_[static_cast<std::size_t>(world)];
      if (member.local_rank.size() < comms_.size())
        member.local_rank.resize(comms_.size(), -1);
      member.local_rank[static_cast<std::size_t>(pos->second)] = static_cast<int>(c.members.size());
      c.members.push_back(world);
    }
    split.built = true;
  }
  int color = -1;
  for (const auto& [c, k, world] : split.entries)
    if (world == exec(e).rank)
      color = c;
  rank.handles[op.peer2] = color < 0 ? -1 : split.comm_of_color.at(color);
  if (rank.local_rank.size() < comms_.size())
    rank.local_rank.resize(comms_.size(), -1);
}

// A non-blocking collective runs its schedule in a background context; the
// main context gets a request it can wait for or test.
void ReplayEngine::start_background_collective(std::uint32_t e, const Action& a, int comm, int me, int size, std::uint32_t seq)
{
  int r = exec(e).rank;
  Rank& rank = ranks_[static_cast<std::size_t>(r)];
  std::uint32_t req = new_request();
  Request& q = requests_[req];
  q.owner = e;
  q.src = q.dst = r;
  q.tag = kCollectiveRequestTag;
  q.is_collective = true;
  q.refs = 2; // owner + background context
  rank.pending.push_back({me, me, kCollectiveRequestTag, a.comm, req});
  std::uint32_t b = execs_.acquire();
  Exec& bg = execs_[b];
  bg.rank = r;
  bg.background = true;
  bg.collective_request = req;
  expand_collective(a, me, size, options_.collectives, bg.ops);
  map_ops(rank, comm, bg.ops, 0, seq);
  ready_.push_back(b);
}

void ReplayEngine::finish_background(std::uint32_t b)
{
  Exec& bg = exec(b);
  std::uint32_t req = bg.collective_request;
  bg.status = Status::Done;
  bg.ops.clear();
  execs_.release(b);
  complete(req);
  release(req);
}
} // namespace perfcast::replay
