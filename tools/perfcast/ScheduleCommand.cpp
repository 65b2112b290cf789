// perfcast schedule: processes on a platform's computers under a placement policy.
#include "Command.hpp"

#include "core/Distribution.hpp"
#include "core/Error.hpp"
#include "platform/Platform.hpp"
#include "sched/ProcessSim.hpp"
#include "sched/Workload.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

namespace perfcast::cli {
namespace {

struct ScheduleArgs {
  std::string platform, workload, policy = "round-robin";
  std::uint64_t seed = 1;
  bool json = false;
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

int run_schedule(const ScheduleArgs& a)
{
  auto policy = sched::make_policy(a.policy);
  Platform platform = load_platform(a.platform);
  auto computers = sched::computers_from_platform(platform);
  auto processes = sched::load_workload(a.workload);
  if (processes.empty())
    fail_in(a.workload, "no processes (expected at least one)");
  sched::check_feasible(computers, processes, a.workload);
  Rng rng(a.seed);
  auto results = sched::simulate_processes(computers, processes, *policy, rng);
  std::vector<double> response, waiting, slowdown;
  for (const auto& r : results) {
    response.push_back(r.response_s());
    waiting.push_back(r.waiting_s());
    slowdown.push_back(r.slowdown());
  }
  nlohmann::json j = {{"policy", a.policy},
                      {"processes", results.size()},
                      {"response_s", summary(response)},
                      {"waiting_s", summary(waiting)},
                      {"slowdown", summary(slowdown)}};
  if (a.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : results)
      rows.push_back({{"id", r.id},
                      {"computer", computers[static_cast<std::size_t>(r.computer)].model.name},
                      {"arrival_s", r.arrival_s},
                      {"finish_s", r.finish_s},
                      {"response_s", r.response_s()},
                      {"waiting_s", r.waiting_s()},
                      {"slowdown", r.slowdown()}});
    j["per_process"] = rows;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{} processes on {} computers, policy {}\n\n", results.size(), computers.size(), a.policy);
  std::cout << fmt::format("{:<12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "", "mean", "p50", "p90", "p99", "max");
  for (const char* key : {"response_s", "waiting_s", "slowdown"}) {
    const auto& s = j[key];
    std::cout << fmt::format("{:<12} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g} {:>12.6g}\n", key,
                             s["mean"].get<double>(), s["p50"].get<double>(), s["p90"].get<double>(),
                             s["p99"].get<double>(), s["max"].get<double>());
  }
  return 0;
}

} // namespace

void add_schedule_commands(CLI::App& app, std::vector<Command>& out)
{
  auto a = std::make_shared<ScheduleArgs>();
  auto* sc = app.add_subcommand("schedule", "simulate processes arriving on a platform's computers under a policy");
  sc->add_option("--platform,-p", a->platform, "platform with the computers' figures (perfcast JSON)")->required();
  sc->add_option("--workload,-w", a->workload, "workload file (perfcast-workload JSON)")->required();
  sc->add_option("--policy", a->policy, "placement policy (see perfcast list)")->capture_default_str();
  sc->add_option("--seed", a->seed, "seed of the policy's random choices")->capture_default_str();
  sc->add_flag("--json", a->json, "print JSON with every process");
  out.push_back({sc, [a] { return run_schedule(*a); }});
}

} // namespace perfcast::cli
