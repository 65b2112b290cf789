// Sends meet receives in the receiver's mailbox (posting order); transfers and request completion.
#include "sim/ReplayEngine.hpp"

#include <algorithm>
#include <bit>

namespace perfcast::replay {

std::uint32_t ReplayEngine::post_send(std::uint32_t e, const MicroOp& op)
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
  // who talks to whom and at what size (the queueing model's inputs):
  // user traffic travels on even contexts, the collectives' schedules on odd ones
  int size_class = static_cast<int>(std::bit_width(op.bytes));
  if (op.ctx % 2 == 0) {
    Rank::PartnerCounters* c = nullptr;
    for (Rank::PartnerCounters& k : rank.partner_counters)
      if (k.peer == op.peer && k.size_class == size_class)
        c = &k;
    if (!c) {
      c = &rank.partner_counters[rank.partner_counters_next];
      rank.partner_counters_next = (rank.partner_counters_next + 1) % Rank::kPartnerCounters;
      *c = {op.peer, size_class, &rank.report.partners[op.peer], &rank.report.partner_sizes[op.peer][size_class]};
    }
    ++c->partner->messages;
    c->partner->bytes += op.bytes;
    ++c->pair->messages;
    c->pair->bytes += op.bytes;
  } else {
    ++rank.report.collective.messages;
    rank.report.collective.bytes += op.bytes;
  }
  if (rank.size_counter_class != size_class) {
    rank.size_counter_class = size_class;
    rank.size_counter = &rank.report.sizes[size_class];
  }
  ++rank.size_counter->messages;
  rank.size_counter->bytes += op.bytes;
  if (!op.sync && static_cast<double>(op.bytes) < options_.eager_threshold_bytes)
    q.complete = true; // detached: the sender goes on at once
  if (std::uint32_t recv = mailboxes_.take_recv(q, requests_); recv != kNone)
    start_transfer(id, recv);
  else
    mailboxes_.add(id, requests_);
  return id;
}

std::uint32_t ReplayEngine::post_recv(std::uint32_t e, const MicroOp& op)
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
  if (std::uint32_t send = mailboxes_.take_send(q, requests_); send != kNone)
    start_transfer(send, id);
  else
    mailboxes_.add(id, requests_);
  return id;
}

void ReplayEngine::start_transfer(std::uint32_t send, std::uint32_t recv)
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

void ReplayEngine::transfer_done(std::uint32_t flow)
{
  auto [send, recv] = transfers_[flow];
  if (send == kNone) { // a VP's migration
    migration_done();
    return;
  }
  Rank& receiver = ranks_[static_cast<std::size_t>(requests_[recv].dst)];
  ++receiver.report.messages_received;
  receiver.report.bytes_received += requests_[send].bytes;
  complete(send);
  complete(recv);
  release(send);
  release(recv);
}

void ReplayEngine::complete(std::uint32_t id)
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

void ReplayEngine::block_on_one(std::uint32_t e, std::uint32_t req)
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

void ReplayEngine::block_on(std::uint32_t e, const std::vector<std::uint32_t>& reqs)
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
} // namespace perfcast::replay
