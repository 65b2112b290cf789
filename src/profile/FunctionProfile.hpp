#pragma once
// Per-process function profiles from perfcast's sampler (tools/profiler):
// the sampled call stacks with function names, each function's inclusive
// and exclusive time, and the time in each MPI call; stored per rank as
// `rank-R.functions.json` (format perfcast-functions, version 1).
#include "phase/PhaseFinder.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast::profile {

/// One process's profile.
struct FunctionProfile {
  int rank = -1;     ///< MPI rank, -1 for a process without one
  long pid = 0;
  std::string clock; ///< "wall" or "cpu"
  double hz = 0;     ///< sampling rate asked
  bool complete = false; ///< the process ended normally and its sampler wrote everything
  /// The process installed a SIGPROF handler of its own (a launcher that
  /// forwards signals, a program with its own profiler): sampling stopped then.
  bool yielded = false;
  std::vector<std::string> names;          ///< functions, indexed by the stacks' ids
  std::vector<phase::StackSample> stacks;  ///< distinct stacks (outermost first) and their weights
  /// Seconds the samples stand for (weights / hz).
  double seconds() const;
};

/// Reads and names what the sampler wrote for process `pid` in `dir`
/// (sampler-PID.meta, .raw, .maps); throws Error naming the file on damage.
FunctionProfile read_sampler_output(const std::string& dir, long pid);

/// Every process the sampler wrote in `dir`, by rank then pid; processes
/// without a rank are dropped when some have one (mpirun and its daemons),
/// and when none has, those that left no address map (a shell that ends
/// with _exit) are dropped if another process ended normally. A rank that
/// did not end normally is an error.
std::vector<FunctionProfile> read_sampler_dir(const std::string& dir);

/// Turns what the sampler wrote in `dir` into rank-R.functions.json files
/// (pid instead of R for a process without a rank) and removes the raw files.
std::vector<FunctionProfile> keep_sampler_profiles(const std::string& dir);

/// Reads every *.functions.json of `dir`, in file-name order; throws Error naming a damaged file.
std::vector<FunctionProfile> read_kept_profiles(const std::string& dir);

/// JSON of a profile: totals per function (inclusive, exclusive seconds) and the stacks.
nlohmann::json to_json(const FunctionProfile& profile);
/// Reads the JSON back; `where` names the file in errors.
FunctionProfile function_profile_from_json(const nlohmann::json& j, const std::string& where);

/// Rows of the profile report: the `top` functions by inclusive time.
std::string format_top_functions(const FunctionProfile& profile, std::size_t top);

} // namespace perfcast::profile
