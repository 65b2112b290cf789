// perfcast schedule: processes on a platform's computers under a placement
// policy, or rigid parallel jobs (SWF, JSON) under a batch policy.
#include "Command.hpp"

#include "core/Distribution.hpp"
#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/Text.hpp"
#include "platform/Platform.hpp"
#include "sched/BatchSim.hpp"
#include "sched/Jobs.hpp"
#include "sched/ProcessSim.hpp"
#include "sched/Utilisation.hpp"
#include "sched/Workload.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace perfcast::cli {
namespace {

struct ScheduleArgs {
  std::string platform, workload, policy = "round-robin", sidecar, utilisation;
  std::uint64_t seed = 1;
  bool json = false, per_process = false, force = false;
};

/// One process or job as the report shows it.
struct Row {
  long long id;
  std::string computer;
  int procs;
  double arrival_s, start_s, finish_s, response_s, waiting_s, slowdown;
  int migrations;
};

/// The q-quantile of sorted values (nearest rank).
double quantile(const std::vector<double>& sorted, double q)
{
  std::size_t i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, i == 0 ? 0 : i - 1)];
}

nlohmann::json summary(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  double mean = 0;
  for (double x : v)
    mean += x / static_cast<double>(v.size());
  return {{"mean", mean}, {"p50", quantile(v, 0.5)}, {"p90", quantile(v, 0.9)}, {"p99", quantile(v, 0.99)},
          {"max", v.back()}};
}

sched::RouteCost route_cost(const Platform& platform, int from, int to)
{
  Route r = platform.route(from, to);
  double bw = 0;
  for (int l : r.links) {
    double b = platform.links()[static_cast<std::size_t>(l)].bandwidth_Bps;
    bw = bw == 0 ? b : std::min(bw, b);
  }
  return {bw, r.latency_s};
}

std::vector<Row> run_processes(const ScheduleArgs& a, const Platform& platform,
                               const std::vector<sched::ComputerSpec>& computers,
                               std::vector<sched::ProcessSpec> processes, sched::UtilisationRecorder* recorder)
{
  auto policy = sched::make_policy(a.policy);
  if (processes.empty())
    fail_in(a.workload, "no processes (expected at least one)");
  sched::check_feasible(computers, processes, a.workload);
  sched::ProcessSimOptions options;
  options.route = [&platform](int from, int to) { return route_cost(platform, from, to); };
  if (recorder)
    options.on_busy_change = [recorder](double t, int c, int busy) { recorder->change(t, c, busy); };
  bool tty = ::isatty(STDERR_FILENO);
  auto started = std::chrono::steady_clock::now();
  long long total = static_cast<long long>(processes.size());
  if (tty)
    options.progress = [&](long long arrived, double simulated) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rscheduling: %lld of %lld processes arrived, simulated %.6g s, %.1f s elapsed   ", arrived,
                   total, simulated, secs);
    };
  Rng rng(a.seed);
  auto results = sched::simulate_processes(computers, std::move(processes), *policy, rng, options);
  if (tty && total >= (1 << 16))
    std::fprintf(stderr, "\r%90s\r", "");
  std::vector<Row> rows;
  rows.reserve(results.size());
  for (const auto& r : results)
    rows.push_back({r.id, computers[static_cast<std::size_t>(r.computer)].model.name, 1, r.arrival_s,
                    std::nan(""), r.finish_s, r.response_s(), r.waiting_s(), r.slowdown(), r.migrations});
  return rows;
}

std::vector<Row> run_jobs(const ScheduleArgs& a, const std::vector<sched::ComputerSpec>& computers,
                          sched::LoadedWorkload& w, sched::UtilisationRecorder* recorder)
{
  if (w.jobs.empty())
    fail_in(a.workload, "no jobs with a known run time (expected at least one)");
  if (!a.sidecar.empty())
    sched::apply_sidecar(w.jobs, read_file(a.sidecar, "sidecar file"), a.sidecar);
  sched::check_jobs_feasible(computers, w.jobs, a.workload);
  std::function<void(double, int, int)> on_change;
  if (recorder)
    on_change = [recorder](double t, int c, int busy) { recorder->change(t, c, busy); };
  auto results = sched::simulate_jobs(computers, std::move(w.jobs), sched::batch_policy(a.policy), on_change);
  std::vector<Row> rows;
  rows.reserve(results.size());
  for (const auto& r : results)
    rows.push_back({r.id, computers[static_cast<std::size_t>(r.first_computer)].model.name, r.procs, r.submit_s,
                    r.start_s, r.finish_s, r.response_s(), r.waiting_s(), r.slowdown(), 0});
  return rows;
}

int run_schedule(const ScheduleArgs& a)
{
  bool batch = sched::is_batch_policy(a.policy);
  if (!batch)
    sched::make_policy(a.policy); // a bad policy is named before any file is read
  Platform platform = load_platform(a.platform);
  auto computers = sched::computers_from_platform(platform);
  OutputTarget plot;
  if (!a.utilisation.empty())
    plot = check_output(a.utilisation, "utilisation plot", a.force);
  sched::LoadedWorkload w = sched::load_any_workload(a.workload);
  if (batch && !w.rigid)
    fail_in(a.workload, fmt::format("holds processes, and policy '{}' schedules rigid parallel jobs (expected an "
                                    "SWF log or a \"jobs\" workload, or a placement policy such as lowest)",
                                    a.policy));
  if (!batch && w.rigid)
    fail_in(a.workload, fmt::format("holds rigid parallel jobs, and policy '{}' places processes (expected a batch "
                                    "policy: conservative, easy or fcfs)",
                                    a.policy));
  if (!a.sidecar.empty() && !w.rigid)
    fail_in(a.sidecar, "a sidecar adds resource use to rigid jobs (expected an SWF log or \"jobs\" workload)");
  std::vector<int> cores;
  std::vector<std::string> names;
  for (const auto& c : computers) {
    cores.push_back(c.cores);
    names.push_back(c.model.name);
  }
  std::unique_ptr<sched::UtilisationRecorder> recorder;
  if (!a.utilisation.empty())
    recorder = std::make_unique<sched::UtilisationRecorder>(cores);
  std::vector<Row> rows = batch ? run_jobs(a, computers, w, recorder.get())
                                : run_processes(a, platform, computers, std::move(w.processes), recorder.get());
  std::vector<double> response, waiting, slowdown;
  double end = 0;
  long long migrations = 0;
  for (const Row& r : rows) {
    response.push_back(r.response_s);
    waiting.push_back(r.waiting_s);
    slowdown.push_back(r.slowdown);
    end = std::max(end, r.finish_s);
    migrations += r.migrations;
  }
  if (recorder) {
    recorder->finish(end);
    write_output(plot, mark_svg(recorder->svg(fmt::format("Busy cores, {} under {}", a.workload, a.policy), names)));
  }
  const char* unit = batch ? "jobs" : "processes";
  nlohmann::json j = {{"policy", a.policy}, {unit, rows.size()}, {"makespan_s", end}, {"response_s", summary(response)},
                      {"waiting_s", summary(waiting)}, {"slowdown", summary(slowdown)}};
  if (batch)
    j["skipped_unknown_run_time"] = w.skipped;
  else
    j["migrations"] = migrations;
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Row& r : rows) {
      nlohmann::json row = {{"id", r.id}, {"computer", r.computer}, {"arrival_s", r.arrival_s},
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
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} {} on {} computers, policy {}, makespan {:.6g} s", rows.size(), unit,
                           computers.size(), a.policy, end);
  if (batch && w.skipped > 0)
    std::cout << fmt::format(" ({} jobs of unknown run time left out)", w.skipped);
  if (!batch && migrations > 0)
    std::cout << fmt::format(", {} migrations", migrations);
  std::cout << "\n\n";
  std::cout << fmt::format("{:<12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "", "mean", "p50", "p90", "p99", "max");
  for (const char* key : {"response_s", "waiting_s", "slowdown"}) {
    const auto& s = j[key];
    std::cout << fmt::format("{:<12} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g}\n", key,
                             s["mean"].get<double>(), s["p50"].get<double>(), s["p90"].get<double>(),
                             s["p99"].get<double>(), s["max"].get<double>());
  }
  if (batch)
    std::cout << "(slowdown of a job: response over max(run time, 10 s))\n";
  if (recorder && plot.mode != OutputMode::Stdout)
    std::cout << "\nutilisation plot written to " << a.utilisation << "\n";
  if (a.per_process) {
    std::cout << fmt::format("\n{:>10} {:<12} {:>14} {:>14} {:>12} {:>12} {:>10}\n", "id", "computer", "arrival_s",
                             "finish_s", "response_s", "waiting_s", "slowdown");
    for (const Row& r : rows)
      std::cout << fmt::format("{:>10} {:<12} {:>14.6f} {:>14.6f} {:>12.6f} {:>12.6f} {:>10.4f}\n", r.id, r.computer,
                               r.arrival_s, r.finish_s, r.response_s, r.waiting_s, r.slowdown);
  }
  return 0;
}

} // namespace

void add_schedule_commands(CLI::App& app, std::vector<Command>& out)
{
  auto a = std::make_shared<ScheduleArgs>();
  auto* sc = app.add_subcommand("schedule", "simulate processes or rigid jobs on a platform's computers under a policy");
  sc->add_option("--platform,-p", a->platform, "platform with the computers' figures (perfcast JSON)")->required();
  sc->add_option("--workload,-w", a->workload, "workload: perfcast-workload JSON (processes or jobs) or an SWF log")
      ->required();
  sc->add_option("--policy", a->policy, "placement or batch policy (see perfcast list)")->capture_default_str();
  sc->add_option("--sidecar", a->sidecar, "JSON adding memory, disk and network use to an SWF log's jobs");
  sc->add_option("--utilisation", a->utilisation, "write busy cores over time as SVG to this file");
  sc->add_option("--seed", a->seed, "seed of the policy's random choices")->capture_default_str();
  sc->add_flag("--json", a->json, "print JSON with every process or job");
  sc->add_flag("--per-process", a->per_process, "print a row for every process or job");
  sc->add_flag("--force", a->force, "replace an existing plot file perfcast did not write");
  out.push_back({sc, [a] { return run_schedule(*a); }});
}

} // namespace perfcast::cli
