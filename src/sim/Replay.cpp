#include "sim/Replay.hpp"

#include "core/Error.hpp"
#include "sim/CpuModel.hpp"
#include "sim/MicroOp.hpp"

#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <memory>

namespace perfcast {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

struct Request {
  std::int32_t owner = 0;
  std::int32_t src = 0, dst = 0, tag = 0; // src may be kAnySource, tag kAnyTag (receives)
  Context ctx = Context::User;
  bool is_send = false;
  bool wildcard_source = false;
  bool complete = false;
  bool waited = false; // owner is blocked on it
  std::uint8_t refs = 0;
  std::uint64_t bytes = 0;
  double match_time = -1;
};

// An entry of a rank's trace-level request list; req == kNone is SimGrid's
// "null request" left by a successful test.
struct Pending {
  std::int32_t src, dst, tag;
  std::uint32_t req;
};

enum class Status : std::uint8_t { Ready, Blocked, Computing, Sleeping, Done };

struct Rank {
  int host = 0;
  std::unique_ptr<RankReader> reader;
  Action action;
  bool has_action = false;
  std::vector<MicroOp> ops;
  std::size_t next_op = 0;
  Status status = Status::Ready;
  std::vector<Pending> pending;
  std::vector<std::uint32_t> group;   // requests of the running collective
  std::vector<std::uint32_t> waiting; // requests it is blocked on
  std::uint32_t blocked_on = 0;
  bool wait_any = false; // blocked until any one of `waiting` completes
  double block_start = 0;
  double last_match = -1;
  bool finishing = false;
  // perfcast extensions: replies to wildcard sources and loop blocks
  std::int32_t last_wild_source = -1;
  std::int32_t last_recv_tag = -1;
  std::vector<Action> loop_body;
  std::size_t loop_pos = 0;
  std::int32_t loop_stop_tag = 0;
  bool in_loop = false;
  bool loop_stop = false;
  RankReport report;
};

struct Mailbox {
  std::deque<std::uint32_t> sends; // unmatched, in posting order
  std::deque<std::uint32_t> recvs;
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
    mailboxes_.resize(static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r) {
      Rank& rank = ranks_[static_cast<std::size_t>(r)];
      rank.host = placement[static_cast<std::size_t>(r)];
      if (rank.host < 0 || rank.host >= static_cast<int>(platform.hosts().size()))
        throw Error(fmt::format("rank {} is placed on host index {}, which the platform lacks", r, rank.host));
      rank.reader = std::make_unique<RankReader>(trace.rank_files[static_cast<std::size_t>(r)], r, P, trace.shared_file);
      rank.report.rank = r;
      rank.report.host = rank.host;
      ready_.push_back(r);
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
        int r = ready_.front();
        ready_.pop_front();
        step(r);
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
      for (std::uint32_t exec : done)
        resume_from(exec_owner_[exec], Status::Computing);
      std::uint32_t rank_id;
      while (timers_.pop_until(t, rank_id))
        resume_from(static_cast<int>(rank_id), Status::Sleeping);
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
  // ---- rank execution
  void step(int r)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    while (rank.status == Status::Ready) {
      if (rank.next_op < rank.ops.size()) {
        execute(r, rank.ops[rank.next_op++]);
        continue;
      }
      if (!fetch(r))
        return;
    }
  }

  // Loads the next trace action's steps; false when the rank is done.
  bool fetch(int r)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    rank.ops.clear();
    rank.next_op = 0;
    if (rank.finishing) {
      rank.status = Status::Done;
      rank.report.finish_s = now_;
      return false;
    }
    if (!next_action(rank, rank.action)) {
      // SimGrid waits for the requests still pending at the end of a trace
      rank.finishing = true;
      rank.has_action = false;
      MicroOp op;
      op.code = OpCode::WaitAll;
      rank.ops.push_back(op);
      return true;
    }
    rank.has_action = true;
    ++actions_;
    ++rank.report.actions;
    expand(rank.action, r, rank.ops);
    if (rank.in_loop && (rank.action.type == ActionType::Recv || rank.action.type == ActionType::Wait ||
                         rank.action.type == ActionType::Waitall || rank.action.type == ActionType::Waitany)) {
      MicroOp check;
      check.code = OpCode::LoopCheck;
      rank.ops.push_back(check);
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

  void expand(const Action& a, int r, std::vector<MicroOp>& ops)
  {
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
      op.tag = a.tag;
      op.bytes = a.bytes;
      ops.push_back(op);
      return;
    case ActionType::Recv:
    case ActionType::Irecv:
      op.code = a.type == ActionType::Recv ? OpCode::Recv : OpCode::Irecv;
      op.peer = a.partner;
      op.tag = a.tag;
      op.bytes = a.bytes;
      ops.push_back(op);
      return;
    case ActionType::Wait:
    case ActionType::Test:
      if (a.type == ActionType::Test) {
        op.code = OpCode::TestKey;
      } else {
        op.code = OpCode::WaitKey;
      }
      op.peer = a.partner;
      op.peer2 = a.partner2;
      op.tag = a.tag;
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
      // SMPI: isend + irecv, both tag 0 on the world communicator, then wait for both
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
      return;
    }
    default:
      if (is_collective(a.type))
        expand_collective(a, r, trace_.ranks(), options_.collectives, ops);
      return;
    }
  }

  void execute(int r, const MicroOp& op)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    switch (op.code) {
    case OpCode::Compute: {
      std::uint32_t id = cpu_.start(rank.host, op.value, now_);
      if (id >= exec_owner_.size())
        exec_owner_.resize(id + 1);
      exec_owner_[id] = r;
      rank.status = Status::Computing;
      rank.block_start = now_;
      return;
    }
    case OpCode::Sleep:
      rank.status = Status::Sleeping;
      rank.block_start = now_;
      timers_.schedule(static_cast<std::uint32_t>(r), now_ + op.value);
      return;
    case OpCode::LoopCheck:
      if (rank.last_recv_tag == rank.loop_stop_tag)
        rank.loop_stop = true;
      return;
    case OpCode::Send:
    case OpCode::Isend: {
      if (op.peer == kLastSource) {
        if (rank.last_wild_source < 0)
          fail_at(rank.reader->path(), rank.action.line,
                  "send to '@' but no receive from any source has completed on this rank yet");
        MicroOp resolved = op;
        resolved.peer = rank.last_wild_source;
        execute(r, resolved);
        return;
      }
      std::uint32_t req = post_send(r, op);
      if (op.code == OpCode::Send) {
        block_on(r, {req});
        release(req); // the owner's reference; the transfer keeps its own
      } else if (op.in_group) {
        rank.group.push_back(req);
      } else {
        rank.pending.push_back({r, op.peer, op.tag, req});
      }
      return;
    }
    case OpCode::Recv:
    case OpCode::Irecv: {
      std::uint32_t req = post_recv(r, op);
      if (op.code == OpCode::Recv) {
        block_on(r, {req});
        release(req);
      } else if (op.in_group) {
        rank.group.push_back(req);
      } else {
        rank.pending.push_back({op.peer, r, op.tag, req});
      }
      return;
    }
    case OpCode::WaitKey: {
      auto it = std::find_if(rank.pending.begin(), rank.pending.end(), [&](const Pending& p) {
        return p.src == op.peer && p.dst == op.peer2 && p.tag == op.tag;
      });
      if (it == rank.pending.end())
        return; // as SimGrid: assume an earlier test caught it
      std::uint32_t req = it->req;
      rank.pending.erase(it);
      if (req != kNone) {
        block_on(r, {req});
        release(req);
      }
      return;
    }
    case OpCode::TestKey:
      test(r, op);
      return;
    case OpCode::WaitAll: {
      std::vector<std::uint32_t> reqs;
      for (const Pending& p : rank.pending)
        if (p.req != kNone)
          reqs.push_back(p.req);
      rank.pending.clear();
      block_on(r, reqs);
      for (std::uint32_t q : reqs)
        release(q);
      return;
    }
    case OpCode::WaitAny:
      wait_any(r, op);
      return;
    case OpCode::WaitGroup: {
      std::vector<std::uint32_t> reqs;
      reqs.swap(rank.group);
      block_on(r, reqs);
      for (std::uint32_t q : reqs)
        release(q);
      return;
    }
    }
  }

  // MPI_Waitany / MPI_Waitsome over the rank's pending requests: consume the
  // first completed one (waitsome: every completed one); if none has completed,
  // block until one does and look again.
  void wait_any(int r, const MicroOp& op)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
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
    rank.blocked_on = 1;
    rank.wait_any = true;
    rank.status = Status::Blocked;
    rank.block_start = now_;
    rank.last_match = -1;
    rank.waiting = reqs;
    // after waking, run this step again to consume what completed
    MicroOp again = op;
    rank.ops.insert(rank.ops.begin() + static_cast<std::ptrdiff_t>(rank.next_op), again);
  }

  // MPI_Test as SMPI replays it: pay smpi/test (growing while tests fail), then
  // look; a successful test leaves a null request for the matching wait.
  void test(int r, const MicroOp& op)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    auto it = std::find_if(rank.pending.begin(), rank.pending.end(), [&](const Pending& p) {
      return p.src == op.peer && p.dst == op.peer2 && p.tag == op.tag;
    });
    if (it == rank.pending.end() || it->req == kNone)
      return;
    Pending entry = *it;
    rank.pending.erase(it);
    // the check happens after the sleep: push a continuation step
    MicroOp check;
    check.code = OpCode::TestKey;
    check.peer = -2; // marks the continuation
    test_entry_[static_cast<std::size_t>(r)] = entry;
    rank.ops.insert(rank.ops.begin() + static_cast<std::ptrdiff_t>(rank.next_op), check);
    (void)check;
    double cost = test_sleeps_ * options_.test_cost_s;
    rank.status = Status::Sleeping;
    rank.block_start = now_;
    timers_.schedule(static_cast<std::uint32_t>(r), now_ + cost);
  }

  std::uint32_t new_request()
  {
    if (!free_requests_.empty()) {
      std::uint32_t id = free_requests_.back();
      free_requests_.pop_back();
      requests_[id] = Request{};
      return id;
    }
    requests_.emplace_back();
    return static_cast<std::uint32_t>(requests_.size() - 1);
  }

  void release(std::uint32_t id)
  {
    Request& q = requests_[id];
    if (--q.refs == 0)
      free_requests_.push_back(id);
  }

  std::uint32_t post_send(int r, const MicroOp& op)
  {
    std::uint32_t id = new_request();
    Request& q = requests_[id];
    q.owner = r;
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

  std::uint32_t post_recv(int r, const MicroOp& op)
  {
    std::uint32_t id = new_request();
    Request& q = requests_[id];
    q.owner = r;
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
        Rank& owner = ranks_[static_cast<std::size_t>(x.owner)];
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
    Request& q = requests_[recv];
    Rank& receiver = ranks_[static_cast<std::size_t>(q.owner)];
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
    if (!q.is_send) {
      Rank& owner = ranks_[static_cast<std::size_t>(q.owner)];
      if (q.ctx == Context::User) {
        owner.last_recv_tag = q.tag;
        if (q.wildcard_source)
          owner.last_wild_source = q.src;
      }
    }
    if (!q.waited)
      return;
    q.waited = false;
    Rank& owner = ranks_[static_cast<std::size_t>(q.owner)];
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

  void block_on(int r, const std::vector<std::uint32_t>& reqs)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    std::uint32_t n = 0;
    for (std::uint32_t id : reqs) {
      Request& q = requests_[id];
      if (!q.complete) {
        q.waited = true;
        ++n;
      }
    }
    if (n == 0)
      return;
    rank.blocked_on = n;
    rank.status = Status::Blocked;
    rank.block_start = now_;
    rank.last_match = -1;
    for (std::uint32_t id : reqs)
      if (!requests_[id].complete && requests_[id].match_time >= 0)
        rank.last_match = std::max(rank.last_match, requests_[id].match_time);
    rank.waiting = reqs;
  }

  void resume_from(int r, Status expected)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    if (rank.status != expected)
      return;
    double spent = now_ - rank.block_start;
    switch (expected) {
    case Status::Computing:
      rank.report.compute_s += spent;
      span(r, SpanKind::Compute, rank.block_start, now_);
      break;
    case Status::Sleeping:
      if (rank.next_op < rank.ops.size() && rank.ops[rank.next_op].code == OpCode::TestKey &&
          rank.ops[rank.next_op].peer == -2) {
        rank.report.communicate_s += spent;
        span(r, SpanKind::Communicate, rank.block_start, now_);
        finish_test(r);
      } else {
        rank.report.sleep_s += spent;
        span(r, SpanKind::Sleep, rank.block_start, now_);
      }
      break;
    case Status::Blocked: {
      double waited = rank.last_match > rank.block_start ? std::min(now_, rank.last_match) - rank.block_start : 0.0;
      rank.report.wait_s += waited;
      rank.report.communicate_s += spent - waited;
      if (waited > 0)
        span(r, SpanKind::Wait, rank.block_start, rank.block_start + waited);
      span(r, SpanKind::Communicate, rank.block_start + waited, now_);
      rank.waiting.clear();
      break;
    }
    default:
      break;
    }
    rank.status = Status::Ready;
    ready_.push_back(r);
  }

  void finish_test(int r)
  {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    ++rank.next_op; // consume the continuation
    Pending entry = test_entry_[static_cast<std::size_t>(r)];
    if (requests_[entry.req].complete) {
      release(entry.req);
      entry.req = kNone;
      test_sleeps_ = 1;
    } else {
      ++test_sleeps_;
    }
    rank.pending.push_back(entry);
  }

  void span(int r, SpanKind kind, double a, double b)
  {
    if (options_.record_timeline && b > a)
      timeline_.push_back({r, kind, a, b});
  }

  std::string describe(int r) const
  {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    std::string what = rank.has_action
                           ? fmt::format("{}:{}: '{}'", rank.reader->path(), rank.action.line, action_name(rank.action.type))
                           : fmt::format("{}: end of trace (waiting for its pending requests)", rank.reader->path());
    std::string on;
    for (std::uint32_t id : rank.waiting) {
      const Request& q = requests_[id];
      if (q.complete)
        continue;
      if (!on.empty())
        on += ", ";
      std::string src = q.src == kAnySource ? "any" : std::to_string(q.src);
      on += fmt::format("{} {}->{} tag {} {} bytes{}", q.is_send ? "send" : "recv", src, q.dst, q.tag, q.bytes,
                        q.ctx == Context::Collective ? " (inside a collective)" : "");
    }
    return fmt::format("rank {} blocked at {}{}", r, what, on.empty() ? "" : " on " + on);
  }

  void check_deadlock() const
  {
    std::vector<int> stuck;
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
      if (ranks_[static_cast<std::size_t>(r)].status != Status::Done)
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
  std::vector<Rank> ranks_;
  std::vector<Mailbox> mailboxes_;
  std::vector<Request> requests_;
  std::vector<std::uint32_t> free_requests_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> transfers_;
  std::vector<int> exec_owner_;
  std::map<std::size_t, Pending> test_entry_;
  std::deque<int> ready_;
  std::vector<Span> timeline_;
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
