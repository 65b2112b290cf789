// Micro-ops executed: sends, receives, waits, tests and cancels on a rank's trace-level requests.
#include "sim/ReplayEngine.hpp"

#include "core/Error.hpp"
#include <algorithm>
#include <fmt/format.h>

namespace perfcast::replay {

void ReplayEngine::execute(std::uint32_t e, const MicroOp& op)
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
  case OpCode::TestAll:
    test_all(e);
    return;
  case OpCode::TestAllCheck:
    test_all_check(rank);
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

int ReplayEngine::local_of_world(int comm, int world) const
{
  const auto& m = comms_[static_cast<std::size_t>(comm)].members;
  auto it = std::find(m.begin(), m.end(), world);
  return it == m.end() ? world : static_cast<int>(it - m.begin());
}

std::vector<Pending>::iterator ReplayEngine::find_pending(Rank& rank, const MicroOp& op)
{
  return std::find_if(rank.pending.begin(), rank.pending.end(), [&](const Pending& p) {
    return p.src == op.peer && p.dst == op.peer2 && p.tag == op.tag && p.comm == op.comm;
  });
}

// MPI_Cancel: a request not yet matched leaves its mailbox and ends; one
// already matched completes as it would have. Either way no wait follows.
void ReplayEngine::cancel(Rank& rank, const MicroOp& op)
{
  auto it = find_pending(rank, op);
  if (it == rank.pending.end() || it->req == kNone)
    return;
  std::uint32_t id = it->req;
  rank.pending.erase(it);
  Request& q = requests_[id];
  if (q.match_time < 0) {
    if (mailboxes_.remove(id, requests_)) {
      q.complete = true;
      release(id); // the mailbox's reference
    }
  }
  release(id); // the owner's
}

// MPI_Waitany / MPI_Waitsome over the rank's pending requests: consume the
// first completed one (waitsome: every completed one); if none has completed,
// block until one does and look again.
void ReplayEngine::wait_any(std::uint32_t e, const MicroOp& op)
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
void ReplayEngine::test(std::uint32_t e, const MicroOp& op)
{
  Exec& x = exec(e);
  Rank& rank = rank_of(x);
  auto it = find_pending(rank, op);
  if (it == rank.pending.end() || it->req == kNone)
    return;
  rank.test_entry = *it;
  rank.pending.erase(it);
  test_delay(e, OpCode::TestCheck);
}

// A test's smpi/test delay (growing while tests fail, as SimGrid's), then `check`
void ReplayEngine::test_delay(std::uint32_t e, OpCode check)
{
  Exec& x = exec(e);
  MicroOp op;
  op.code = check;
  x.ops.insert(x.ops.begin() + static_cast<std::ptrdiff_t>(x.next_op), op);
  x.status = Status::Sleeping;
  x.block_start = now_;
  timers_.schedule(e, now_ + test_sleeps_ * options_.test_cost_s);
}

// The second half of a test, after its delay: a completed request leaves a
// null request for the wait that follows; an incomplete one goes back.
void ReplayEngine::test_check(Rank& rank)
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

// MPI_Testall over every pending trace request (SMPI's trace names none): the
// smpi/test delay a test has, then, as MPI, all of them released once all
// are complete (each leaves a null request for a later wait) or none
void ReplayEngine::test_all(std::uint32_t e)
{
  Exec& x = exec(e);
  Rank& rank = rank_of(x);
  if (std::none_of(rank.pending.begin(), rank.pending.end(), [](const Pending& p) { return p.req != kNone; }))
    return; // nothing active: MPI returns at once with flag true
  test_delay(e, OpCode::TestAllCheck);
}

void ReplayEngine::test_all_check(Rank& rank)
{
  bool all = std::all_of(rank.pending.begin(), rank.pending.end(),
                         [&](const Pending& p) { return p.req == kNone || requests_[p.req].complete; });
  if (!all) {
    ++test_sleeps_;
    return;
  }
  for (Pending& p : rank.pending)
    if (p.req != kNone) {
      release(p.req);
      p.req = kNone;
    }
  test_sleeps_ = 1;
}
} // namespace perfcast::replay
