#include "sched/BatchSim.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <queue>

namespace perfcast::sched {
namespace {

const std::map<std::string, std::pair<BatchPolicy, const char*>>& batch_policies()
{
  static const std::map<std::string, std::pair<BatchPolicy, const char*>> table{
      {"fcfs", {BatchPolicy::Fcfs, "rigid jobs in submit order; the first that does not fit waits, and so do the rest"}},
      {"easy",
       {BatchPolicy::Easy, "EASY backfilling: a later job starts early if it does not delay the first queued job"}},
      {"conservative",
       {BatchPolicy::Conservative, "conservative backfilling: a later job starts early if it delays no queued job"}}};
  return table;
}

/// Free cores over time: from each point's time until the next one's.
using Profile = std::vector<std::pair<double, int>>;

/// Earliest start at a profile point where `procs` cores stay free for `duration`.
std::size_t earliest_fit(const Profile& profile, int procs, double duration)
{
  std::size_t i = 0;
  while (i < profile.size()) {
    if (profile[i].second < procs) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < profile.size() && profile[j].first < profile[i].first + duration && profile[j].second >= procs)
      ++j;
    if (j == profile.size() || profile[j].first >= profile[i].first + duration)
      return i;
    i = j; // cores run short at j: no start before it fits
  }
  return profile.size() - 1; // the last point has every core free
}

/// Takes `procs` cores from profile[start] for `duration`.
void reserve(Profile& profile, std::size_t start, int procs, double duration)
{
  if (duration <= 0)
    return;
  double end = profile[start].first + duration;
  std::size_t k = start;
  while (k < profile.size() && profile[k].first < end)
    ++k;
  if (k == profile.size() || profile[k].first > end)
    profile.insert(profile.begin() + static_cast<std::ptrdiff_t>(k), {end, profile[k - 1].second});
  for (std::size_t i = start; i < k; ++i)
    profile[i].second -= procs;
}

struct Running {
  int job;
  double estimated_end;
  int procs;
};

class BatchSimulator {
public:
  BatchSimulator(const std::vector<ComputerSpec>& computers, const std::vector<RigidJob>& jobs, BatchPolicy policy,
                 const std::function<void(double, int, int)>& on_busy_change)
      : computers_(computers), jobs_(jobs), policy_(policy), on_busy_change_(on_busy_change),
        free_(computers.size()), memory_(computers.size(), 0.0), results_(jobs.size()), cores_on_(jobs.size())
  {
    for (std::size_t c = 0; c < computers.size(); ++c) {
      free_[c] = computers[c].cores;
      total_ += computers[c].cores;
    }
    free_total_ = total_;
  }

  std::vector<JobResult> run()
  {
    std::size_t next = 0;
    while (next < jobs_.size() || !ends_.empty()) {
      now_ = next < jobs_.size() ? jobs_[next].submit_s : ends_.top().first;
      if (!ends_.empty())
        now_ = std::min(now_, ends_.top().first);
      while (!ends_.empty() && ends_.top().first <= now_) {
        finish(ends_.top().second);
        ends_.pop();
      }
      while (next < jobs_.size() && jobs_[next].submit_s <= now_)
        queue_.push_back(static_cast<int>(next++));
      schedule();
    }
    return results_;
  }

private:
  void start(int j)
  {
    const RigidJob& job = jobs_[static_cast<std::size_t>(j)];
    auto& on = cores_on_[static_cast<std::size_t>(j)];
    int need = job.procs;
    for (std::size_t c = 0; c < computers_.size() && need > 0; ++c) {
      int take = std::min(need, free_[c]);
      if (take > 0) {
        on.emplace_back(static_cast<int>(c), take);
        need -= take;
      }
    }
    double run = job.resources.given ? job_run_time(job, computers_, on, memory_) : job.run_s;
    JobResult& r = results_[static_cast<std::size_t>(j)];
    r = {job.id, job.procs, on.front().first, job.submit_s, now_, now_ + std::min(run, job.estimate_s),
         run > job.estimate_s};
    for (const auto& [c, k] : on) {
      free_[static_cast<std::size_t>(c)] -= k;
      memory_[static_cast<std::size_t>(c)] += k * job.resources.memory_mb;
      report(c);
    }
    free_total_ -= job.procs;
    running_.push_back({j, now_ + job.estimate_s, job.procs});
    ends_.push({r.finish_s, j});
  }

  void finish(int j)
  {
    const RigidJob& job = jobs_[static_cast<std::size_t>(j)];
    for (const auto& [c, k] : cores_on_[static_cast<std::size_t>(j)]) {
      free_[static_cast<std::size_t>(c)] += k;
      memory_[static_cast<std::size_t>(c)] -= k * job.resources.memory_mb;
      report(c);
    }
    free_total_ += job.procs;
    cores_on_[static_cast<std::size_t>(j)].clear();
    cores_on_[static_cast<std::size_t>(j)].shrink_to_fit();
    auto it = std::find_if(running_.begin(), running_.end(), [j](const Running& r) { return r.job == j; });
    *it = running_.back();
    running_.pop_back();
  }

  void report(int c)
  {
    if (on_busy_change_)
      on_busy_change_(now_, c, computers_[static_cast<std::size_t>(c)].cores - free_[static_cast<std::size_t>(c)]);
  }

  int procs(int j) const { return jobs_[static_cast<std::size_t>(j)].procs; }
  double estimate(int j) const { return jobs_[static_cast<std::size_t>(j)].estimate_s; }

  void schedule()
  {
    std::size_t head = 0; // FCFS part, common to the three policies
    while (head < queue_.size() && procs(queue_[head]) <= free_total_)
      start(queue_[head++]);
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head));
    if (queue_.size() < 2 || free_total_ == 0 || policy_ == BatchPolicy::Fcfs)
      return;
    std::vector<char> started(queue_.size(), 0);
    if (policy_ == BatchPolicy::Easy)
      backfill_easy(started);
    else
      backfill_conservative(started);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < queue_.size(); ++i)
      if (!started[i])
        queue_[kept++] = queue_[i];
    queue_.resize(kept);
  }

  /// Running jobs' estimated ends, earliest first (ties by job, for a stable order).
  std::vector<Running> by_estimated_end() const
  {
    std::vector<Running> r = running_;
    std::sort(r.begin(), r.end(), [](const Running& a, const Running& b) {
      return a.estimated_end != b.estimated_end ? a.estimated_end < b.estimated_end : a.job < b.job;
    });
    return r;
  }

  void backfill_easy(std::vector<char>& started)
  {
    // the head's reservation: when enough running jobs have ended (by estimate)
    int head_procs = procs(queue_.front()), free_then = free_total_;
    double shadow = now_;
    for (const Running& r : by_estimated_end()) {
      if (free_then >= head_procs)
        break;
      free_then += r.procs;
      shadow = r.estimated_end;
    }
    int extra = free_then - head_procs; // cores the head leaves spare at its start
    for (std::size_t i = 1; i < queue_.size() && free_total_ > 0; ++i) {
      int j = queue_[i];
      if (procs(j) > free_total_)
        continue;
      if (now_ + estimate(j) <= shadow) {
        start(j);
        started[i] = 1;
      } else if (procs(j) <= extra) {
        extra -= procs(j);
        start(j);
        started[i] = 1;
      }
    }
  }

  void backfill_conservative(std::vector<char>& started)
  {
    Profile profile{{now_, free_total_}};
    for (const Running& r : by_estimated_end()) {
      if (r.estimated_end > profile.back().first)
        profile.emplace_back(r.estimated_end, profile.back().second);
      profile.back().second += r.procs;
    }
    // the head did not fit now: plan it and each later job in order; once
    // fewer cores are free now than any job left asks, nobody else starts now
    std::vector<int> least_after(queue_.size() + 1, total_ + 1);
    for (std::size_t i = queue_.size(); i-- > 0;)
      least_after[i] = std::min(least_after[i + 1], procs(queue_[i]));
    for (std::size_t i = 0; i < queue_.size() && profile.front().second >= least_after[i]; ++i) {
      int j = queue_[i];
      std::size_t at = earliest_fit(profile, procs(j), estimate(j));
      reserve(profile, at, procs(j), estimate(j));
      if (at == 0 && procs(j) <= free_total_) { // reserved now: starting delays nobody planned before it
        start(j);
        started[i] = 1;
      }
    }
  }

  const std::vector<ComputerSpec>& computers_;
  const std::vector<RigidJob>& jobs_;
  BatchPolicy policy_;
  const std::function<void(double, int, int)>& on_busy_change_;
  std::vector<int> free_;
  std::vector<double> memory_;
  int total_ = 0, free_total_ = 0;
  std::vector<JobResult> results_;
  std::vector<std::vector<std::pair<int, int>>> cores_on_;
  std::vector<int> queue_;
  std::vector<Running> running_;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> ends_;
  double now_ = 0;
};

} // namespace

BatchPolicy batch_policy(const std::string& name)
{
  auto it = batch_policies().find(name);
  if (it == batch_policies().end())
    throw Error(fmt::format("batch policy '{}': unknown (expected fcfs, easy or conservative)", name));
  return it->second.first;
}

bool is_batch_policy(const std::string& spec) { return batch_policies().count(spec) > 0; }

std::vector<std::string> describe_batch_policies()
{
  std::vector<std::string> rows;
  for (const auto& [name, entry] : batch_policies())
    rows.push_back(fmt::format("{}  {}", name, entry.second));
  return rows;
}

double JobResult::slowdown() const { return response_s() / std::max(run_s(), 10.0); }

double job_run_time(const RigidJob& job, const std::vector<ComputerSpec>& computers,
                    const std::vector<std::pair<int, int>>& cores_on, const std::vector<double>& memory_in_use_mb)
{
  const JobResources& res = job.resources;
  double slowest = 0;
  for (const auto& [c, k] : cores_on) {
    const ComputerSpec& cs = computers[static_cast<std::size_t>(c)];
    // eqs. 2 and 3 for one process, then its k processes' disk requests queued
    // on the one disk (eqs. 4 and 5) and its messages (eqs. 6 and 7)
    double te = res.instructions > 0 ? res.instructions / cs.model.instructions_per_s : job.run_s;
    double memory = memory_in_use_mb[static_cast<std::size_t>(c)] + k * res.memory_mb;
    double t = te * (1 + cs.model.slowdown.alpha(memory, cs.model.main_memory_mb));
    if (res.read_bytes > 0)
      t += k * res.read_bytes / cs.model.disk_read_bytes_per_s;
    if (res.write_bytes > 0)
      t += k * res.write_bytes / cs.model.disk_write_bytes_per_s;
    t += res.messages *
         (unimpp::message_time(cs.model) + (cs.network_bytes_per_s > 0 ? res.message_bytes / cs.network_bytes_per_s : 0));
    slowest = std::max(slowest, t);
  }
  return slowest;
}

std::vector<JobResult> simulate_jobs(const std::vector<ComputerSpec>& computers, std::vector<RigidJob> jobs,
                                     BatchPolicy policy, const std::function<void(double, int, int)>& on_busy_change)
{
  if (computers.empty())
    throw Error("the batch simulation needs at least one computer");
  int total = 0;
  for (const ComputerSpec& c : computers)
    total += c.cores;
  std::stable_sort(jobs.begin(), jobs.end(), [](const RigidJob& a, const RigidJob& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  });
  for (const RigidJob& j : jobs)
    if (j.procs < 1 || j.procs > total)
      throw Error(fmt::format("job {} asks for {} cores; the platform has {} (expected 1 to {})", j.id, j.procs,
                              total, total));
  return BatchSimulator(computers, jobs, policy, on_busy_change).run();
}

} // namespace perfcast::sched
