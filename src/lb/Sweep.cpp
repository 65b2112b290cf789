#include "lb/Sweep.hpp"

#include "core/Error.hpp"
#include "lb/BalancerFunction.hpp"
#include "platform/Placement.hpp"
#include "sim/OverDecomposed.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <thread>

namespace perfcast::lb {

std::vector<SweepConfig> sweep_configs(const std::vector<SweepLevel>& levels, const SweepOptions& options)
{
  std::vector<SweepConfig> configs;
  for (std::size_t l = 0; l < levels.size(); ++l)
    for (int cores : options.core_counts) {
      configs.push_back({l, cores, "none", 0});
      for (const std::string& b : options.balancers)
        for (int k : options.periods)
          configs.push_back({l, cores, b, k});
    }
  return configs;
}

void check_sweep(const std::vector<SweepLevel>& levels, const SweepOptions& options)
{
  if (levels.empty())
    throw Error("no trace to sweep (expected one trace per VP level)");
  if (options.balancers.empty() || options.periods.empty() || options.core_counts.empty())
    throw Error("--balancers, --periods and --cores each need at least one value");
  for (const std::string& b : options.balancers) {
    try {
      parse_balancer_spec(b);
    } catch (const Error& e) {
      throw Error(fmt::format("--balancers: {}", e.what()));
    }
  }
  for (int k : options.periods)
    if (k < 1)
      throw Error(fmt::format("--periods {}: expected a number of migration points, 1 or more", k));
  if (options.mapping != "block" && options.mapping != "round-robin")
    throw Error(fmt::format("--mapping '{}': expected block or round-robin", options.mapping));
  for (int cores : options.core_counts) {
    if (cores < 1)
      throw Error(fmt::format("--cores {}: expected at least 1", cores));
    for (const SweepLevel& level : levels)
      if (level.trace.ranks() < cores)
        throw Error(fmt::format("{}: {} VPs cannot run on {} cores (expected at least as many VPs as cores)",
                                level.path, level.trace.ranks(), cores));
  }
}

std::vector<SweepResult> run_sweep(const std::vector<SweepLevel>& levels, const Platform& platform,
                                   const SweepOptions& options, std::size_t first, std::size_t stride)
{
  std::vector<SweepConfig> all = sweep_configs(levels, options);
  std::vector<SweepConfig> mine;
  for (std::size_t i = first; i < all.size(); i += std::max<std::size_t>(stride, 1))
    mine.push_back(all[i]);
  std::vector<SweepResult> results(mine.size());
  std::vector<std::exception_ptr> errors(mine.size());
  std::atomic<std::size_t> next{0};
  std::mutex progress_lock;
  std::size_t done = 0;
  auto worker = [&] {
    for (std::size_t i = next++; i < mine.size(); i = next++) {
      try {
        const SweepConfig& c = mine[i];
        const SweepLevel& level = levels[c.level];
        VpOptions vp;
        vp.replay = options.replay;
        vp.replay.progress = nullptr;
        vp.balancer = balancer_function(parse_balancer_spec(c.balancer));
        vp.period = c.period;
        vp.overheads = options.overheads;
        vp.core_of_vp = make_mapping(options.mapping, level.trace.ranks(), c.cores);
        Placement cores = place_by_policy(platform, options.placement, c.cores);
        VpReport r = replay_over_decomposed(level.trace, platform, cores, vp);
        SweepResult& out = results[i];
        out.config = c;
        out.vps = level.trace.ranks();
        out.makespan_s = r.replay.makespan_s;
        out.steps = r.steps.size();
        out.migrations = r.migrations();
        out.bytes = r.bytes_migrated();
        out.balancing_s = r.balancing_s();
      } catch (...) {
        errors[i] = std::current_exception();
      }
      if (options.progress) {
        std::lock_guard<std::mutex> hold(progress_lock);
        options.progress(++done, mine.size());
      }
    }
  };
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(mine.size(), 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool)
    t.join();
  for (const std::exception_ptr& e : errors) // the first failing configuration, in sweep order
    if (e)
      std::rethrow_exception(e);
  return results;
}

void link_references(std::vector<SweepResult>& results)
{
  for (SweepResult& r : results)
    for (const SweepResult& ref : results)
      if (ref.config.period == 0 && ref.config.level == r.config.level && ref.config.cores == r.config.cores)
        r.reference_s = ref.makespan_s;
}

std::size_t best_result(const std::vector<SweepResult>& results)
{
  std::size_t best = 0;
  for (std::size_t i = 1; i < results.size(); ++i)
    if (results[i].makespan_s < results[best].makespan_s)
      best = i;
  return best;
}

} // namespace perfcast::lb
