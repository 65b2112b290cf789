// Over-decomposed replay inside the engine: VPs take turns on their core
// (non-preemptive, FIFO), meet at balancing steps, and migrate over the network.
#include "core/Error.hpp"
#include "sim/ReplayEngine.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast::replay {

void ReplayEngine::set_vp(const VpOptions& options, const Placement& core_host)
{
  vp_ = &options;
  if (options.period > 0 && !options.balancer)
    throw Error("a balancing period needs a balancer");
  int V = static_cast<int>(ranks_.size());
  int P = static_cast<int>(core_host.size());
  if (static_cast<int>(options.core_of_vp.size()) != V)
    throw Error(fmt::format("the VP mapping covers {} VPs but the trace has {}", options.core_of_vp.size(), V));
  for (int h : core_host)
    for (int g : core_host)
      if (!platform_.has_route(h, g))
        throw Error(platform_.no_route_message(h, g));
  for (double s : {options.overheads.message_cpu_s, options.overheads.local_message_cpu_s, options.overheads.migration_cpu_s, options.overheads.step_s})
    if (!(s >= 0) || !std::isfinite(s))
      throw Error(fmt::format("an AMPI overhead of {} s: expected a finite number of seconds, 0 or more", s));
  if (balance_timer_ == kNone) {
    balance_timer_ = execs_.acquire(); // a slot that never runs: its id names the step's timer
    exec(balance_timer_).status = Status::Done;
  }
  cores_.assign(static_cast<std::size_t>(P), Core{});
  for (int c = 0; c < P; ++c)
    cores_[static_cast<std::size_t>(c)].host = core_host[static_cast<std::size_t>(c)];
  vp_result_.core_host = core_host;
  if (options.record_core_timeline)
    vp_result_.core_timeline = Timeline(static_cast<std::size_t>(P));
  // every VP starts ready; on each core the lowest VP runs first
  ready_.clear();
  for (int v = 0; v < V; ++v) {
    int c = options.core_of_vp[static_cast<std::size_t>(v)];
    if (c < 0 || c >= P)
      throw Error(fmt::format("VP {} is mapped to core {}, but there are {} cores", v, c, P));
    Rank& rank = ranks_[static_cast<std::size_t>(v)];
    rank.core = c;
    rank.host = rank.report.host = cores_[static_cast<std::size_t>(c)].host;
    want_core(static_cast<std::uint32_t>(v));
  }
}

void ReplayEngine::want_core(std::uint32_t e)
{
  Core& core = cores_[static_cast<std::size_t>(rank_of(exec(e)).core)];
  if (core.running == kNone) {
    core.running = e;
    ready_.push_back(e);
  } else {
    core.waiting.push_back(e);
  }
}

void ReplayEngine::leave_core(std::uint32_t e)
{
  Core& core = cores_[static_cast<std::size_t>(rank_of(exec(e)).core)];
  if (core.running != e)
    return;
  core.running = kNone;
  if (core.waiting.empty())
    return;
  core.running = core.waiting.front();
  core.waiting.pop_front();
  ready_.push_back(core.running);
}

void ReplayEngine::add_iteration_load(Rank& rank)
{
  double load = rank.report.compute_s - rank.compute_at_iteration;
  rank.compute_at_iteration = rank.report.compute_s;
  auto& loads = vp_result_.iteration_loads;
  std::size_t i = rank.migration_points;
  if (loads.size() <= i)
    loads.resize(i + 1, std::vector<double>(cores_.size(), 0.0));
  loads[i][static_cast<std::size_t>(rank.core)] += load;
}

void ReplayEngine::migration_point(std::uint32_t e)
{
  Exec& x = exec(e);
  Rank& rank = rank_of(x);
  add_iteration_load(rank);
  ++rank.migration_points;
  rank.migrate_bytes = rank.action.bytes;
  if (vp_->period <= 0 || rank.migration_points % static_cast<std::uint32_t>(vp_->period) != 0)
    return;
  // a global synchronisation: the VP waits (off its core) for all the others
  x.status = Status::Blocked;
  x.block_start = now_;
  x.last_match = -1;
  x.waiting.clear();
  leave_core(e); // now: the balancing step may move it to another core
  if (++at_balance_ == static_cast<int>(ranks_.size()))
    balance();
}

void ReplayEngine::vp_trace_ended(Rank& rank)
{
  add_iteration_load(rank);
  if (vp_->period > 0 && rank.migration_points == 0)
    fail_in(rank.reader->path(), fmt::format("no 'migrate' action in this rank's trace (expected migration points, "
                                             "one per iteration, for a balancing period of {})",
                                             vp_->period));
}

void ReplayEngine::balance()
{
  lb::LbProblem problem;
  problem.use_pe_speed = vp_->use_pe_speed;
  double fastest = 0;
  for (const Core& c : cores_)
    fastest = std::max(fastest, platform_.hosts()[static_cast<std::size_t>(c.host)].speed_flops);
  for (const Core& c : cores_) {
    lb::PeState pe;
    pe.speed = platform_.hosts()[static_cast<std::size_t>(c.host)].speed_flops / fastest;
    problem.pes.push_back(pe); // no background load: nothing but the VPs runs on a core
  }
  for (Rank& rank : ranks_) {
    lb::ObjectState object;
    object.pe = rank.core;
    object.load_s = rank.report.compute_s - rank.compute_at_step;
    object.bytes = rank.migrate_bytes;
    rank.compute_at_step = rank.report.compute_s;
    problem.objects.push_back(object);
  }
  std::vector<int> current(ranks_.size());
  for (std::size_t v = 0; v < ranks_.size(); ++v)
    current[v] = ranks_[v].core;
  // loads the balancer sees: every VP is migratable and cores have no background load
  std::vector<double> loads(cores_.size(), 0.0);
  for (std::size_t v = 0; v < ranks_.size(); ++v)
    loads[static_cast<std::size_t>(current[v])] += problem.objects[v].load_s;
  double total = 0, peak = 0;
  for (double l : loads) {
    total += l;
    peak = std::max(peak, l);
  }
  BalanceStep step;
  step.start_s = step.end_s = now_;
  step.max_avg_load = total > 0 ? peak / (total / static_cast<double>(loads.size())) : 1.0;
  lb::LbDecision decision = vp_->balancer(problem);
  // The runtime's CPU phase: every core packs the VPs it sends and unpacks
  // those it receives, migration_cpu_s each, one after the other, and the step
  // costs step_s besides; the cores work in parallel, so the phase lasts
  // step_s + migration_cpu_s x the most VPs any core sends plus receives.
  std::vector<int> moved(cores_.size(), 0);
  moves_.clear();
  for (std::size_t v = 0; v < ranks_.size(); ++v) {
    Rank& rank = ranks_[v];
    int to = decision.new_pe[v];
    if (to == rank.core)
      continue;
    ++moved[static_cast<std::size_t>(rank.core)];
    ++moved[static_cast<std::size_t>(to)];
    moves_.emplace_back(static_cast<int>(v), rank.host);
    rank.core = to;
    rank.host = cores_[static_cast<std::size_t>(to)].host;
    ++step.migrations;
    step.bytes += rank.migrate_bytes + vp_->overheads.stack_bytes;
  }
  vp_result_.steps.push_back(step);
  int most = moves_.empty() ? 0 : *std::max_element(moved.begin(), moved.end());
  double cpu = vp_->overheads.step_s + vp_->overheads.migration_cpu_s * most;
  if (cpu > 0)
    timers_.schedule(balance_timer_, now_ + cpu);
  else
    start_migrations();
}

// The step's migrations, sent at once over the network; the step ends with the last.
void ReplayEngine::start_migrations()
{
  for (auto [v, from_host] : moves_) {
    const Rank& rank = ranks_[static_cast<std::size_t>(v)];
    std::uint64_t payload = rank.migrate_bytes + vp_->overheads.stack_bytes;
    // the VP's memory (heap and thread stack) travels alone: no MPI envelope
    std::uint32_t flow = net_->start(from_host, rank.host, static_cast<double>(payload), now_);
    if (flow >= transfers_.size())
      transfers_.resize(flow + 1);
    transfers_[flow] = {kNone, kNone};
    ++migrations_in_flight_;
  }
  moves_.clear();
  if (migrations_in_flight_ == 0)
    end_balance();
}

// AMPI's messages take CPU on the PE: each send costs its CPU before it
// leaves, each blocking receive after it returns, and the non-blocking
// receives posted so far after the next wait of the VP returns. A message
// between VPs on different cores costs message_cpu_s on each side, one
// between VPs of the same core local_message_cpu_s (a receive from any source
// counts as one between cores).
void ReplayEngine::charge_message_cpu(std::uint32_t e)
{
  Exec& x = exec(e);
  Rank& rank = rank_of(x);
  double speed = platform_.hosts()[static_cast<std::size_t>(rank.host)].speed_flops;
  auto cost = [&](const MicroOp& op) {
    bool local = op.peer >= 0 && static_cast<std::size_t>(op.peer) < ranks_.size() &&
                 ranks_[static_cast<std::size_t>(op.peer)].core == rank.core;
    return local ? vp_->overheads.local_message_cpu_s : vp_->overheads.message_cpu_s;
  };
  std::vector<MicroOp> charged;
  charged.reserve(x.ops.size() * 2);
  MicroOp cpu;
  cpu.code = OpCode::Compute;
  for (const MicroOp& op : x.ops) {
    bool wait = op.code == OpCode::WaitKey || op.code == OpCode::WaitAll || op.code == OpCode::WaitAny ||
                op.code == OpCode::WaitGroup;
    if ((op.code == OpCode::Send || op.code == OpCode::Isend) && cost(op) > 0) {
      cpu.value = cost(op) * speed;
      charged.push_back(cpu);
    }
    charged.push_back(op);
    if (op.code == OpCode::Irecv)
      rank.unpaid_receive_s += cost(op);
    if (op.code == OpCode::Recv && cost(op) > 0) {
      cpu.value = cost(op) * speed;
      charged.push_back(cpu);
    } else if (wait && rank.unpaid_receive_s > 0) {
      cpu.value = rank.unpaid_receive_s * speed;
      rank.unpaid_receive_s = 0;
      charged.push_back(cpu);
    }
  }
  x.ops = std::move(charged);
}

void ReplayEngine::end_balance()
{
  vp_result_.steps.back().end_s = now_;
  at_balance_ = 0;
  for (std::uint32_t v = 0; v < ranks_.size(); ++v)
    resume_from(v, Status::Blocked);
}

void ReplayEngine::migration_done()
{
  if (--migrations_in_flight_ == 0)
    end_balance();
}

VpReport ReplayEngine::take_vp_report(ReplayReport replay)
{
  VpReport report = std::move(vp_result_);
  report.replay = std::move(replay);
  for (const Rank& rank : ranks_)
    report.final_core.push_back(rank.core);
  for (RankReport& r : report.replay.ranks)
    r.host = ranks_[static_cast<std::size_t>(r.rank)].host;
  return report;
}

} // namespace perfcast::replay

namespace perfcast {

VpReport replay_over_decomposed(const TraceIndex& trace, const Platform& platform, const Placement& core_host,
                                const VpOptions& options)
{
  Placement vp_host;
  for (int c : options.core_of_vp) {
    if (c < 0 || c >= static_cast<int>(core_host.size()))
      throw Error(fmt::format("a VP is mapped to core {}, but there are {} cores", c, core_host.size()));
    vp_host.push_back(core_host[static_cast<std::size_t>(c)]);
  }
  replay::ReplayEngine engine(trace, platform, vp_host, options.replay);
  engine.set_vp(options, core_host);
  ReplayReport replay = engine.run();
  return engine.take_vp_report(std::move(replay));
}

} // namespace perfcast
