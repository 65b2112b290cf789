#include "sim/Replay.hpp"

#include "core/Error.hpp"
#include "core/SlotPool.hpp"
#include "sim/CpuModel.hpp"
#include "sim/MicroOp.hpp"

#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <tuple>

namespace perfcast {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

// A point-to-point request, or (is_collective) the request of a non-blocking
// collective, completed when its background schedule ends.
struct Request {
  std::uint32_t owner = 0; // execution context that posted it
  std::int32_t owner_rank = 0;
  std::int32_t src = 0, dst = 0, tag = 0; // world ranks; src may be kAnySource, tag kAnyTag
  std::uint16_t ctx = 0;
  bool is_send = false;
  bool is_collective = false;
  bool wildcard_source = false;
  bool complete = false;
  bool waited = false; // owner is blocked on it
  std::uint8_t refs = 0;
  std::uint64_t bytes = 0;
  double match_time = -1;
};

// An entry of a rank's trace-level request list, keyed as the trace's wait
// lines name it; req == kNone is SimGrid's "null request" left by a test.
struct Pending {
  std::int32_t src, dst, tag, comm;
  std::uint32_t req;
};

enum class Status : std::uint8_t { Ready, Blocked, Computing, Sleeping, Done };

// A thread of execution: a rank's main flow of actions, or the background
// schedule of one of its non-blocking collectives.
struct Exec {
  int rank = 0;
  bool background = false;
  std::uint32_t collective_request = kNone; // background: completed at the end
  std::vector<MicroOp> ops;
  std::size_t next_op = 0;
  Status status = Status::Ready;
  std::vector<std::uint32_t> group;   // requests of the running collective
  std::vector<std::uint32_t> waiting; // requests it is blocked on
  std::uint32_t blocked_on = 0;
  bool wait_any = false; // blocked until any one of `waiting` completes
  double block_start = 0;
  double last_match = -1;
};

struct Communicator {
  std::vector<int> members; // world rank of each local rank
  std::uint16_t p2p_ctx = 0, coll_ctx = 1;
};

struct Rank {
  int host = 0;
  std::unique_ptr<RankReader> reader;
  Action action;
  bool has_action = false;
  bool finishing = false;
  std::vector<Pending> pending;
  std::map<int, int> handles{{0, 0}};     // communicator handle -> communicator
  std::map<int, std::uint32_t> coll_seq;  // collectives started per communicator
  std::map<int, std::uint32_t> split_seq; // comm_split/dup calls per parent communicator
  std::vector<int> local_rank;            // per communicator, -1 when not a member
  // perfcast extensions: replies to wildcard sources and loop blocks
  std::int32_t last_wild_source = -1;
  std::int32_t last_recv_tag = -1;
  std::vector<Action> loop_body;
  std::size_t loop_pos = 0;
  std::int32_t loop_stop_tag = 0;
  bool in_loop = false;
  bool loop_stop = false;
  Pending test_entry{};
  RankReport report;
};

// One collective communicator creation: every member's color and key.
struct Split {
  std::vector<std::tuple<int, int, int>> entries; // color, key, world rank
  bool built = false;
  std::map<int, int> comm_of_color;
};

// Requests waiting to be matched, oldest first. Matching takes mostly from the
// front and now and then from the middle: a vector with a moving head does both
// without a deque's bookkeeping.
class MatchQueue {
public:
  const std::uint32_t* begin() const { return items_.data() + head_; }
  const std::uint32_t* end() const { return items_.data() + items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  void push_back(std::uint32_t id) { items_.push_back(id); }
  void erase(const std::uint32_t* pos)
  {
    auto i = static_cast<std::size_t>(pos - items_.data());
    if (i != head_) {
      items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
    ++head_;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

private:
  std::vector<std::uint32_t> items_;
  std::size_t head_ = 0;
};

struct Mailbox {
  MatchQueue sends; // unmatched, in posting order
  MatchQueue recvs;
};

bool matches(const Request& recv, const Request& send)
{
  return recv.ctx == send.ctx && (recv.src == kAnySource || recv.src == send.src) &&
         (recv.tag == kAnyTag ? send.tag >= 0 : recv.tag == send.tag);
}

class Engine {
public:
  Engine(const TraceIndex& trace, const Platform& platform, const Placement& placement, const ReplayOptions& options)
      : trace_(trace), platform_(platform), options_(options), cpu_(platform),
        net_(make_network_model(options.network, platform, options.network_options))
  {
    int P = trace.ranks();
    if (static_cast<int>(placement.size()) < P)
      throw Error(fmt::format("the placement covers {} ranks but the trace has {}", placement.size(), P));
    ranks_.resize(static_cast<std::size_t>(P));
    if (options_.record_timeline)
      timeline_ = Timeline(static_cast<std::size_t>(P));
    mailboxes_.resize(static_cast<std::size_t>(P));
    Communicator world;
    for (int r = 0; r < P; ++r)
      world.members.push_back(r);
    comms_.push_back(world);
    source_ = std::make_unique<TraceSource>(trace);
    for (int r = 0; r < P; ++r) {
      Rank& rank = ranks_[static_cast<std::size_t>(r)];
      rank.host = placement[static_cast<std::size_t>(r)];
      if (rank.host < 0 || rank.host >= static_cast<int>(platform.hosts().size()))
        throw Error(fmt::format("rank {} is placed on host index {}, which the platform lacks", r, rank.host));
      rank.reader = source_->open_rank(r);
      rank.report.rank = r;
      rank.report.host = rank.host;
      rank.local_rank.push_back(r);
      std::uint32_t main = execs_.acquire(); // rank r's main context is execs_[r]
      execs_[main].rank = r;
      ready_.push_back(main);
    }
    // every pair of hosts in use must be connected
    std::vector<int> used(placement.begin(), placement.begin() + P);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (int a : used)
      for (int b : used)
        if (!platform.has_route(a, b))
          throw Error(fmt::format("no route from host '{}' to host '{}' in the platform",
                                  platform.hosts()[static_cast<std::size_t>(a)].name,
                                  platform.hosts()[static_cast<std::size_t>(b)].name));
  }

  ReplayReport run()
  {
    std::vector<std::uint32_t> done;
    std::uint64_t next_progress = 1 << 20;
    for (;;) {
      while (!ready_.empty()) {
        std::uint32_t e = ready_.front();
        ready_.pop_front();
        step(e);
      }
      if (options_.progress && actions_ >= next_progress) {
        options_.progress(actions_, now_);
        next_progress = actions_ + (1 << 20);
      }
      double t = std::min({net_->next_completion(), cpu_.next_completion(), timers_.top_time()});
      if (t == kNever)
        break;
      now_ = t;
      done.clear();
      net_->advance(t, done);
      for (std::uint32_t flow : done)
        transfer_done(flow);
      done.clear();
      cpu_.advance(t, done);
      for (std::uint32_t id : done)
        resume_from(exec_of_cpu_[id], Status::Computing);
      std::uint32_t e;
      while (timers_.pop_until(t, e))
        resume_from(e, Status::Sleeping);
    }
    check_deadlock();
    ReplayReport report;
    report.network = std::string(net_->name());
    report.actions = actions_;
    for (Rank& r : ranks_) {
      report.makespan_s = std::max(report.makespan_s, r.report.finish_s);
      report.ranks.push_back(r.report);
    }
    report.timeline = std::move(timeline_);
    return report;
  }

private:
  Exec& exec(std::uint32_t e) { return execs_[e]; }
  Rank& rank_of(const Exec& x) { return ranks_[static_cast<std::size_t>(x.rank)]; }

  [[noreturn]] void fail_action(const Rank& rank, const std::string& what) const
  {
    fail_at(rank.reader->path(), rank.action.line, what);
  }

  // ---- execution
  void step(std::uint32_t e)
  {
    while (exec(e).status == Status::Ready) {
      Exec& x = exec(e);
      if (x.next_op < x.ops.size()) {
        MicroOp op = x.ops[x.next_op++];
        execute(e, op);
        continue;
      }
      if (x.background) {
        finish_background(e);
        return;
      }
      if (!fetch(e))
        return;
    }
  }

  // Loads the next trace action's steps into a main context; false when the rank is done.
  bool fetch(std::uint32_t e)
  {
    Exec& x = exec(e);
    Rank& rank = rank_of(x);
    x.ops.clear();
    x.next_op = 0;
    if (rank.finishing) {
      x.status = Status::Done;
      rank.report.finish_s = now_;
      return false;
    }
    if (!next_action(rank, rank.action)) {
      // SimGrid waits for the requests still pending at the end of a trace
      rank.finishing = true;
      rank.has_action = false;
      MicroOp op;
      op.code = OpCode::WaitAll;
      x.ops.push_back(op);
      return true;
    }
    rank.has_action = true;
    ++actions_;
    ++rank.report.actions;
    expand(e, rank.action);
    if (rank.in_loop && (rank.action.type == ActionType::Recv || rank.action.type == ActionType::Wait ||
                         rank.action.type == ActionType::Waitall || rank.action.type == ActionType::Waitany)) {
      MicroOp check;
      check.code = OpCode::LoopCheck;
      exec(e).ops.push_back(check);
    }
    return true;
  }

  // The next action: from the running loop block, else from the trace.
  bool next_action(Rank& rank, Action& out)
  {
    if (rank.in_loop) {
      if (!rank.loop_stop) {
        out = rank.loop_body[rank.loop_pos];
        rank.loop_pos = (rank.loop_pos + 1) % rank.loop_body.size();
        return true;
      }
      rank.in_loop = false;
      rank.loop_body.clear();
    }
    if (!rank.reader->next(out))
      return false;
    if (out.type == ActionType::LoopEnd)
      fail_at(rank.reader->path(), out.line, "'loop_end' without a 'loop_begin'");
    if (out.type != ActionType::LoopBegin)
      return true;
    std::size_t begin_line = out.line;
    rank.loop_stop_tag = out.tag;
    bool has_receive = false;
    Action a;
    for (;;) {
      if (!rank.reader->next(a))
        fail_at(rank.reader->path(), begin_line, "'loop_begin' has no matching 'loop_end'");
      if (a.type == ActionType::LoopEnd)
        break;
      if (a.type == ActionType::LoopBegin)
        fail_at(rank.reader->path(), a.line, "loop blocks cannot be nested");
      has_receive = has_receive || a.type == ActionType::Recv || a.type == ActionType::Irecv;
      rank.loop_body.push_back(a);
    }
    if (!has_receive)
      fail_at(rank.reader->path(), begin_line,
              "a loop block needs a receive that can get its stop tag (expected 'recv' or 'irecv' in the body)");
    rank.in_loop = true;
    rank.loop_stop = false;
    rank.loop_pos = 0;
    rank.last_recv_tag = -1;
    return next_action(rank, out);
  }

  // ---- communicators
  int comm_index(Rank& rank, int handle)
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

  int local_rank(const Rank& rank, int comm) const
  {
    return comm < static_cast<int>(rank.local_rank.size()) ? rank.local_rank[static_cast<std::size_t>(comm)] : -1;
  }

  // World rank of a communicator-local rank named by the trace.
  int world_rank(const Rank& rank, int comm, int local) const
  {
    const Communicator& c = comms_[static_cast<std::size_t>(comm)];
    if (local < 0 || local >= static_cast<int>(c.members.size()))
      fail_action(rank, fmt::format("rank {} is outside communicator comm={} of size {}", local, rank.action.comm,
                                    c.members.size()));
    return c.members[static_cast<std::size_t>(local)];
  }

  // Maps a schedule written in communicator-local ranks and generic contexts
  // onto world ranks and the communicator's contexts.
  void map_ops(const Rank& rank, int comm, std::vector<MicroOp>& ops, std::size_t from, std::uint32_t seq)
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

  void expand(std::uint32_t e, const Action& a)
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
      std::uint32_t seq = rank.coll_seq[comm]++;
      int size = static_cast<int>(comms_[static_cast<std::size_t>(comm)].members.size());
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
  void expand_comm_create(std::uint32_t e, const Action& a, int parent, int me)
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
    map_ops(rank, parent, ops, first, rank.coll_seq[parent]++);
    MicroOp create;
    create.code = OpCode::CommCreate;
    create.peer = split_id;
    create.peer2 = a.tag; // the new handle
    ops.push_back(create);
  }

  void comm_create(std::uint32_t e, const MicroOp& op)
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
  void start_background_collective(std::uint32_t e, const Action& a, int comm, int me, int size, std::uint32_t seq)
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

  void finish_background(std::uint32_t b)
  {
    Exec& bg = exec(b);
    std::uint32_t req = bg.collective_request;
    bg.status = Status::Done;
    bg.ops.clear();
    execs_.release(b);
    complete(req);
    release(req);
  }

  void execute(std::uint32_t e, const MicroOp& op)
  {
    Exec& x = exec(e);
    Rank& rank = rank_of(x);
    switch (op.code) {
    case OpCode::Compute: {
      std::uint32_t id = cpu_.start(rank.host, op.value, now_);
      if (id >= exec_of_cpu_.size())
        exec_of_cpu_.resize(id + 1);
      exec_of_cpu_[id] = e;
      x.status = Status::Computing;
      x.block_start = now_;
      return;
    }
    case OpCode::Sleep:
      x.status = Status::Sleeping;
      x.block_start = now_;
      timers_.schedule(e, now_ + op.value);
      return;
    case OpCode::LoopCheck:
      if (rank.last_recv_tag == rank.loop_stop_tag)
        rank.loop_stop = true;
      return;
    case OpCode::CommCreate:
      comm_create(e, op);
      return;
    case OpCode::Send:
    case OpCode::Isend: {
      MicroOp send = op;
      if (send.peer == kLastSource) {
        if (rank.last_wild_source < 0)
          fail_action(rank, "send to '@' but no receive from any source has completed on this rank yet");
        send.peer = rank.last_wild_source;
      }
      std::uint32_t req = post_send(e, send);
      if (send.code == OpCode::Send) {
        block_on_one(e, req);
        release(req); // the owner's reference; the transfer keeps its own
      } else if (send.in_group) {
        x.group.push_back(req);
      } else {
        int comm = comm_index(rank, rank.action.comm);
        int me = local_rank(rank, comm);
        int key_peer = op.peer == kLastSource ? local_of_world(comm, send.peer) : op.peer2;
        rank.pending.push_back({me, key_peer, op.tag, rank.action.comm, req});
      }
      return;
    }
    case OpCode::Recv:
    case OpCode::Irecv: {
      std::uint32_t req = post_recv(e, op);
      if (op.code == OpCode::Recv) {
        block_on_one(e, req);
        release(req);
      } else if (op.in_group) {
        x.group.push_back(req);
      } else {
        int comm = comm_index(rank, rank.action.comm);
        rank.pending.push_back({op.peer2, local_rank(rank, comm), op.tag, rank.action.comm, req});
      }
      return;
    }
    case OpCode::WaitKey: {
      auto it = find_pending(rank, op);
      if (it == rank.pending.end())
        return; // as SimGrid: assume an earlier test caught it
      std::uint32_t req = it->req;
      rank.pending.erase(it);
      if (req != kNone) {
        block_on_one(e, req);
        release(req);
      }
      return;
    }
    case OpCode::TestKey:
      test(e, op);
      return;
    case OpCode::TestCheck:
      test_check(rank);
      return;
    case OpCode::CancelKey:
      cancel(rank, op);
      return;
    case OpCode::WaitAll: {
      scratch_.clear();
      for (const Pending& p : rank.pending)
        if (p.req != kNone)
          scratch_.push_back(p.req);
      rank.pending.clear();
      block_on(e, scratch_);
      for (std::uint32_t q : scratch_)
        release(q);
      return;
    }
    case OpCode::WaitAny:
      wait_any(e, op);
      return;
    case OpCode::WaitGroup: {
      scratch_.swap(x.group);
      x.group.clear();
      block_on(e, scratch_);
      for (std::uint32_t q : scratch_)
        release(q);
      return;
    }
    }
  }

  int local_of_world(int comm, int world) const
  {
    const auto& m = comms_[static_cast<std::size_t>(comm)].members;
    auto it = std::find(m.begin(), m.end(), world);
    return it == m.end() ? world : static_cast<int>(it - m.begin());
  }

  std::vector<Pending>::iterator find_pending(Rank& rank, const MicroOp& op)
  {
    return std::find_if(rank.pending.begin(), rank.pending.end(), [&](const Pending& p) {
      return p.src == op.peer && p.dst == op.peer2 && p.tag == op.tag && p.comm == op.comm;
    });
  }

  // MPI_Cancel: a request not yet matched leaves its mailbox and ends; one
  // already matched completes as it would have. Either way no wait follows.
  void cancel(Rank& rank, const MicroOp& op)
  {
    auto it = find_pending(rank, op);
    if (it == rank.pending.end() || it->req == kNone)
      return;
    std::uint32_t id = it->req;
    rank.pending.erase(it);
    Request& q = requests_[id];
    if (q.match_time < 0) {
      Mailbox& box = mailboxes_[static_cast<std::size_t>(q.is_send ? q.dst : q.owner_rank)];
      auto& list = q.is_send ? box.sends : box.recvs;
      auto pos = std::find(list.begin(), list.end(), id);
      if (pos != list.end()) {
        list.erase(pos);
        q.complete = true;
        release(id); // the mailbox's reference
      }
    }
    release(id); // the owner's
  }

  // MPI_Waitany / MPI_Waitsome over the rank's pending requests: consume the
  // first completed one (waitsome: every completed one); if none has completed,
  // block until one does and look again.
  void wait_any(std::uint32_t e, const MicroOp& op)
  {
    Exec& x = exec(e);
    Rank& rank = rank_of(x);
    bool any_live = false, consumed = false;
    for (auto it = rank.pending.begin(); it != rank.pending.end();) {
      if (it->req == kNone) {
        ++it;
        continue;
      }
      any_live = true;
      if (requests_[it->req].complete && (!consumed || op.sync)) {
        release(it->req);
        it = rank.pending.erase(it);
        consumed = true;
        continue;
      }
      ++it;
    }
    if (consumed || !any_live)
      return;
    std::vector<std::uint32_t> reqs;
    for (const Pending& p : rank.pending)
      if (p.req != kNone)
        reqs.push_back(p.req);
    for (std::uint32_t id : reqs)
      requests_[id].waited = true;
    x.blocked_on = 1;
    x.wait_any = true;
    x.status = Status::Blocked;
    x.block_start = now_;
    x.last_match = -1;
    x.waiting = reqs;
    // after waking, run this step again to consume what completed
    x.ops.insert(x.ops.begin() + static_cast<std::ptrdiff_t>(x.next_op), op);
  }

  // MPI_Test as SMPI replays it: pay smpi/test (growing while tests fail), then
  // look; a successful test leaves a null request for the matching wait.
  void test(std::uint32_t e, const MicroOp& op)
  {
    Exec& x = exec(e);
    Rank& rank = rank_of(x);
    auto it = find_pending(rank, op);
    if (it == rank.pending.end() || it->req == kNone)
      return;
    rank.test_entry = *it;
    rank.pending.erase(it);
    MicroOp check;
    check.code = OpCode::TestCheck;
    x.ops.insert(x.ops.begin() + static_cast<std::ptrdiff_t>(x.next_op), check);
    x.status = Status::Sleeping;
    x.block_start = now_;
    timers_.schedule(e, now_ + test_sleeps_ * options_.test_cost_s);
  }

  // The second half of a test, after its delay: a completed request leaves a
  // null request for the wait that follows; an incomplete one goes back.
  void test_check(Rank& rank)
  {
    Pending entry = rank.test_entry;
    if (requests_[entry.req].complete) {
      release(entry.req);
      entry.req = kNone;
      test_sleeps_ = 1;
    } else {
      ++test_sleeps_;
    }
    rank.pending.push_back(entry);
  }

  std::uint32_t new_request() { return requests_.acquire(); }

  void release(std::uint32_t id)
  {
    if (--requests_[id].refs == 0)
      requests_.release(id);
  }

  std::uint32_t post_send(std::uint32_t e, const MicroOp& op)
  {
    int r = exec(e).rank;
    std::uint32_t id = new_request();
    Request& q = requests_[id];
    q.owner = e;
    q.owner_rank = r;
    q.src = r;
    q.dst = op.peer;
    q.tag = op.tag;
    q.ctx = op.ctx;
    q.is_send = true;
    q.bytes = op.bytes;
    q.refs = 2; // owner + matching/transfer
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    ++rank.report.messages_sent;
    rank.report.bytes_sent += op.bytes;
    if (!op.sync && static_cast<double>(op.bytes) < options_.eager_threshold_bytes)
      q.complete = true; // detached: the sender goes on at once
    Mailbox& box = mailboxes_[static_cast<std::size_t>(op.peer)];
    for (auto it = box.recvs.begin(); it != box.recvs.end(); ++it)
      if (matches(requests_[*it], q)) {
        std::uint32_t recv = *it;
        box.recvs.erase(it);
        start_transfer(id, recv);
        return id;
      }
    box.sends.push_back(id);
    return id;
  }

  std::uint32_t post_recv(std::uint32_t e, const MicroOp& op)
  {
    int r = exec(e).rank;
    std::uint32_t id = new_request();
    Request& q = requests_[id];
    q.owner = e;
    q.owner_rank = r;
    q.src = op.peer;
    q.dst = r;
    q.tag = op.tag;
    q.ctx = op.ctx;
    q.bytes = op.bytes;
    q.wildcard_source = op.peer == kAnySource;
    q.refs = 2;
    Mailbox& box = mailboxes_[static_cast<std::size_t>(r)];
    for (auto it = box.sends.begin(); it != box.sends.end(); ++it)
      if (matches(q, requests_[*it])) {
        std::uint32_t send = *it;
        box.sends.erase(it);
        start_transfer(send, id);
        return id;
      }
    box.recvs.push_back(id);
    return id;
  }

  void start_transfer(std::uint32_t send, std::uint32_t recv)
  {
    Request& s = requests_[send];
    Request& q = requests_[recv];
    s.match_time = q.match_time = now_;
    q.src = s.src; // resolves wildcards
    q.tag = s.tag;
    for (std::uint32_t id : {send, recv}) {
      Request& x = requests_[id];
      if (x.waited && !x.complete) {
        Exec& owner = exec(x.owner);
        owner.last_match = std::max(owner.last_match, now_);
      }
    }
    int src_host = ranks_[static_cast<std::size_t>(s.src)].host;
    int dst_host = ranks_[static_cast<std::size_t>(q.dst)].host;
    std::uint32_t flow = net_->start(src_host, dst_host, static_cast<double>(s.bytes) + options_.envelope_bytes, now_);
    if (flow >= transfers_.size())
      transfers_.resize(flow + 1);
    transfers_[flow] = {send, recv};
  }

  void transfer_done(std::uint32_t flow)
  {
    auto [send, recv] = transfers_[flow];
    Rank& receiver = ranks_[static_cast<std::size_t>(requests_[recv].dst)];
    ++receiver.report.messages_received;
    receiver.report.bytes_received += requests_[send].bytes;
    complete(send);
    complete(recv);
    release(send);
    release(recv);
  }

  void complete(std::uint32_t id)
  {
    Request& q = requests_[id];
    if (q.complete)
      return;
    q.complete = true;
    if (!q.is_send && !q.is_collective) {
      Rank& rank = rank_of(exec(q.owner));
      if (q.ctx % 2 == 0) { // user point-to-point traffic (even contexts)
        rank.last_recv_tag = q.tag;
        if (q.wildcard_source)
          rank.last_wild_source = q.src;
      }
    }
    if (!q.waited)
      return;
    q.waited = false;
    Exec& owner = exec(q.owner);
    if (owner.wait_any) {
      owner.wait_any = false;
      owner.blocked_on = 0;
      for (std::uint32_t other : owner.waiting)
        requests_[other].waited = false;
      resume_from(q.owner, Status::Blocked);
      return;
    }
    if (--owner.blocked_on == 0)
      resume_from(q.owner, Status::Blocked);
  }

  void block_on_one(std::uint32_t e, std::uint32_t req)
  {
    Request& q = requests_[req];
    if (q.complete)
      return;
    Exec& x = exec(e);
    q.waited = true;
    q.owner = e;
    x.blocked_on = 1;
    x.status = Status::Blocked;
    x.block_start = now_;
    x.last_match = q.match_time;
    x.waiting.assign(1, req);
  }

  void block_on(std::uint32_t e, const std::vector<std::uint32_t>& reqs)
  {
    Exec& x = exec(e);
    std::uint32_t n = 0;
    for (std::uint32_t id : reqs) {
      Request& q = requests_[id];
      if (!q.complete) {
        q.waited = true;
        q.owner = e; // a request waited by the main context is owned by it
        ++n;
      }
    }
    if (n == 0)
      return;
    x.blocked_on = n;
    x.status = Status::Blocked;
    x.block_start = now_;
    x.last_match = -1;
    for (std::uint32_t id : reqs)
      if (!requests_[id].complete && requests_[id].match_time >= 0)
        x.last_match = std::max(x.last_match, requests_[id].match_time);
    x.waiting = reqs;
  }

  void resume_from(std::uint32_t e, Status expected)
  {
    Exec& x = exec(e);
    if (x.status != expected)
      return;
    Rank& rank = rank_of(x);
    int r = x.rank;
    double spent = now_ - x.block_start;
    bool main = !x.background;
    switch (expected) {
    case Status::Computing:
      rank.report.compute_s += main ? spent : 0.0;
      if (main)
        span(r, SpanKind::Compute, x.block_start, now_);
      break;
    case Status::Sleeping:
      if (!main)
        break;
      if (x.next_op < x.ops.size() && x.ops[x.next_op].code == OpCode::TestCheck) {
        rank.report.communicate_s += spent;
        span(r, SpanKind::Communicate, x.block_start, now_);
      } else {
        rank.report.sleep_s += spent;
        span(r, SpanKind::Sleep, x.block_start, now_);
      }
      break;
    case Status::Blocked: {
      if (!main)
        break;
      double waited = x.last_match > x.block_start ? std::min(now_, x.last_match) - x.block_start : 0.0;
      rank.report.wait_s += waited;
      rank.report.communicate_s += spent - waited;
      if (waited > 0)
        span(r, SpanKind::Wait, x.block_start, x.block_start + waited);
      span(r, SpanKind::Communicate, x.block_start + waited, now_);
      x.waiting.clear();
      break;
    }
    default:
      break;
    }
    x.status = Status::Ready;
    ready_.push_back(e);
  }

  void span(int r, SpanKind kind, double a, double b)
  {
    if (options_.record_timeline)
      timeline_.add(static_cast<std::size_t>(r), kind, a, b);
  }

  std::string describe(int r) const
  {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    std::string what = rank.has_action ? fmt::format("{}:{}: '{}'", rank.reader->path(), rank.action.line,
                                                     action_keyword(rank.action))
                                       : fmt::format("{}: end of trace (waiting for its pending requests)",
                                                     rank.reader->path());
    std::string on;
    for (std::uint32_t e = 0; e < execs_.size(); ++e) {
      const Exec& x = execs_[e];
      if (x.rank != r || x.status == Status::Done || (x.background && x.ops.empty()))
        continue;
      for (std::uint32_t id : x.waiting) {
        const Request& q = requests_[id];
        if (q.complete)
          continue;
        if (!on.empty())
          on += ", ";
        if (q.is_collective) {
          on += "a non-blocking collective";
          continue;
        }
        std::string src = q.src == kAnySource ? "any" : std::to_string(q.src);
        on += fmt::format("{} {}->{} tag {} {} bytes{}", q.is_send ? "send" : "recv", src, q.dst, q.tag, q.bytes,
                          q.ctx % 2 == 1 ? " (inside a collective)" : "");
      }
    }
    return fmt::format("rank {} blocked at {}{}", r, what, on.empty() ? "" : " on " + on);
  }

  void check_deadlock() const
  {
    std::vector<int> stuck;
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
      if (execs_[static_cast<std::uint32_t>(r)].status != Status::Done)
        stuck.push_back(r);
    if (stuck.empty())
      return;
    std::string msg = fmt::format("deadlock at simulated time {:.6f} s: {} of {} ranks cannot progress", now_,
                                  stuck.size(), ranks_.size());
    std::size_t shown = 0;
    for (int r : stuck) {
      if (++shown > 16) {
        msg += fmt::format("\n  ... and {} more", stuck.size() - 16);
        break;
      }
      msg += "\n  " + describe(r);
    }
    // messages sent but never received
    std::size_t unmatched = 0;
    for (const Mailbox& box : mailboxes_)
      unmatched += box.sends.size();
    if (unmatched)
      msg += fmt::format("\n  {} sent message(s) were never received", unmatched);
    throw Error(msg);
  }

  const TraceIndex& trace_;
  const Platform& platform_;
  const ReplayOptions& options_;
  CpuModel cpu_;
  std::unique_ptr<NetworkModel> net_;
  CompletionHeap timers_;
  std::unique_ptr<TraceSource> source_; // before ranks_: their readers use it
  std::vector<Rank> ranks_;
  SlotPool<Exec> execs_; // the first P are the ranks' main contexts
  std::vector<Communicator> comms_;
  std::vector<Split> splits_;
  std::map<std::pair<int, std::uint32_t>, int> split_ids_;
  std::vector<Mailbox> mailboxes_;
  SlotPool<Request> requests_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> transfers_;
  std::vector<std::uint32_t> exec_of_cpu_;
  std::deque<std::uint32_t> ready_;
  std::vector<std::uint32_t> scratch_;
  Timeline timeline_; // empty unless record_timeline
  double now_ = 0;
  std::uint64_t actions_ = 0;
  int test_sleeps_ = 1;
};

} // namespace

ReplayReport replay_trace(const TraceIndex& trace, const Platform& platform, const Placement& placement,
                          const ReplayOptions& options)
{
  return Engine(trace, platform, placement, options).run();
}

} // namespace perfcast
