#include "sched/ProcessSim.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <queue>

namespace perfcast::sched {
namespace {

enum class EventKind { Arrival, CpuCheck, DeviceDone, SleepDone };

struct Event {
  double time;
  std::uint64_t seq; // ties: scheduling order
  EventKind kind;
  int a;             // process (Arrival, SleepDone) or computer
  std::uint64_t b;   // CPU version, or device (0 disk, 1 network)
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

struct CpuJob {
  int process;
  double remaining; // instructions
  double amount;    // instructions of the whole stage, for the end test
};

struct Device {
  std::deque<std::pair<int, double>> queue; // (process, service seconds), head in service
};

struct ComputerState {
  std::vector<CpuJob> cpu;
  double last_update = 0;
  std::uint64_t version = 0;
  Device devices[2];
  int resident = 0;
  double memory_mb = 0;
  double future_cpu = 0; // instructions of CPU stages not yet started, of resident processes
};

class Simulator {
public:
  Simulator(const std::vector<ComputerSpec>& computers, std::vector<ProcessSpec>& processes, PlacementPolicy& policy,
            Rng& rng)
      : computers_(computers), processes_(processes), policy_(policy), rng_(rng), state_(computers.size()),
        next_stage_(processes.size(), 0), results_(processes.size())
  {
  }

  std::vector<ProcessResult> run()
  {
    for (std::size_t p = 0; p < processes_.size(); ++p)
      push(processes_[p].arrival_s, EventKind::Arrival, static_cast<int>(p), 0);
    while (!events_.empty()) {
      Event e = events_.top();
      events_.pop();
      now_ = e.time;
      switch (e.kind) {
      case EventKind::Arrival: arrive(e.a); break;
      case EventKind::CpuCheck: cpu_check(e.a, e.b); break;
      case EventKind::DeviceDone: device_done(e.a, static_cast<int>(e.b)); break;
      case EventKind::SleepDone: start_next_stage(e.a); break;
      }
    }
    return results_;
  }

private:
  void push(double t, EventKind k, int a, std::uint64_t b) { events_.push({t, seq_++, k, a, b}); }

  double cpu_rate(int c) const
  {
    const ComputerSpec& spec = computers_[static_cast<std::size_t>(c)];
    const ComputerState& s = state_[static_cast<std::size_t>(c)];
    double n = static_cast<double>(s.cpu.size());
    double share = n <= spec.cores ? 1.0 : spec.cores / n;
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
    }
    s.last_update = now_;
  }

  void reschedule_cpu(int c)
  {
    ComputerState& s = state_[static_cast<std::size_t>(c)];
    ++s.version;
    if (s.cpu.empty())
      return;
    double least = s.cpu.front().remaining;
    for (const CpuJob& j : s.cpu)
      least = std::min(least, j.remaining);
    push(now_ + std::max(0.0, least) / cpu_rate(c), EventKind::CpuCheck, c, s.version);
  }

  std::vector<ComputerLoad> loads()
  {
    std::vector<ComputerLoad> out(computers_.size());
    for (std::size_t c = 0; c < computers_.size(); ++c) {
      const ComputerState& s = state_[c];
      double done = s.cpu.empty() ? 0 : cpu_rate(static_cast<int>(c)) * (now_ - s.last_update);
      double left = s.future_cpu;
      for (const CpuJob& j : s.cpu)
        left += std::max(0.0, j.remaining - done);
      out[c] = {s.resident, left / computers_[c].model.instructions_per_s, s.memory_mb};
    }
    return out;
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
    int c = policy_.place(spec, computers_, loads(), rng_);
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
      advance_cpu(c);
      s.resident -= 1;
      s.memory_mb -= spec.memory_mb;
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
      reschedule_cpu(c);
      return;
    case StageKind::DiskRead:
    case StageKind::DiskWrite:
    case StageKind::Message: {
      int d = st.kind == StageKind::Message ? 1 : 0;
      Device& dev = s.devices[d];
      dev.queue.emplace_back(p, service_time(cs, st));
      if (dev.queue.size() == 1)
        push(now_ + dev.queue.front().second, EventKind::DeviceDone, c, static_cast<std::uint64_t>(d));
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
    for (const CpuJob& j : s.cpu)
      (j.remaining <= 1e-9 * j.amount || j.remaining / rate <= resolution ? done.push_back(j.process)
                                                                           : running.push_back(j));
    s.cpu = std::move(running);
    std::sort(done.begin(), done.end());
    reschedule_cpu(c);
    for (int p : done)
      start_next_stage(p);
  }

  void device_done(int c, int d)
  {
    Device& dev = state_[static_cast<std::size_t>(c)].devices[d];
    int p = dev.queue.front().first;
    dev.queue.pop_front();
    if (!dev.queue.empty())
      push(now_ + dev.queue.front().second, EventKind::DeviceDone, c, static_cast<std::uint64_t>(d));
    start_next_stage(p);
  }

  const std::vector<ComputerSpec>& computers_;
  std::vector<ProcessSpec>& processes_;
  PlacementPolicy& policy_;
  Rng& rng_;
  std::vector<ComputerState> state_;
  std::vector<std::size_t> next_stage_;
  std::vector<ProcessResult> results_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
};

} // namespace

std::vector<ProcessResult> simulate_processes(const std::vector<ComputerSpec>& computers,
                                              std::vector<ProcessSpec> processes, PlacementPolicy& policy, Rng& rng)
{
  if (computers.empty())
    throw Error("the scheduling simulation needs at least one computer");
  for (const ComputerSpec& c : computers)
    if (c.cores < 1 || !(c.model.instructions_per_s > 0))
      throw Error(fmt::format("computer '{}': expected at least one core and a positive speed", c.model.name));
  std::stable_sort(processes.begin(), processes.end(), [](const ProcessSpec& a, const ProcessSpec& b) {
    return a.arrival_s != b.arrival_s ? a.arrival_s < b.arrival_s : a.id < b.id;
  });
  return Simulator(computers, processes, policy, rng).run();
}

} // namespace perfcast::sched
