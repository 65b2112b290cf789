// perfcast schedule: processes on a platform's computers under a placement
// policy, or rigid parallel jobs (SWF, JSON) under a batch policy.
#include "Command.hpp"

#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "core/Text.hpp"
#include "platform/Platform.hpp"
#include "sched/BatchSim.hpp"
#include "sched/ProcessSim.hpp"
#include "sched/ScheduleReport.hpp"
#include "sched/Workload.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace perfcast::cli {
namespace {

struct ScheduleArgs {
  std::string platform, workload, policy = "round-robin", sidecar, utilisation;
  std::uint64_t seed = 1;
  bool json = false, per_process = false, force = false;
};

int run_schedule(const ScheduleArgs& a)
{
  if (!sched::is_batch_policy(a.policy))
    sched::make_policy(a.policy); // a bad policy is named before any file is read
  Platform platform = load_platform(a.platform);
  OutputTarget plot;
  if (!a.utilisation.empty())
    plot = check_output(a.utilisation, "utilisation plot", a.force);
  sched::LoadedWorkload w = sched::load_any_workload(a.workload);
  sched::ScheduleOptions o;
  o.policy = a.policy;
  o.workload_name = a.workload;
  o.seed = a.seed;
  o.utilisation = !a.utilisation.empty();
  if (!a.sidecar.empty()) {
    o.sidecar_text = read_file(a.sidecar, "sidecar file");
    o.sidecar_name = a.sidecar;
  }
  bool tty = ::isatty(STDERR_FILENO);
  auto started = std::chrono::steady_clock::now();
  long long total = static_cast<long long>(w.processes.size());
  if (tty)
    o.progress = [&](long long arrived, double simulated) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "\rscheduling: %lld of %lld processes arrived, simulated %.6g s, %.1f s elapsed   ",
                   arrived, total, simulated, secs);
    };
  sched::ScheduleReport r = sched::schedule(platform, std::move(w), o);
  if (tty && total >= (1 << 16))
    std::fprintf(stderr, "\r%90s\r", "");
  if (o.utilisation)
    write_output(plot, mark_svg(r.utilisation_svg));
  if (a.json) {
    std::cout << r.to_json(true).dump(2) << "\n";
    return 0;
  }
  std::cout << r.text(a.per_process);
  if (o.utilisation && plot.mode != OutputMode::Stdout)
    std::cout << "\nutilisation plot written to " << a.utilisation << "\n";
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
