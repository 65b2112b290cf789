#include "phase/PhaseRunner.hpp"

#include "core/AtomicFile.hpp"
#include "core/ChildProcess.hpp"
#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/Statistics.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace perfcast::phase {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kFormat = "perfcast-phase-runs";

bool is_launcher(const std::string& program) {
  const std::string name = fs::path(program).filename().string();
  for (const char* l : {"mpirun", "mpiexec", "orterun", "srun", "mpiexec.hydra", "mpirun.openmpi", "mpiexec.openmpi",
                        "mpirun.mpich", "mpiexec.mpich", "smpirun"})
    if (name == l) return true;
  return false;
}

/// Runs the command with the profiler preloaded, writing into `out`; returns
/// the exit status (128 + signal when it was killed).
int run_profiled(const std::vector<std::string>& command, const std::string& library, const std::string& out,
                 const PhaseRunOptions& options) {
  std::string preload = library;
  if (const char* inherited = std::getenv("LD_PRELOAD"); inherited && *inherited) preload += std::string(":") + inherited;
  std::vector<std::string> env = {"LD_PRELOAD=" + preload, "PERFCAST_PROFILE_DIR=" + out,
                                  "PERFCAST_PROFILE_CLOCK=" + options.clock,
                                  "PERFCAST_PROFILE_HZ=" + std::to_string(options.hz)};
  if (is_launcher(command[0])) env.push_back("PERFCAST_PROFILE_RANKS_ONLY=1");
  return run_child(command, env, {"LD_PRELOAD=", "PERFCAST_PROFILE_"}).status();
}

json to_json(const PhaseRunLog& log) {
  json sizes = json::array();
  for (const SizeRecord& r : log.sizes) {
    json runs = json::array();
    for (const RepeatRecord& k : r.runs)
      runs.push_back({{"wall_s", k.wall_s}, {"profile_s", k.profile_s}, {"dir", k.dir}, {"phases", k.phases},
                      {"shares", k.shares}});
    sizes.push_back({{"size", r.size}, {"status", r.status}, {"wall_s", r.wall_s}, {"dir", r.dir}, {"dirs", r.dirs},
                     {"runs", runs}, {"spread", r.spread()}, {"majority_spread", majority_spread(r.runs)},
                     {"settled", r.settled}});
  }
  return {{"format", kFormat},
          {"version", 1},
          {"generator", "perfcast"},
          {"command", log.command},
          {"sizes", sizes},
          {"converged_at", log.converged_at},
          {"used", log.used},
          {"phases", log.phases}};
}

void write_log(const std::string& dir, const PhaseRunLog& log) {
  write_file_atomically(dir + "/phases.json", to_json(log).dump(2) + "\n");
}

} // namespace

std::string find_profiler_library() {
  if (const char* env = std::getenv("PERFCAST_PROFILER_LIB"); env && *env) {
    if (!fs::exists(env)) throw Error(fmt::format("PERFCAST_PROFILER_LIB={}: no such file", env));
    return fs::absolute(env).string();
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const std::string file = "libperfcast_profiler.so";
  if (!ec)
    for (const fs::path& c : {self.parent_path() / file, self.parent_path().parent_path() / PERFCAST_TRACER_INSTALL_DIR / file})
      if (fs::exists(c)) return c.string();
  throw Error(fmt::format("the profiler library {} was not found beside perfcast (set PERFCAST_PROFILER_LIB)", file));
}

PhaseRunLog read_phase_runs(const std::string& dir) {
  const std::string path = dir + "/phases.json";
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot read (expected a directory written by perfcast phases run)", path));
  try {
    const json j = json::parse(in);
    if (j.at("format") != kFormat || j.at("version") != 1)
      throw Error(fmt::format("{}: not a {} version 1 file", path, kFormat));
    PhaseRunLog log;
    log.command = j.at("command").get<std::vector<std::string>>();
    for (const json& s : j.at("sizes")) {
      SizeRecord r{s.at("size"), s.at("status"), s.at("wall_s"), s.at("dir"),
                   s.value("dirs", std::vector<std::string>{}), {}};
      for (const json& k : s.value("runs", json::array()))
        r.runs.push_back({k.at("wall_s"), k.at("profile_s"), k.at("dir"), k.at("phases").get<std::vector<std::string>>(),
                          k.at("shares").get<std::vector<double>>()});
      r.settled = s.value("settled", true);
      log.sizes.push_back(r);
    }
    log.converged_at = j.at("converged_at");
    log.used = j.at("used").get<std::vector<double>>();
    log.phases = j.value("phases", std::vector<std::string>{});
    return log;
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: {} (expected a {} file)", path, e.what(), kFormat));
  }
}

double SizeRecord::spread() const {
  std::vector<double> times;
  for (const RepeatRecord& k : runs) times.push_back(k.profile_s);
  return relative_range(times);
}

double majority_spread(const std::vector<RepeatRecord>& runs) {
  if (runs.size() < 2) return 0;
  std::vector<double> s;
  for (const RepeatRecord& k : runs) s.push_back(k.profile_s);
  std::sort(s.begin(), s.end());
  const std::size_t m = s.size() / 2 + 1; // a majority
  double best = -1;
  for (std::size_t i = 0; i + m <= s.size(); ++i) {
    const double spread = relative_range({s[i], s[i + m - 1]});
    if (best < 0 || spread < best) best = spread;
  }
  return best;
}

bool runs_agree(const std::vector<RepeatRecord>& runs, double tolerance) {
  return majority_spread(runs) <= tolerance;
}

SizeRecord pick_run(const SizeRecord& record, int k) {
  if (k < 1 || k > static_cast<int>(record.runs.size()))
    throw Error(fmt::format("size {:g}: no run {} (expected 1 to {}: the series was run with --repeat {})", record.size,
                            k, record.runs.size(), record.runs.size()));
  SizeRecord r = record;
  r.dir = record.runs[k - 1].dir;
  r.dirs.clear();
  return r;
}

std::vector<std::size_t> median_runs(const std::vector<RepeatRecord>& runs) {
  if (runs.empty()) return {};
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return runs[a].profile_s < runs[b].profile_s; });
  const std::size_t mid = order.size() / 2;
  if (order.size() % 2 == 1) return {order[mid]};
  return {order[mid - 1], order[mid]};
}

MergedProfile load_size_profile(const std::string& dir, const SizeRecord& record) {
  if (record.dirs.size() < 2) return merge_ranks(record.size, profile::read_kept_profiles(dir + "/" + record.dir));
  // every rank of each run, averaged over ranks and runs alike
  std::vector<profile::FunctionProfile> all;
  for (const std::string& d : record.dirs) {
    std::vector<profile::FunctionProfile> ranks = profile::read_kept_profiles(dir + "/" + d);
    all.insert(all.end(), std::make_move_iterator(ranks.begin()), std::make_move_iterator(ranks.end()));
  }
  MergedProfile m = merge_ranks(record.size, all);
  m.ranks /= static_cast<int>(record.dirs.size()); // ranks of one run
  return m;
}

namespace {

/// Checks the options and the directory and starts the log, keeping the
/// successful sizes of an earlier series of the same command.
PhaseRunLog open_series(const std::string& dir, const PhaseRunOptions& options, double first_size) {
  command_for_size(options.command, first_size); // checks {size} before anything runs
  if (options.clock != "own" && options.clock != "cpu" && options.clock != "wall")
    throw Error(fmt::format("--clock '{}' (expected own, wall or cpu)", options.clock));
  PhaseRunLog log;
  log.command = options.command;
  if (fs::exists(dir + "/phases.json")) {
    PhaseRunLog old = read_phase_runs(dir);
    if (old.command == options.command) {
      for (const SizeRecord& r : old.sizes)
        if (r.status == 0) log.sizes.push_back(r); // reused; failed sizes run again
    } else if (!options.force) {
      throw Error(fmt::format("{}: holds small runs of another command ({}); expected the same command, a new "
                              "directory, or --force",
                              dir, fmt::join(old.command, " ")));
    }
  } else if (fs::exists(dir) && !fs::is_empty(dir) && !options.force) {
    throw Error(fmt::format("{}: the directory holds files perfcast phases run did not write (expected a new or "
                            "empty directory, or --force)",
                            dir));
  }
  create_output_directory(dir, "small runs"); // only the last part of the path, never a chain
  return log;
}

/// Profiles one size (or reuses it from the log), recording it in the log.
MergedProfile profile_size(const std::string& dir, PhaseRunLog& log, const PhaseRunOptions& options,
                           const std::string& library, double size,
                           const std::function<void(const std::string&)>& progress) {
  for (const SizeRecord& r : log.sizes)
    if (r.size == size) {
      progress(fmt::format("size {:g}: reused ({:.2f} s)", size, r.wall_s));
      return load_size_profile(dir, r);
    }
  // The size stands by its median run (median_runs): on this kind of
  // virtual machine the speed drifts on identical work, so the fastest run
  // is a fast moment of the host, not the least disturbed run; the kernel
  // database's models take each size's median too (KernelModel).
  // A size whose runs disagree cannot tell whether the shares moved
  // (runs_agree): it is run again, up to max_repeat, until a majority of its
  // runs agree within the tolerance; the median then lies in that majority.
  const int repeat = std::max(1, options.repeat);
  const int max_repeat = std::max(repeat, options.max_repeat);
  SizeRecord r;
  r.size = size;
  const std::string size_dir = fmt::format("size-{:g}", size);
  fs::remove_all(dir + "/" + size_dir);
  std::vector<std::vector<profile::FunctionProfile>> rank_profiles; // per run
  for (int k = 1;; ++k) {
    RepeatRecord run;
    run.dir = repeat == 1 ? size_dir : fmt::format("{}/run-{}", size_dir, k);
    const std::string run_dir = dir + "/" + run.dir;
    fs::create_directories(run_dir);
    const auto t0 = std::chrono::steady_clock::now();
    const int status =
        run_profiled(command_for_size(options.command, size), library, fs::absolute(run_dir).string(), options);
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (status != 0) {
      write_log(dir, log);
      throw Error(fmt::format("size {:g}: the command exited with status {} (the profiles of {} earlier size(s) are "
                              "kept in {})",
                              size, status, log.sizes.size(), dir));
    }
    rank_profiles.push_back(profile::keep_sampler_profiles(run_dir));
    const MergedProfile m = merge_ranks(size, rank_profiles.back());
    run.profile_s = m.seconds();
    try {
      const PhaseSet p = find_phases(m.names, m.stacks, options.rule);
      run.phases = p.phases;
      run.shares = p.shares;
    } catch (const Error&) {
      // no phase set in this run alone: recorded as none, the series decides later
    }
    progress(fmt::format("size {:g}{}: {:.2f} s, {:.3g} s per rank sampled, {} rank profile(s)", size,
                         repeat > 1 ? fmt::format(" run {}/{}", k, k <= repeat ? repeat : max_repeat) : "",
                         run.wall_s, run.profile_s, m.ranks));
    r.runs.push_back(run);
    if (k < repeat) continue;
    r.settled = runs_agree(r.runs, options.tolerance);
    if (r.settled || k >= max_repeat) break;
    progress(fmt::format("size {:g}: no majority of its {} runs agrees within {:g} (the tightest spreads by {:.1f}%): "
                         "one run more",
                         size, k, options.tolerance, 100 * majority_spread(r.runs)));
  }
  const std::vector<std::size_t> middle = median_runs(r.runs);
  std::vector<profile::FunctionProfile> kept_ranks;
  r.dir = r.runs[middle[0]].dir;
  for (std::size_t k : middle) {
    if (middle.size() > 1) r.dirs.push_back(r.runs[k].dir);
    r.wall_s += r.runs[k].wall_s / static_cast<double>(middle.size());
    kept_ranks.insert(kept_ranks.end(), rank_profiles[k].begin(), rank_profiles[k].end());
  }
  log.sizes.push_back(r);
  write_log(dir, log);
  if (repeat > 1)
    progress(fmt::format("size {:g}: kept {} (the median; spread {:.1f}%){}", size,
                         r.dirs.empty() ? r.dir : fmt::format("the mean of {}", fmt::join(r.dirs, " and ")),
                         100 * r.spread(),
                         r.settled ? ""
                                   : fmt::format("; no majority of its {} runs agreed within {:g}: the size cannot "
                                                 "judge convergence",
                                                 r.runs.size(), options.tolerance)));
  MergedProfile kept = merge_ranks(size, kept_ranks);
  kept.ranks /= static_cast<int>(middle.size()); // ranks of one run
  return kept;
}

/// "A 41.2%, B 30.0%", for the error of a series that did not converge.
std::string describe(const PhaseSet& p) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < p.phases.size(); ++i) parts.push_back(fmt::format("{} {:.1f}%", p.phases[i], 100 * p.shares[i]));
  return parts.empty() ? "no phase" : fmt::format("{}", fmt::join(parts, ", "));
}

} // namespace

MergedProfile measure_size(const std::string& dir, const PhaseRunOptions& options, double size,
                           const std::function<void(const std::string&)>& progress) {
  if (!(size > 0)) throw Error(fmt::format("--size {} (expected a positive size)", size));
  PhaseRunLog log = open_series(dir, options, size);
  const std::string library = find_profiler_library();
  MergedProfile measured = profile_size(dir, log, options, library, size, progress);
  write_log(dir, log);
  return measured;
}

PhaseRunLog run_small_runs(const std::string& dir, const PhaseRunOptions& options,
                           const std::function<void(const std::string&)>& progress) {
  PhaseRunLog log = open_series(dir, options, options.ladder.start);
  const std::string library = find_profiler_library();
  auto profile_at = [&](double size) { return profile_size(dir, log, options, library, size, progress); };
  // Up to C: the phases chosen at one size, then the same functions' shares
  // at the next, until they hold within the tolerance. The set is not found
  // anew at the next size: where nested functions hold nearly equal shares
  // (hpcc's HPL_main > HPL_pdgesv > HPL_dgemm) the finder's choice flips on
  // a point of sampling noise while every function's share holds still.
  PhaseSet previous; // chosen at the previous size
  bool have_previous = false;
  bool previous_settled = true;
  auto settled = [&](double size) {
    for (const SizeRecord& r : log.sizes)
      if (r.size == size) return r.settled;
    return true;
  };
  std::string last_pair;
  int i = 0;
  log.phases.clear();
  for (; i < options.max_sizes; ++i) {
    const MergedProfile m = profile_at(options.ladder.at(i));
    const bool this_settled = settled(options.ladder.at(i));
    if (have_previous) {
      const PhaseSet same = same_phases_in(previous, m.names, m.stacks);
      // a size whose runs disagree cannot tell whether the shares moved (runs_agree)
      if (previous_settled && this_settled && phases_converged(previous, same, options.tolerance)) {
        log.converged_at = options.ladder.at(i - 1);
        log.phases = previous.phases;
        break;
      }
      last_pair = fmt::format("; the last two, {:g} and {:g}: {} then {} (the phases chosen at {:g} and their shares "
                              "at {:g}){}",
                              options.ladder.at(i - 1), options.ladder.at(i), describe(previous), describe(same),
                              options.ladder.at(i - 1), options.ladder.at(i),
                              previous_settled && this_settled
                                  ? ""
                                  : fmt::format(", not judged: no majority of the runs at {:g} agreed within the "
                                                "tolerance",
                                                previous_settled ? options.ladder.at(i) : options.ladder.at(i - 1)));
    }
    try {
      previous = find_phases(m.names, m.stacks, options.rule);
    } catch (const Error& e) {
      write_log(dir, log);
      throw Error(fmt::format("size {:g} ({}/size-{:g}): {} (the profiles are kept in {})",
                              options.ladder.at(i), dir, options.ladder.at(i), e.what(), dir));
    }
    have_previous = true;
    previous_settled = this_settled;
  }
  if (log.converged_at == 0) {
    write_log(dir, log);
    throw Error(fmt::format("the phases did not converge over {} sizes from {:g} (shares moved by more than {} "
                            "between consecutive sizes; the profiles are kept in {}: try larger sizes or a larger "
                            "--tolerance){}",
                            options.max_sizes, options.ladder.start, options.tolerance, dir, last_pair));
  }
  // C + step was the last size run; N - 1 more after it.
  log.used.push_back(options.ladder.at(i));
  for (int k = 1; k < options.more; ++k) {
    profile_at(options.ladder.at(i + k));
    log.used.push_back(options.ladder.at(i + k));
  }
  write_log(dir, log);
  return log;
}

} // namespace perfcast::phase
