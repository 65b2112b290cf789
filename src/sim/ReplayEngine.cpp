// The engine's event loop, trace reading and the rank state transitions.
#include "sim/ReplayEngine.hpp"

#include "core/Error.hpp"
#include <algorithm>
#include <fmt/format.h>

namespace perfcast::replay {

ReplayEngine::ReplayEngine(const TraceIndex& trace, const Platform& platform, const Placement& placement, const ReplayOptions& options)
    : trace_(trace), platform_(platform), options_(options), cpu_(platform),
      net_(make_network_model(options.network, platform, options.network_options))
{
  int P = trace.ranks();
  if (static_cast<int>(placement.size()) < P)
    throw Error(fmt::format("the placement covers {} ranks but the trace has {}", placement.size(), P));
  ranks_.resize(static_cast<std::size_t>(P));
  if (options_.record_timeline)
    timeline_ = Timeline(static_cast<std::size_t>(P));
  mailboxes_ = Mailboxes(static_cast<std::size_t>(P));
  Communicator world;
  for (int r = 0; r < P; ++r)
    world.members.push_back(r);
  comms_.push_back(world);
  if (!options.rank_source)
    source_ = std::make_unique<TraceSource>(trace);
  for (int r = 0; r < P; ++r) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    rank.host = placement[static_cast<std::size_t>(r)];
    if (rank.host < 0 || rank.host >= static_cast<int>(platform.hosts().size()))
      throw Error(fmt::format("rank {} is placed on host index {}, which the platform lacks", r, rank.host));
    rank.reader = options.rank_source ? options.rank_source(r) : source_->open_rank(r);
    rank.report.rank = r;
    rank.report.host = rank.host;
    std::uint32_t main = execs_.acquire(); // rank r's main context is execs_[r]
    execs_[main].rank = r;
    ready_.push_back(main);
  }
  // every pair of hosts in use must be connected; past kHostsCheckedInPairs hosts the pairs are too many to try
  // (a million ranks on 65,536 hosts: 4e9 pairs), and a missing route fails the first message that needs it,
  // with the same message, since the network models ask the platform for each pair's route
  std::vector<int> used(placement.begin(), placement.begin() + P);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  constexpr std::size_t kHostsCheckedInPairs = 2048;
  bool pairs = used.size() <= kHostsCheckedInPairs;
  for (int a : used)
    for (std::size_t j = 0; j < used.size(); ++j) {
      int b = pairs ? used[j] : a;
      if (!platform.has_route(a, b))
        throw Error(platform.no_route_message(a, b));
      if (!pairs)
        break;
    }
}

ReplayReport ReplayEngine::run()
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
    while (timers_.pop_until(t, e)) {
      if (e == balance_timer_)
        start_migrations();
      else
        resume_from(e, Status::Sleeping);
    }
  }
  check_deadlock();
  ReplayReport report;
  report.network = std::string(net_->name());
  report.actions = actions_;
  report.ranks.reserve(ranks_.size());
  for (Rank& r : ranks_) { // moved, not copied: the ranks' figures are most of the memory left at the end
    report.makespan_s = std::max(report.makespan_s, r.report.finish_s);
    report.ranks.push_back(std::move(r.report));
  }
  report.phases = phase_totals_;
  for (const PhaseTally& p : phases_) // behind a phase some rank never closed
    if (p.ranks == ranks_.size()) {
      ++report.phases.phases;
      report.phases.slowest_flops += p.slowest;
      report.phases.mean_flops += p.sum / static_cast<double>(p.ranks);
    }
  report.timeline = std::move(timeline_);
  return report;
}

void ReplayEngine::close_phase(Rank& rank)
{
  // no rank is behind first_phase_: it was dropped only when every rank had closed it
  std::size_t k = rank.phases_closed++ - first_phase_;
  if (phases_.size() <= k)
    phases_.resize(k + 1);
  PhaseTally& p = phases_[k];
  p.slowest = std::max(p.slowest, rank.phase_flops);
  p.sum += rank.phase_flops;
  ++p.ranks;
  rank.phase_flops = 0;
  while (!phases_.empty() && phases_.front().ranks == ranks_.size()) {
    const PhaseTally& done = phases_.front();
    ++phase_totals_.phases;
    phase_totals_.slowest_flops += done.slowest;
    phase_totals_.mean_flops += done.sum / static_cast<double>(done.ranks);
    phases_.pop_front();
    ++first_phase_;
  }
}

void ReplayEngine::fail_action(const Rank& rank, const std::string& what) const
{
  fail_at(rank.reader->path(), rank.action.line, what);
}

void ReplayEngine::step(std::uint32_t e)
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
      break;
  }
  // a VP that blocked in MPI or ended gives its core to the next ready VP
  if (vp_ && e < ranks_.size() && (exec(e).status == Status::Blocked || exec(e).status == Status::Done))
    leave_core(e);
}

// Loads the next trace action's steps into a main context; false when the rank is done.
bool ReplayEngine::fetch(std::uint32_t e)
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
    close_phase(rank);
    rank.finishing = true;
    rank.has_action = false;
    if (vp_)
      vp_trace_ended(rank);
    MicroOp op;
    op.code = OpCode::WaitAll;
    x.ops.push_back(op);
    return true;
  }
  rank.has_action = true;
  ++actions_;
  ++rank.report.actions;
  if (vp_ && rank.action.type == ActionType::Migrate) {
    migration_point(e);
    return true;
  }
  expand(e, rank.action);
  if (vp_ && (vp_->overheads.message_cpu_s > 0 || vp_->overheads.local_message_cpu_s > 0))
    charge_message_cpu(e);
  if (rank.in_loop && (rank.action.type == ActionType::Recv || rank.action.type == ActionType::Wait ||
                       rank.action.type == ActionType::Waitall || rank.action.type == ActionType::Waitany)) {
    MicroOp check;
    check.code = OpCode::LoopCheck;
    exec(e).ops.push_back(check);
  }
  return true;
}

// The next action: from the running loop block, else from the trace.
bool ReplayEngine::next_action(Rank& rank, Action& out)
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

void ReplayEngine::resume_from(std::uint32_t e, Status expected)
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
    if (vp_ && main && vp_->record_core_timeline)
      vp_result_.core_timeline.add(static_cast<std::size_t>(rank.core), SpanKind::Compute, x.block_start, now_);
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
  if (vp_ && expected == Status::Blocked && e < ranks_.size())
    want_core(e); // a VP blocked in MPI must get its core back first
  else
    ready_.push_back(e);
}
} // namespace perfcast::replay
