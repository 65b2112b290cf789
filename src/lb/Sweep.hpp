#pragma once
// A study of over-decomposition and load balancing (Tesser et al. 2016,
// section 5.3, Figure 7): every combination of balancer, balancing period, VP
// level (one trace per level) and core count replayed with VPs, in parallel
// on local threads. Results come back in configuration order whatever the
// number of threads, so the study is deterministic.
#include "platform/Platform.hpp"
#include "sim/OverDecomposed.hpp"
#include "sim/Replay.hpp"
#include "trace/TraceIndex.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace perfcast::lb {

/// One over-decomposition level: a trace whose ranks become the VPs.
struct SweepLevel {
  std::string path;
  TraceIndex trace;
};

/// What to sweep over.
struct SweepOptions {
  std::vector<std::string> balancers; ///< specs, as `perfcast list` shows them
  std::vector<int> periods;           ///< balancing periods in migration points (each at least 1)
  std::vector<int> core_counts;
  std::string mapping = "block";      ///< initial mapping: block or round-robin
  std::string placement = "round-robin"; ///< how the cores are chosen on the platform
  ReplayOptions replay;
  VpOverheads overheads;              ///< AMPI's costs, the same in every configuration
  unsigned threads = 0;               ///< 0: one per hardware thread
  /// Called after each configuration (configurations done, total), from any thread, serialised.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// One configuration; balancer "none" with period 0 is the reference without balancing.
struct SweepConfig {
  std::size_t level = 0;
  int cores = 0;
  std::string balancer;
  int period = 0;
};

struct SweepResult {
  SweepConfig config;
  int vps = 0;
  double makespan_s = 0;
  double reference_s = 0; ///< makespan of the same level and cores without balancing
  std::size_t steps = 0;
  std::size_t migrations = 0;
  std::uint64_t bytes = 0;
  double balancing_s = 0;
};

/// The configurations in sweep order: level, cores, then the reference, then balancer x period.
std::vector<SweepConfig> sweep_configs(const std::vector<SweepLevel>& levels, const SweepOptions& options);
/// Checks the options (specs, periods, core counts against every level's VPs); throws Error naming the flag or trace.
void check_sweep(const std::vector<SweepLevel>& levels, const SweepOptions& options);
/// Replays configurations `first`, `first + stride`, ... (all of them by default) and returns their results in order.
std::vector<SweepResult> run_sweep(const std::vector<SweepLevel>& levels, const Platform& platform,
                                   const SweepOptions& options, std::size_t first = 0, std::size_t stride = 1);
/// Fills reference_s from the reference rows; all configurations must be present.
void link_references(std::vector<SweepResult>& results);
/// Index of the configuration with the smallest makespan (the first of equals).
std::size_t best_result(const std::vector<SweepResult>& results);

} // namespace perfcast::lb
