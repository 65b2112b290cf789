#include "sched/ScheduleReport.hpp"

#include "core/Distribution.hpp"
#include "core/Error.hpp"
#include "sched/BatchSim.hpp"
#include "sched/ProcessSim.hpp"
#include "sched/Utilisation.hpp"
#include "sched/Workload.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>

namespace perfcast::sched {
namespace {

// The q-quantile of sorted values (nearest rank).
double quantile(const std::vector<double>& sorted, double q)
{
  std::size_t i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, i == 0 ? 0 : i - 1)];
}

nlohmann::json column_json(const ColumnSummary& s)
{
  return {{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}};
}

RouteCost route_cost(const Platform& platform, int from, int to)
{
  Route r = platform.route(from, to);
  return {platform.narrowest_bandwidth(r), r.latency_s};
}

std::vector<ScheduleRow> run_processes(const Platform& platform, const std::vector<ComputerSpec>& computers,
                                       std::vector<ProcessSpec> processes, const ScheduleOptions& o,
                                       UtilisationRecorder* recorder)
{
  auto policy = make_policy(o.policy);
  if (processes.empty())
    fail_in(o.workload_name, "no processes (expected at least one)");
  check_feasible(computers, processes, o.workload_name);
  ProcessSimOptions options;
  options.route = [&platform](int from, int to) { return route_cost(platform, from, to); };
  if (recorder)
    options.on_busy_change = [recorder](double t, int c, int busy) { recorder->change(t, c, busy); };
  options.progress = o.progress;
  Rng rng(o.seed);
  auto results = simulate_processes(computers, std::move(processes), *policy, rng, options);
  std::vector<ScheduleRow> rows;
  rows.reserve(results.size());
  for (const auto& r : results)
    rows.push_back({r.id, computers[static_cast<std::size_t>(r.computer)].model.name, 1, r.arrival_s, std::nan(""),
                    r.finish_s, r.response_s(), r.waiting_s(), r.slowdown(), r.migrations});
  return rows;
}

std::vector<ScheduleRow> run_jobs(const std::vector<ComputerSpec>& computers, std::vector<RigidJob> jobs,
                                  const ScheduleOptions& o, UtilisationRecorder* recorder)
{
  if (jobs.empty())
    fail_in(o.workload_name, "no jobs with a known run time (expected at least one)");
  if (!o.sidecar_text.empty())
    apply_sidecar(jobs, o.sidecar_text, o.sidecar_name);
  check_jobs_feasible(computers, jobs, o.workload_name);
  std::function<void(double, int, int)> on_change;
  if (recorder)
    on_change = [recorder](double t, int c, int busy) { recorder->change(t, c, busy); };
  auto results = simulate_jobs(computers, std::move(jobs), batch_policy(o.policy), on_change);
  std::vector<ScheduleRow> rows;
  rows.reserve(results.size());
  for (const auto& r : results)
    rows.push_back({r.id, computers[static_cast<std::size_t>(r.first_computer)].model.name, r.procs, r.submit_s,
                    r.start_s, r.finish_s, r.response_s(), r.waiting_s(), r.slowdown(), 0});
  return rows;
}

} // namespace

ColumnSummary summarise(std::vector<double> v)
{
  if (v.empty())
    return {};
  std::sort(v.begin(), v.end());
  double mean = 0;
  for (double x : v)
    mean += x / static_cast<double>(v.size());
  return {mean, quantile(v, 0.5), quantile(v, 0.9), quantile(v, 0.99), v.back()};
}

ScheduleReport schedule(const Platform& platform, LoadedWorkload w, const ScheduleOptions& o)
{
  ScheduleReport rep;
  rep.policy = o.policy;
  rep.batch = is_batch_policy(o.policy);
  if (rep.batch && !w.rigid)
    fail_in(o.workload_name, fmt::format("holds processes, and policy '{}' schedules rigid parallel jobs (expected "
                                         "an SWF log or a \"jobs\" workload, or a placement policy such as lowest)",
                                         o.policy));
  if (!rep.batch && w.rigid)
    fail_in(o.workload_name, fmt::format("holds rigid parallel jobs, and policy '{}' places processes (expected a "
                                         "batch policy: conservative, easy or fcfs)",
                                         o.policy));
  if (!o.sidecar_text.empty() && !w.rigid)
    fail_in(o.sidecar_name, "a sidecar adds resource use to rigid jobs (expected an SWF log or \"jobs\" workload)");
  auto computers = computers_from_platform(platform);
  rep.computers = computers.size();
  std::vector<int> cores;
  std::vector<std::string> names;
  for (const auto& c : computers) {
    cores.push_back(c.cores);
    names.push_back(c.model.name);
  }
  std::unique_ptr<UtilisationRecorder> recorder;
  if (o.utilisation)
    recorder = std::make_unique<UtilisationRecorder>(cores);
  rep.skipped = w.skipped;
  rep.rows = rep.batch ? run_jobs(computers, std::move(w.jobs), o, recorder.get())
                       : run_processes(platform, computers, std::move(w.processes), o, recorder.get());
  std::vector<double> response, waiting, slowdown;
  for (const ScheduleRow& r : rep.rows) {
    response.push_back(r.response_s);
    waiting.push_back(r.waiting_s);
    slowdown.push_back(r.slowdown);
    rep.makespan_s = std::max(rep.makespan_s, r.finish_s);
    rep.migrations += r.migrations;
  }
  rep.response = summarise(std::move(response));
  rep.waiting = summarise(std::move(waiting));
  rep.slowdown = summarise(std::move(slowdown));
  if (recorder) {
    recorder->finish(rep.makespan_s);
    rep.utilisation_svg = recorder->svg(fmt::format("Busy cores, {} under {}", o.workload_name, o.policy), names);
  }
  return rep;
}

nlohmann::json ScheduleReport::to_json(bool per_row) const
{
  const char* unit = batch ? "jobs" : "processes";
  nlohmann::json j = {{"policy", policy},
                      {unit, rows.size()},
                      {"makespan_s", makespan_s},
                      {"response_s", column_json(response)},
                      {"waiting_s", column_json(waiting)},
                      {"slowdown", column_json(slowdown)}};
  if (batch)
    j["skipped_unknown_run_time"] = skipped;
  else
    j["migrations"] = migrations;
  if (!per_row)
    return j;
  nlohmann::json list = nlohmann::json::array();
  for (const ScheduleRow& r : rows) {
    nlohmann::json row = {{"id", r.id},           {"computer", r.computer},     {"arrival_s", r.arrival_s},
                          {"finish_s", r.finish_s}, {"response_s", r.response_s}, {"waiting_s", r.waiting_s},
                          {"slowdown", r.slowdown}};
    if (batch) {
      row["procs"] = r.procs;
      row["start_s"] = r.start_s;
    } else {
      row["migrations"] = r.migrations;
    }
    list.push_back(std::move(row));
  }
  j[batch ? "per_job" : "per_process"] = std::move(list);
  return j;
}

std::string ScheduleReport::text(bool per_row) const
{
  std::string s = fmt::format("{} {} on {} computers, policy {}, makespan {:.6g} s", rows.size(),
                              batch ? "jobs" : "processes", computers, policy, makespan_s);
  if (batch && skipped > 0)
    s += fmt::format(" ({} jobs of unknown run time left out)", skipped);
  if (!batch && migrations > 0)
    s += fmt::format(", {} migrations", migrations);
  s += "\n\n";
  s += fmt::format("{:<12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "", "mean", "p50", "p90", "p99", "max");
  for (const auto& [key, c] : {std::pair<const char*, const ColumnSummary&>{"response_s", response},
                               {"waiting_s", waiting},
                               {"slowdown", slowdown}})
    s += fmt::format("{:<12} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g}\n", key, c.mean, c.p50, c.p90, c.p99,
                     c.max);
  if (batch)
    s += "(slowdown of a job: response over max(run time, 10 s))\n";
  if (!per_row)
    return s;
  s += fmt::format("\n{:>10} {:<12} {:>14} {:>14} {:>12} {:>12} {:>10}\n", "id", "computer", "arrival_s", "finish_s",
                   "response_s", "waiting_s", "slowdown");
  for (const ScheduleRow& r : rows)
    s += fmt::format("{:>10} {:<12} {:>14.6f} {:>14.6f} {:>12.6f} {:>12.6f} {:>10.4f}\n", r.id, r.computer,
                     r.arrival_s, r.finish_s, r.response_s, r.waiting_s, r.slowdown);
  return s;
}

} // namespace perfcast::sched
