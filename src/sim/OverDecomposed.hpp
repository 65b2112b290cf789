#pragma once
// Over-decomposed replay (Tesser et al. 2016, SAMPI): the V ranks of a trace
// run as virtual processors (VPs) on P cores, as AMPI's user-level threads do.
// VPs on one core run one at a time and each keeps the core until it blocks
// in MPI (non-preemptive); a VP that becomes ready waits for its core in FIFO
// order. At every K-th migration point (`migrate BYTES` lines) all VPs meet in
// a balancing step: a Charm++ strategy (lb::decide) picks the new mapping from
// each VP's compute time since the previous step, and the VPs that move send
// their BYTES concurrently over the network model before the replay resumes.
#include "lb/LoadBalancer.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "report/Timeline.hpp"
#include "sim/Replay.hpp"
#include "trace/TraceIndex.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace perfcast {

/// What AMPI's runtime costs besides the traced program (bench/lb_ampi_probe.sh measures them).
struct VpOverheads {
  /// Bytes a migrating VP carries besides its traced heap: AMPI packs each rank's whole
  /// user-level thread stack (+tcharm_stacksize, 1 MiB by default), which no trace records.
  std::uint64_t stack_bytes = 0;
  /// CPU seconds a VP's core spends on each point-to-point message it sends to, or receives from,
  /// a VP on another core (AMPI's messaging runs on the PE; collectives count their messages).
  double message_cpu_s = 0;
  /// The same for a message between two VPs of one core.
  double local_message_cpu_s = 0;
  /// CPU seconds a migration costs its old core (packing) and its new core (unpacking) each.
  double migration_cpu_s = 0;
  /// Seconds every balancing step costs besides its migrations (the runtime's statistics and decision).
  double step_s = 0;
};

struct VpOptions {
  ReplayOptions replay;
  std::vector<int> core_of_vp; ///< initial core of every VP (V entries, each below the number of cores)
  int period = 0;              ///< balance at every period-th migration point of each VP; 0 never balances
  /// The strategy of a balancing step (lb::balancer_function); needed when period > 0.
  std::function<lb::LbDecision(const lb::LbProblem&)> balancer;
  bool use_pe_speed = false;   ///< let the balancer scale loads by core speed (Charm++'s +LBTestPESpeed)
  VpOverheads overheads;       ///< AMPI's costs the trace does not hold
  bool record_core_timeline = false; ///< fill VpReport::core_timeline
};

/// One balancing step: the synchronisation ended at start_s, the last migration at end_s.
struct BalanceStep {
  double start_s = 0;
  double end_s = 0;
  std::size_t migrations = 0;
  std::uint64_t bytes = 0;
  double max_avg_load = 0; ///< max over cores / average, of the loads the balancer saw, before it decided
};

struct VpReport {
  ReplayReport replay;           ///< makespan and per-VP figures (`ranks` are the VPs)
  std::vector<int> core_host;    ///< host of every core
  std::vector<int> final_core;   ///< core of every VP at the end
  std::vector<BalanceStep> steps;
  /// Compute seconds per iteration (interval between a VP's migration points) and core.
  std::vector<std::vector<double>> iteration_loads;
  Timeline core_timeline;        ///< compute time per core over time, when recorded
  std::size_t migrations() const;
  std::uint64_t bytes_migrated() const;
  double balancing_s() const;    ///< simulated time from the end of each synchronisation to its last migration, summed
};

/// Replays `trace` with its ranks as VPs on the cores whose hosts `core_host`
/// lists; throws Error for bad input (naming the file) and deadlocks.
VpReport replay_over_decomposed(const TraceIndex& trace, const Platform& platform, const Placement& core_host,
                                const VpOptions& options);

/// Charm++'s block mapping of V VPs on P cores: consecutive VPs per core, the first V mod P cores one more.
std::vector<int> block_mapping(int vps, int cores);
/// VP v on core v mod P.
std::vector<int> round_robin_mapping(int vps, int cores);
/// A mapping file: line v holds the core of VP v ('#' starts a comment; blank lines are skipped).
std::vector<int> read_mapping_file(const std::string& path, int vps, int cores);
/// "block", "round-robin" or a mapping file's path.
std::vector<int> make_mapping(const std::string& how, int vps, int cores);

} // namespace perfcast
