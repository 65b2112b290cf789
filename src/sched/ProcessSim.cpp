#include "sched/ProcessSim.hpp"

#include "core/Error.hpp"
#include "sched/LoadIndex.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <fmt/format.h>
#include <queue>

namespace perfcast::sched {
namespace {

enum class EventKind { Arrival, CpuCheck, DeviceDone, SleepDone, Rebalance, MigrationDone };

struct Event {
  double time;
  std::uint64_t seq; // ties: scheduling order
  EventKind kind;
  int a;             // process (Arrival, SleepDone, MigrationDone) or computer
  std::uint64_t b;   // CPU version, device (0 disk, 1 network), or destination computer
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

struct CpuJob {
  int process;
  double remaining; // instructions
  double amount;    // instructions of the whole stage, for the end test
};

/// A stage at a device: its requests are served one at a time, each behind
/// the requests already queued (first come first served per request). A
/// request's speed is set when it enters service: a disk writes at its busy
/// rate if the processes then want every core.
struct DeviceVisit {
  int process;
  double request_s;       // service of one request
  double request_busy_s;  // the same while the processes want every core
  long requests;          // requests left, the one in service included
  double cpu_cores;       // cores the machine spends serving it (disk_cpu_s_per_byte x its rate), off the processes' share
  double cpu_cores_busy;  // the same at the busy rate
};

struct Device {
  std::deque<DeviceVisit> queue; // head in service
  double head_cores = 0;         // cores the request in service takes (its cpu_cores or cpu_cores_busy)
};

struct ComputerState {
  std::vector<CpuJob> cpu;
  double remaining_sum = 0; // sum of the CPU jobs' remaining instructions, kept up to date
  double last_update = 0;
  std::uint64_t version = 0;
  Device devices[2];
  int resident = 0;
  int busy = 0; // cores in use, as last reported
  double memory_mb = 0;
  double future_cpu = 0; // instructions of CPU stages not yet started, of resident processes
};

class Simulator final : public LoadView {
public:
  Simulator(const std::vector<ComputerSpec>& computers, std::vector<ProcessSpec>& processes, PlacementPolicy& policy,
            Rng& rng, const ProcessSimOptions& options)
      : computers_(computers), processes_(processes), policy_(policy), rng_(rng), options_(options),
        state_(computers.size()), next_stage_(processes.size(), 0), results_(processes.size()),
        free_memory_(computers.size()), least_work_(computers.size())
  {
    for (std::size_t c = 0; c < computers.size(); ++c)
      index(static_cast<int>(c));
  }

  std::vector<ProcessResult> run()
  {
    for (std::size_t p = 0; p < processes_.size(); ++p)
      push(processes_[p].arrival_s, EventKind::Arrival, static_cast<int>(p), 0);
    double period = policy_.rebalance_period_s();
    if (period > 0) {
      migrating_remaining_.assign(processes_.size(), 0.0);
      push(period, EventKind::Rebalance, 0, 0);
    }
    while (!events_.empty()) {
      Event e = events_.top();
      events_.pop();
      now_ = e.time;
      switch (e.kind) {
      case EventKind::Arrival: arrive(e.a); break;
      case EventKind::CpuCheck: cpu_check(e.a, e.b); break;
      case EventKind::DeviceDone: device_done(e.a, static_cast<int>(e.b)); break;
      case EventKind::SleepDone: start_next_stage(e.a); break;
      case EventKind::Rebalance: rebalance(period); break;
      case EventKind::MigrationDone: land(e.a, static_cast<int>(e.b)); break;
      }
    }
    return results_;
  }

  std::size_t size() const override { return computers_.size(); }

  ComputerLoad at(int c) const override
  {
    const ComputerState& s = state_[static_cast<std::size_t>(c)];
    double done = s.cpu.empty() ? 0 : cpu_rate(c) * (now_ - s.last_update);
    double left = s.future_cpu;
    if (options_.exhaustive_loads) {
      for (const CpuJob& j : s.cpu)
        left += std::max(0.0, j.remaining - done);
    } else {
      left += std::max(0.0, s.remaining_sum - done * static_cast<double>(s.cpu.size()));
    }
    return {s.resident, static_cast<int>(s.cpu.size()),
            left / computers_[static_cast<std::size_t>(c)].model.instructions_per_s, s.memory_mb};
  }

  std::vector<RunningProcess> running(int c) const override
  {
    const ComputerState& s = state_[static_cast<std::size_t>(c)];
    double done = s.cpu.empty() ? 0 : cpu_rate(c) * (now_ - s.last_update);
    std::vector<RunningProcess> out;
    for (const CpuJob& j : s.cpu)
      out.push_back({j.process, std::max(0.0, j.remaining - done), processes_[static_cast<std::size_t>(j.process)].memory_mb});
    std::sort(out.begin(), out.end(), [](const RunningProcess& x, const RunningProcess& y) { return x.process < y.process; });
    return out;
  }

  int least_work_per_core() const override
  {
    auto work = [this](int c) { return at(c).cpu_work_s / computers_[static_cast<std::size_t>(c)].cores; };
    if (!options_.exhaustive_loads)
      return least_work_.least(now_, work);
    int best = 0;
    double least = work(0);
    for (std::size_t i = 1; i < computers_.size(); ++i) {
      double w = work(static_cast<int>(i));
      if (w < least) {
        best = static_cast<int>(i);
        least = w;
      }
    }
    return best;
  }

  int most_free_memory() const override
  {
    if (!options_.exhaustive_loads)
      return free_memory_.most();
    int best = 0;
    auto free_mb = [&](std::size_t i) { return computers_[i].model.main_memory_mb - state_[i].memory_mb; };
    double most = free_mb(0);
    for (std::size_t i = 1; i < computers_.size(); ++i) {
      double f = free_mb(i);
      if (f > most) {
        best = static_cast<int>(i);
        most = f;
      }
    }
    return best;
  }

  double migration_cost_s(double memory_mb, int from, int to) const override
  {
    RouteCost r;
    if (options_.route) {
      r = options_.route(from, to);
    } else {
      const ComputerSpec& a = computers_[static_cast<std::size_t>(from)];
      const ComputerSpec& b = computers_[static_cast<std::size_t>(to)];
      double bw = a.network_bytes_per_s > 0 && b.network_bytes_per_s > 0
                      ? std::min(a.network_bytes_per_s, b.network_bytes_per_s)
                      : std::max(a.network_bytes_per_s, b.network_bytes_per_s);
      r = {bw, std::max(a.model.message_latency_s, b.model.message_latency_s)};
    }
    return unimpp::migration_time(memory_mb, r.bytes_per_s, r.latency_s);
  }

private:
  void push(double t, EventKind k, int a, std::uint64_t b) { events_.push({t, seq_++, k, a, b}); }

  double cpu_rate(int c) const
  {
    const ComputerSpec& spec = computers_[static_cast<std::size_t>(c)];
    const ComputerState& s = state_[static_cast<std::size_t>(c)];
    double n = static_cast<double>(s.cpu.size());
    // a disk request in service takes its cores from the processes only when
    // they want more than what is left (the rest of the time it uses idle ones)
    const std::deque<DeviceVisit>& disk = s.devices[0].queue;
    double cores = spec.cores - (disk.empty() ? 0.0 : std::min(s.devices[0].head_cores, 0.99 * spec.cores));
    double share = n <= cores ? 1.0 : cores / n;
    double alpha = spec.model.slowdown.alpha(s.memory_mb, spec.model.main_memory_mb);
    return spec.model.instructions_per_s * share / (1 + alpha);
  }

  void advance_cpu(int c)
  {
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    if (!s.cpu.empty()) {
      double done = cpu_rate(c) * (now_ - s.last_update);
      for (CpuJob& j : s.cpu)
        j.remaining -= done;
      s.remaining_sum -= done * static_cast<double>(s.cpu.size());
    }
    s.last_update = now_;
  }

  /// Brings the two placement indexes up to date with computer c (after advance_cpu).
  void index(int c)
  {
    const ComputerSpec& spec = computers_[static_cast<std::size_t>(c)];
    const ComputerState& s = state_[static_cast<std::size_t>(c)];
    free_memory_.set(c, spec.model.main_memory_mb - s.memory_mb);
    double per_core_s = spec.model.instructions_per_s * spec.cores;
    least_work_.set(c, s.future_cpu / per_core_s, std::max(0.0, s.remaining_sum) / per_core_s, s.last_update);
  }

  void reschedule_cpu(int c)
  {
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    ++s.version;
    if (!options_.exhaustive_loads)
      index(c);
    int busy = std::min(static_cast<int>(s.cpu.size()), computers_[static_cast<std::size_t>(c)].cores);
    if (busy != s.busy) {
      s.busy = busy;
      if (options_.on_busy_change)
        options_.on_busy_change(now_, c, busy);
    }
    if (s.cpu.empty()) {
      s.remaining_sum = 0; // no drift carried into the next busy period
      return;
    }
    double least = s.cpu.front().remaining;
    for (const CpuJob& j : s.cpu)
      least = std::min(least, j.remaining);
    push(now_ + std::max(0.0, least) / cpu_rate(c), EventKind::CpuCheck, c, s.version);
  }

  double service_time(const ComputerSpec& c, const Stage& st) const
  {
    switch (st.kind) {
    case StageKind::Cpu: return st.amount / c.model.instructions_per_s;
    case StageKind::DiskRead: return st.amount / c.model.disk_read_bytes_per_s;
    case StageKind::DiskWrite: return st.amount / c.model.disk_write_bytes_per_s;
    case StageKind::Message:
      return unimpp::message_time(c.model) + (c.network_bytes_per_s > 0 ? st.amount / c.network_bytes_per_s : 0.0);
    case StageKind::Sleep: return st.amount;
    }
    return 0;
  }

  void arrive(int p)
  {
    const ProcessSpec& spec = processes_[static_cast<std::size_t>(p)];
    int c = policy_.place(spec, computers_, *this, rng_);
    if (c < 0 || static_cast<std::size_t>(c) >= computers_.size())
      throw std::logic_error("placement policy chose no computer");
    const ComputerSpec& cs = computers_[static_cast<std::size_t>(c)];
    ProcessResult& r = results_[static_cast<std::size_t>(p)];
    r.id = spec.id;
    r.computer = c;
    r.arrival_s = spec.arrival_s;
    for (const Stage& st : spec.stages) {
      r.service_s += service_time(cs, st);
      if (st.kind == StageKind::Cpu)
        state_[static_cast<std::size_t>(c)].future_cpu += st.amount;
    }
    ++active_;
    if (options_.progress && (++arrived_ & 0xffff) == 0)
      options_.progress(arrived_, now_);
    // memory in use changes every CPU job's speed on this computer
    advance_cpu(c);
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    s.resident += 1;
    s.memory_mb += spec.memory_mb;
    reschedule_cpu(c);
    start_next_stage(p);
  }

  void start_next_stage(int p)
  {
    const ProcessSpec& spec = processes_[static_cast<std::size_t>(p)];
    int c = results_[static_cast<std::size_t>(p)].computer;
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    std::size_t& k = next_stage_[static_cast<std::size_t>(p)];
    if (k == spec.stages.size()) {
      results_[static_cast<std::size_t>(p)].finish_s = now_;
      --active_;
      advance_cpu(c);
      s.resident -= 1;
      s.memory_mb -= spec.memory_mb;
      if (s.resident == 0) // no rounding left over: idle computers compare equal
        s.future_cpu = s.memory_mb = 0;
      reschedule_cpu(c);
      return;
    }
    const Stage& st = spec.stages[k++];
    const ComputerSpec& cs = computers_[static_cast<std::size_t>(c)];
    switch (st.kind) {
    case StageKind::Cpu:
      advance_cpu(c);
      s.future_cpu -= st.amount;
      s.cpu.push_back({p, st.amount, st.amount});
      s.remaining_sum += st.amount;
      reschedule_cpu(c);
      return;
    case StageKind::DiskRead:
    case StageKind::DiskWrite:
    case StageKind::Message: {
      int d = st.kind == StageKind::Message ? 1 : 0;
      Device& dev = s.devices[d];
      // a stage of n requests: n equal parts of its service time
      long n = st.kind != StageKind::Message && st.request > 0 && st.amount > st.request
                   ? static_cast<long>(std::ceil(st.amount / st.request))
                   : 1;
      double rate = st.kind == StageKind::DiskRead    ? cs.model.disk_read_bytes_per_s
                    : st.kind == StageKind::DiskWrite ? cs.model.disk_write_bytes_per_s
                                                      : 0.0;
      double busy_rate = st.kind == StageKind::DiskWrite && cs.model.disk_write_busy_bytes_per_s > 0
                             ? cs.model.disk_write_busy_bytes_per_s
                             : rate;
      double request_s = service_time(cs, st) / static_cast<double>(n);
      double request_busy_s = rate > 0 ? request_s * rate / busy_rate : request_s;
      double cpu_cores = d == 0 ? cs.model.disk_cpu_s_per_byte * rate : 0.0;
      double cpu_cores_busy = d == 0 ? cs.model.disk_cpu_s_per_byte * busy_rate : 0.0;
      bool starts = dev.queue.empty();
      if (starts && cpu_cores > 0)
        advance_cpu(c); // the processes' rate changes now
      dev.queue.push_back({p, request_s, request_busy_s, n, cpu_cores, cpu_cores_busy});
      if (starts) {
        begin_service(c, d);
        if (cpu_cores > 0)
          reschedule_cpu(c);
      }
      return;
    }
    case StageKind::Sleep: push(now_ + st.amount, EventKind::SleepDone, p, 0); return;
    }
  }

  void cpu_check(int c, std::uint64_t version)
  {
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    if (version != s.version)
      return; // superseded by a later change on this computer
    advance_cpu(c);
    // finished jobs leave in process order; a job is done when what is left
    // is rounding (relative to its stage) or would end within the clock's
    // resolution, which would otherwise schedule the same instant forever
    double rate = cpu_rate(c), resolution = 1e-12 * std::max(1.0, now_);
    std::vector<int> done;
    std::vector<CpuJob> running;
    for (const CpuJob& j : s.cpu) {
      if (j.remaining <= 1e-9 * j.amount || j.remaining / rate <= resolution) {
        done.push_back(j.process);
        s.remaining_sum -= j.remaining;
      } else {
        running.push_back(j);
      }
    }
    s.cpu = std::move(running);
    std::sort(done.begin(), done.end());
    reschedule_cpu(c);
    for (int p : done)
      start_next_stage(p);
  }

  /// The head of device d's queue enters service: at the disk's busy rate when
  /// the processes want every core (measured by the probe beside busy cores).
  void begin_service(int c, int d)
  {
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    Device& dev = s.devices[d];
    const DeviceVisit& v = dev.queue.front();
    bool busy = d == 0 && static_cast<int>(s.cpu.size()) >= computers_[static_cast<std::size_t>(c)].cores;
    dev.head_cores = busy ? v.cpu_cores_busy : v.cpu_cores;
    push(now_ + (busy ? v.request_busy_s : v.request_s), EventKind::DeviceDone, c, static_cast<std::uint64_t>(d));
  }

  void device_done(int c, int d)
  {
    Device& dev = state_[static_cast<std::size_t>(c)].devices[d];
    // with a disk that costs CPU, the processes' rate may change with the request in service
    bool disk_cpu = d == 0 && computers_[static_cast<std::size_t>(c)].model.disk_cpu_s_per_byte > 0;
    if (disk_cpu)
      advance_cpu(c);
    DeviceVisit v = dev.queue.front();
    dev.queue.pop_front();
    if (--v.requests > 0) // its next request goes behind the others'
      dev.queue.push_back(v);
    if (!dev.queue.empty())
      begin_service(c, d);
    if (disk_cpu)
      reschedule_cpu(c);
    if (v.requests == 0)
      start_next_stage(v.process);
  }

  /// CPU instructions of the stages after the current one.
  double later_cpu(int p) const
  {
    const ProcessSpec& spec = processes_[static_cast<std::size_t>(p)];
    double sum = 0;
    for (std::size_t k = next_stage_[static_cast<std::size_t>(p)]; k < spec.stages.size(); ++k)
      if (spec.stages[k].kind == StageKind::Cpu)
        sum += spec.stages[k].amount;
    return sum;
  }

  void rebalance(double period)
  {
    bool moved = false;
    if (active_ > 0)
      for (const Migration& m : policy_.rebalance(computers_, *this)) {
        depart(m.process, m.to);
        moved = true;
      }
    if (active_ == 0 && events_.empty())
      return;
    // a move not worth it now is not worth it before something changes (what
    // it would gain only shrinks as the process runs): skip to the first
    // round after the next event, so a short period cannot spin on idle rounds
    double next = now_ + period;
    if (!moved && !events_.empty() && events_.top().time > next)
      next = now_ + period * std::ceil((events_.top().time - now_) / period);
    push(next, EventKind::Rebalance, 0, 0);
  }

  /// Takes a process in a CPU stage off its computer and sends its memory to `to`.
  void depart(int p, int to)
  {
    ProcessResult& r = results_[static_cast<std::size_t>(p)];
    int from = r.computer;
    if (to < 0 || static_cast<std::size_t>(to) >= computers_.size() || to == from)
      throw std::logic_error("balancing policy chose no other computer");
    ComputerState& s = state_[static_cast<std::size_t>(from)];
    advance_cpu(from);
    auto it = std::find_if(s.cpu.begin(), s.cpu.end(), [p](const CpuJob& j) { return j.process == p; });
    if (it == s.cpu.end())
      throw std::logic_error("balancing policy moved a process outside a CPU stage");
    double left = std::max(0.0, it->remaining);
    s.remaining_sum -= it->remaining;
    s.cpu.erase(it);
    const ProcessSpec& spec = processes_[static_cast<std::size_t>(p)];
    double later = later_cpu(p);
    s.future_cpu -= later;
    s.resident -= 1;
    s.memory_mb -= spec.memory_mb;
    if (s.resident == 0)
      s.future_cpu = s.memory_mb = 0;
    reschedule_cpu(from);
    // what is left is now served by the destination: its service time changes
    const ComputerSpec& a = computers_[static_cast<std::size_t>(from)];
    const ComputerSpec& b = computers_[static_cast<std::size_t>(to)];
    r.service_s += left / b.model.instructions_per_s - left / a.model.instructions_per_s;
    for (std::size_t k = next_stage_[static_cast<std::size_t>(p)]; k < spec.stages.size(); ++k)
      r.service_s += service_time(b, spec.stages[k]) - service_time(a, spec.stages[k]);
    r.computer = to;
    r.migrations += 1;
    migrating_remaining_[static_cast<std::size_t>(p)] = left;
    push(now_ + migration_cost_s(spec.memory_mb, from, to), EventKind::MigrationDone, p,
         static_cast<std::uint64_t>(to));
  }

  /// A migrated process resumes its CPU stage on its new computer.
  void land(int p, int c)
  {
    const ProcessSpec& spec = processes_[static_cast<std::size_t>(p)];
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    advance_cpu(c);
    s.resident += 1;
    s.memory_mb += spec.memory_mb;
    s.future_cpu += later_cpu(p);
    double left = migrating_remaining_[static_cast<std::size_t>(p)];
    const Stage& st = spec.stages[next_stage_[static_cast<std::size_t>(p)] - 1];
    s.cpu.push_back({p, left, st.amount});
    s.remaining_sum += left;
    reschedule_cpu(c);
  }

  const std::vector<ComputerSpec>& computers_;
  std::vector<ProcessSpec>& processes_;
  PlacementPolicy& policy_;
  Rng& rng_;
  const ProcessSimOptions& options_;
  std::vector<ComputerState> state_;
  std::vector<std::size_t> next_stage_;
  std::vector<ProcessResult> results_;
  std::vector<double> migrating_remaining_;
  FreeMemoryIndex free_memory_;
  LeastWorkIndex least_work_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  long long active_ = 0; // arrived and not finished
  long long arrived_ = 0;
};

} // namespace

std::vector<ProcessResult> simulate_processes(const std::vector<ComputerSpec>& computers,
                                              std::vector<ProcessSpec> processes, PlacementPolicy& policy, Rng& rng,
                                              const ProcessSimOptions& options)
{
  if (computers.empty())
    throw Error("the scheduling simulation needs at least one computer");
  for (const ComputerSpec& c : computers)
    if (c.cores < 1 || !(c.model.instructions_per_s > 0))
      throw Error(fmt::format("computer '{}': expected at least one core and a positive speed", c.model.name));
  std::stable_sort(processes.begin(), processes.end(), [](const ProcessSpec& a, const ProcessSpec& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.id < b.id;
  });
  return Simulator(computers, processes, policy, rng, options).run();
}

std::vector<ProcessResult> simulate_processes(const std::vector<ComputerSpec>& computers,
                                              std::vector<ProcessSpec> processes, PlacementPolicy& policy, Rng& rng)
{
  return simulate_processes(computers, std::move(processes), policy, rng, ProcessSimOptions{});
}

} // namespace perfcast::sched
