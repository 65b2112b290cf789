#pragma once
// Running the small runs: the user's command at growing sizes under perfcast's
// sampling profiler, until the phases converge (size C) and then N sizes
// more, each run's per-rank profiles kept in DIR/size-S/ and the log in
// DIR/phases.json (format perfcast-phase-runs), rewritten after every size
// so an interrupted or failed series keeps what it measured. Re-running on
// the same directory and command reuses the sizes already profiled.
#include "phase/SmallRuns.hpp"

#include <functional>
#include <string>
#include <vector>

namespace perfcast::phase {

/// The sampler's default rate: each timer signal costs tens of microseconds
/// on this kind of virtual machine whatever the handler does, so 1000 Hz cost
/// 5-10% (bench/profiler_overhead.sh); at 100 Hz it is under 1%.
constexpr int kDefaultProfileHz = 100;

/// What to run and when to stop.
struct PhaseRunOptions {
  std::vector<std::string> command; ///< with {size}
  SizeLadder ladder;
  int more = 5;            ///< sizes after C (the paper's N)
  double tolerance = 0.05; ///< largest change of a phase's share between C and C + step
  int max_sizes = 20;      ///< give up (with an error) after this many sizes without convergence
  PhaseRule rule;
  bool force = false; ///< replace a directory perfcast did not write
  std::string clock = "own"; ///< the sampler's clock: "own", "wall" or "cpu" (tools/profiler/sampler.c)
  int hz = kDefaultProfileHz; ///< samples per second asked of the sampler
  int repeat = 1; ///< runs per size; the median run by sampled seconds per rank is kept (see SizeRecord)
  /// Runs per size at most: after `repeat` runs, more (up to this) while no
  /// majority of the size's runs agree within `tolerance` (runs_agree); 0 or
  /// less than `repeat` means `repeat` (no more runs).
  int max_repeat = 0;
};

/// One of the repeated runs of a size.
struct RepeatRecord {
  double wall_s = 0;
  double profile_s = 0; ///< seconds per rank the samples stand for
  std::string dir;      ///< relative to the series' directory
  std::vector<std::string> phases; ///< the phases found in this run alone
  std::vector<double> shares;      ///< and their shares
};

/// One size's run.
struct SizeRecord {
  double size = 0;
  int status = 0;
  double wall_s = 0;
  std::string dir; ///< relative to the series' directory: the run kept
  /// The runs whose profiles are averaged for the size: the median run by
  /// sampled seconds per rank, or the two middle ones of an even count
  /// (empty when `dir` alone is the size, as in older series).
  std::vector<std::string> dirs;
  std::vector<RepeatRecord> runs; ///< every run of the size (empty in series written before --repeat)
  /// Whether a majority of the runs agreed within the tolerance (runs_agree);
  /// true in older series, which did not ask.
  bool settled = true;
  /// (largest - smallest) / smallest sampled seconds per rank over the runs.
  double spread() const;
};

/// The spread of the tightest majority of the runs: over every floor(R/2) + 1
/// runs adjacent in sampled seconds per rank, the smallest (largest -
/// smallest) / smallest; 0 for fewer than two runs. The median run (or the
/// two middle ones) lies inside every majority, so it is within this spread
/// of each run of the tightest one.
double majority_spread(const std::vector<RepeatRecord>& runs);

/// Whether a size's runs can judge whether the phases' shares moved: a
/// majority of them agree within `tolerance`, the bound the series puts on a
/// phase's share from one size to the next. Why that bound: time d T added
/// to a run anywhere (a partner rank that lost its core, a host that slowed
/// down) moves any function's share s to between s / (1 + d) and
/// (s + d) / (1 + d), by at most d / (1 + d) < d; runs that agree in time
/// within the tolerance therefore cannot differ in shares by more than it
/// through such time, while runs that disagree by more can (hpcc at N = 512
/// once: 0.485, 1.24, 1.10 s, its shares taken as converged at
/// the next size, where the runs spread by 128%). A disturbed run or two
/// (miniMD at 28: 4.86, 3.97, 3.325 s, the median disturbed) leave no
/// agreeing majority, so the size is run again until one forms.
bool runs_agree(const std::vector<RepeatRecord>& runs, double tolerance);

/// Which of a size's runs stand for it: the index of the median run by
/// sampled seconds per rank, or the two middle ones (faster first) for an
/// even count. On a virtual machine whose speed drifts by up to 30% on
/// identical work, the fastest run is a fast moment of the host, not a
/// quieter machine; the median drops one run off in either direction.
std::vector<std::size_t> median_runs(const std::vector<RepeatRecord>& runs);

/// The record with its `dir` set to its k-th run (1-based; throws Error when
/// the size has fewer runs).
SizeRecord pick_run(const SizeRecord& record, int k);

/// The series as kept in phases.json.
struct PhaseRunLog {
  std::vector<std::string> command;
  std::vector<SizeRecord> sizes;
  double converged_at = 0;   ///< C, 0 while not converged
  std::vector<double> used;  ///< the sizes after C the prediction uses
  /// The phases chosen at C whose shares held at the next size: the ones the
  /// prediction uses (empty in older series, which
  /// found the phases anew at the first used size).
  std::vector<std::string> phases;
};

/// The sampling profiler library: $PERFCAST_PROFILER_LIB, else beside the
/// perfcast binary or in PREFIX/LIBDIR/perfcast.
std::string find_profiler_library();

/// Runs the series into `dir`; `progress` gets a line per finished size.
PhaseRunLog run_small_runs(const std::string& dir, const PhaseRunOptions& options,
                           const std::function<void(const std::string&)>& progress);

/// Profiles the command once at `size` into `dir` (a new or empty directory,
/// or one holding that size of the same command, which is reused): the run a
/// prediction is checked against, kept as a series of one size that is not
/// converged. Returns that size's merged profile.
MergedProfile measure_size(const std::string& dir, const PhaseRunOptions& options, double size,
                         const std::function<void(const std::string&)>& progress);

/// Reads DIR/phases.json.
PhaseRunLog read_phase_runs(const std::string& dir);

/// The merged profile of one size of a series.
MergedProfile load_size_profile(const std::string& dir, const SizeRecord& record);

} // namespace perfcast::phase
