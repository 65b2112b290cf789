#pragma once
// The scheduling simulator of processes on unlike computers (SchedSim's role
// in de Mello and Senger, ../shared/papers/unimpp-schedsim-mello-senger.txt):
// processes arrive, a placement policy picks a computer, and each process runs
// its stages there. A computer's cores are shared by processor sharing (n
// processes on c cores each get min(1, c/n) of a core), slowed by UniMPP's
// memory factor 1 + alpha(memory in use) (eq. 3); its disk and its network
// interface serve one request at a time in arrival order, a read taking
// bytes / dr (eq. 4), a write bytes / dw (eq. 5) and a message 2o + l plus
// bytes over the link's bandwidth (eqs. 6 and 7). Time spent queued is the
// waiting time of those equations. Events at equal times are handled in the
// order they were scheduled, so results are deterministic.
#include <algorithm>
#include "core/Distribution.hpp"
#include "unimpp/UniMpp.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfcast::sched {

/// A computer: UniMPP's description plus its cores and link bandwidth.
struct ComputerSpec {
  unimpp::Computer model;
  int cores = 1;
  double network_bytes_per_s = 0; ///< 0: messages cost 2o + l only
};

enum class StageKind { Cpu, DiskRead, DiskWrite, Message, Sleep };

/// One step of a process: instructions, bytes or seconds as the kind says.
struct Stage {
  StageKind kind = StageKind::Cpu;
  double amount = 0;
  /// Bytes per request of a disk stage (0: one request): the disk serves the
  /// requests of the processes at it in turn, as it does when processes write
  /// in blocks with O_DIRECT, and a stage ends with its last request.
  double request = 0;
};

struct ProcessSpec {
  long long id = 0;
  double arrival_s = 0;
  double memory_mb = 0; ///< resident on its computer from arrival to end
  std::vector<Stage> stages;
};

struct ProcessResult {
  long long id = 0;
  int computer = -1;
  double arrival_s = 0;
  double finish_s = 0;
  double service_s = 0; ///< its stages alone on an idle computer (no sharing, no queue, no memory delay)
  int migrations = 0;   ///< times a balancing policy moved it (computer is the last one)
  double response_s() const { return finish_s - arrival_s; }
  /// Time not spent being served; never below 0 (finish - arrival - service rounds to -1e-16 on an idle computer).
  double waiting_s() const { return std::max(0.0, response_s() - service_s); }
  double slowdown() const { return service_s > 0 ? response_s() / service_s : 1.0; }
};

/// What a policy may look at when it places a process.
struct ComputerLoad {
  int resident = 0;               ///< processes on the computer now
  int cpu_jobs = 0;               ///< of which in a CPU stage, sharing the cores
  double cpu_work_s = 0;          ///< CPU work left, in seconds of one core of this computer
  double memory_in_use_mb = 0;
};

/// A process in a CPU stage, as a migrating policy sees it.
struct RunningProcess {
  int process = -1;               ///< index in the simulation's arrival order
  double remaining_instructions = 0;
  double memory_mb = 0;
};

/// The computers' state now, computed only for the computers a policy asks about.
class LoadView {
public:
  virtual ~LoadView() = default;
  /// Number of computers.
  virtual std::size_t size() const = 0;
  /// The load of one computer now.
  virtual ComputerLoad at(int computer) const = 0;
  /// The processes of one computer in a CPU stage, in process order.
  virtual std::vector<RunningProcess> running(int computer) const = 0;
  /// The first computer with the least CPU work left per core.
  virtual int least_work_per_core() const = 0;
  /// The first computer with the most main memory free.
  virtual int most_free_memory() const = 0;
  /// Seconds moving a process of `memory_mb` from one computer to another takes.
  virtual double migration_cost_s(double memory_mb, int from, int to) const = 0;
};

/// Moving one running process to another computer.
struct Migration {
  int process = -1;
  int to = -1;
};

/// Picks a computer for each arriving process, and may move running ones.
class PlacementPolicy {
public:
  virtual ~PlacementPolicy() = default;
  /// Index of the computer for `process`.
  virtual int place(const ProcessSpec& process, const std::vector<ComputerSpec>& computers, const LoadView& loads,
                    Rng& rng) = 0;
  /// Seconds between two rebalancing rounds; 0 for a policy that never migrates.
  virtual double rebalance_period_s() const { return 0; }
  /// The migrations of one rebalancing round (none by default).
  virtual std::vector<Migration> rebalance(const std::vector<ComputerSpec>&, const LoadView&) { return {}; }
};

/// A policy by name: random, round-robin, least-work, lowest:probes=L,
/// threshold:probes=L,limit=T, most-free-memory, balance:period=P,probes=L.
/// Throws Error when unknown.
std::unique_ptr<PlacementPolicy> make_policy(const std::string& spec);

/// Names and parameters of the policies, one line each (for perfcast list).
std::vector<std::string> describe_policies();

/// Bandwidth and latency between two computers, for migrations.
struct RouteCost {
  double bytes_per_s = 0; ///< 0: no bandwidth term
  double latency_s = 0;
};

/// What a simulation records besides the per-process results.
struct ProcessSimOptions {
  /// Route between two computers; unset: the slower of the two computers'
  /// network bandwidths and the larger of their message latencies.
  std::function<RouteCost(int from, int to)> route;
  /// Recomputes every load from every job at each arrival (the slow reference
  /// the incremental loads are tested against).
  bool exhaustive_loads = false;
  /// When set, receives (time, computer, busy cores) at every change.
  std::function<void(double time_s, int computer, int busy_cores)> on_busy_change;
  /// When set, called after every 65,536 arrivals with the count so far.
  std::function<void(long long arrived, double time_s)> progress;
};

/// Runs the processes (sorted by arrival, ties by id) to completion.
std::vector<ProcessResult> simulate_processes(const std::vector<ComputerSpec>& computers,
                                              std::vector<ProcessSpec> processes, PlacementPolicy& policy, Rng& rng);
/// The same with routes, a reference mode and a utilisation record.
std::vector<ProcessResult> simulate_processes(const std::vector<ComputerSpec>& computers,
                                              std::vector<ProcessSpec> processes, PlacementPolicy& policy, Rng& rng,
                                              const ProcessSimOptions& options);

} // namespace perfcast::sched
